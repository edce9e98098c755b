/**
 * The BYOK wrapping key (`GET /transit/wrapping_key`): a 4096-bit RSA public
 * key, created lazily once per storage (concurrent first calls, and engines
 * sharing storage, end with exactly one), stored under the internal name
 * `import/wrapping-key`, which no user name can reach and listings skip.
 */
import { createPublicKey } from 'node:crypto';
import { MemoryStorage, Transit } from 'transitkit';
import { describe, expect, it } from 'vitest';
import { nobleBackend } from '../../src/crypto/noble/index.js';
import { nodeBackend } from '../../src/crypto/node/index.js';
import { keyspace } from '../../src/storage/keyspace.js';
import { expectError } from './support.js';

describe('wrapping key', () => {
  it('is created once, lazily, even under concurrent first calls from two engines', async () => {
    const storage = new MemoryStorage();
    const a = new Transit({ storage, crypto: nodeBackend, autoRotate: false });
    const b = new Transit({ storage, crypto: nobleBackend, autoRotate: false });
    expect(await storage.list(keyspace.policyPrefix)).toEqual([]);
    const pems = await Promise.all([
      a.getWrappingKey(),
      a.getWrappingKey(),
      a.getWrappingKey(),
      b.getWrappingKey(),
    ]);
    expect(new Set(pems.map((p) => p.public_key)).size).toBe(1);
    expect(await storage.list(keyspace.policyPrefix)).toEqual(['import/wrapping-key']);
    const pem = pems[0]?.public_key as string;
    expect(pem).toMatch(/^-----BEGIN PUBLIC KEY-----\n[\s\S]+\n-----END PUBLIC KEY-----\n$/);
    const key = createPublicKey(pem);
    expect(key.asymmetricKeyType).toBe('rsa');
    expect(key.asymmetricKeyDetails?.modulusLength).toBe(4096);
    // A later engine on the same storage reuses it.
    const c = new Transit({ storage, autoRotate: false });
    expect((await c.getWrappingKey()).public_key).toBe(pem);
  }, 120_000);

  it('is invisible to key operations and listings; a user key named "import" is unaffected', async () => {
    const storage = new MemoryStorage();
    const t = new Transit({ storage, autoRotate: false });
    for (const name of ['a', 'import', 'z']) await t.createKey(name);
    const before = (await t.getWrappingKey()).public_key;
    expect((await t.listKeys()).keys).toEqual(['a', 'import', 'z']);
    expect((await t.listKeys({ limit: 2 })).keys).toEqual(['a', 'import']);
    expect((await t.listKeys({ after: 'import', limit: 1 })).keys).toEqual(['z']);
    expect((await t.listKeys({ after: 'a', limit: 2 })).keys).toEqual(['import', 'z']);
    await expectError(t.readKey('import/wrapping-key'), 'invalid_request', /invalid key name/);
    await expectError(t.rotateKey('import/wrapping-key'), 'invalid_request', /invalid key name/);
    await expectError(t.exportKey('public-key', 'import/wrapping-key'), 'invalid_request');
    await t.updateKeyConfig('import', { deletion_allowed: true });
    await t.deleteKey('import');
    expect((await t.getWrappingKey()).public_key).toBe(before);
    expect((await t.runAutoRotation()).errors).toEqual([]);
  }, 120_000);
});
