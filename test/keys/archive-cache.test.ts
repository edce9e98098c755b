/**
 * The archived-version cache (src/keys/archive-cache.ts, issue #18): by name,
 * then number, for the current incarnation only; bounded in versions, least
 * recently used key first. And the read body it serves (rotate's answer) is
 * the same from a warm engine as from a cold one reading every archived
 * version from storage, before and after a trim.
 */
import { describe, expect, it } from 'vitest';
import { Transit } from '../../src/index.js';
import { ArchiveCache } from '../../src/keys/archive-cache.js';
import type { KeyVersion } from '../../src/keys/policy.js';
import { MemoryStorage } from '../../src/storage/memory.js';

const ver = (n: number): KeyVersion =>
  ({
    key: new Uint8Array([n]),
    hmac_key: new Uint8Array(0),
    creation_time: n,
    time: '',
    convergent_version: 0,
  }) as KeyVersion;

describe('ArchiveCache', () => {
  it('answers only for the incarnation it holds', () => {
    const c = new ArchiveCache(10);
    c.set('k', 'u1', 1, ver(1));
    expect(c.get('k', 'u1', 1)?.creation_time).toBe(1);
    expect(c.get('k', 'u2', 1)).toBeUndefined();
    expect(c.peek('k', 'u1', 2)).toBeUndefined();
    c.set('k', 'u2', 5, ver(5)); // a re-created name: the old incarnation goes
    expect(c.peek('k', 'u1', 1)).toBeUndefined();
    expect([...(c.versionsOf('k', 'u2')?.keys() ?? [])]).toEqual([5]);
    expect(c.size).toBe(1);
  });

  it('stays within its bound, dropping the least recently used key first', () => {
    const c = new ArchiveCache(4);
    c.set('a', 'u', 1, ver(1));
    c.set('a', 'u', 2, ver(2));
    c.set('b', 'u', 1, ver(1));
    c.get('a', 'u', 1); // a is now the most recently used
    c.set('c', 'u', 1, ver(1));
    c.set('c', 'u', 2, ver(2)); // 5 > 4: b goes
    expect(c.peek('b', 'u', 1)).toBeUndefined();
    expect(c.peek('a', 'u', 2)?.creation_time).toBe(2);
    expect(c.size).toBe(4);
    for (let v = 3; v <= 8; v++) c.set('c', 'u', v, ver(v)); // c alone past the bound
    expect(c.size).toBe(4);
    expect(c.peek('a', 'u', 1)).toBeUndefined();
    expect([...(c.versionsOf('c', 'u')?.keys() ?? [])]).toEqual([5, 6, 7, 8]);
  });

  it('forgets a version, an incarnation, a name, everything', () => {
    const c = new ArchiveCache(10);
    c.set('a', 'u', 1, ver(1));
    c.set('a', 'u', 2, ver(2));
    c.set('b', 'v', 1, ver(1));
    c.delete('a', 'u', 1);
    expect(c.peek('a', 'u', 1)).toBeUndefined();
    c.deleteKey('a', 'other'); // another incarnation: nothing to do
    expect(c.peek('a', 'u', 2)).toBeDefined();
    c.deleteKey('a');
    expect(c.size).toBe(1);
    c.clear();
    expect(c.size).toBe(0);
    expect(c.peek('b', 'v', 1)).toBeUndefined();
  });
});

describe('the read body over archived versions', () => {
  it('is the same warm and cold, before and after a trim', async () => {
    const storage = new MemoryStorage();
    const warm = new Transit({ storage, autoRotate: false });
    await warm.createKey('many');
    const first = (await warm.encrypt('many', { plaintext: 'aGk=' })).ciphertext;
    let body = await warm.readKey('many');
    for (let i = 0; i < 39; i++) body = await warm.rotateKey('many');
    expect(Object.keys(body.keys)).toHaveLength(40);
    const cold = new Transit({ storage, autoRotate: false });
    expect(await cold.readKey('many')).toEqual(body);
    expect((await cold.decrypt('many', { ciphertext: first })).plaintext).toBe('aGk=');

    await warm.updateKeyConfig('many', { min_decryption_version: 10, min_encryption_version: 20 });
    await warm.trimKey('many', { min_available_version: 10 });
    const trimmed = await warm.rotateKey('many');
    expect(Object.keys(trimmed.keys)).toEqual(Array.from({ length: 32 }, (_, i) => String(i + 10)));
    const again = new Transit({ storage, autoRotate: false });
    expect(await again.readKey('many')).toEqual(trimmed);
    await expect(again.decrypt('many', { ciphertext: first })).rejects.toThrow();
    for (const t of [warm, cold, again]) await t.close();
  });
});
