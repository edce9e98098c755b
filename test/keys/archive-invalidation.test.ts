/**
 * Archived versions and change notifications (src/keys/policy-store.ts
 * `invalidateArchived`, src/transit/invalidation.ts): a notification for one
 * archive entry drops only that version, and only for key types whose archived
 * versions can be rewritten in place (asymmetric); a document notification no
 * longer drops the archive. So rotate stays O(1) in the versions of an
 * asymmetric key (it reloaded every archived version before), while a rewrite
 * by another instance is still seen, and a read that the rewrite overtook is
 * answered but not cached.
 */
import { MemoryStorage, Transit } from 'transitkit';
import { describe, expect, it } from 'vitest';
import type { LoadedKey } from '../../src/keys/policy-store.js';
import { HOT_VERSIONS } from '../../src/keys/policy-store.js';
import { keyspace, parseArchiveKey } from '../../src/storage/keyspace.js';
import { setCertificate, signCsr } from '../../src/transit/certificates.js';
import { createKey } from '../../src/transit/keys.js';
import { engineFromOptions } from '../../src/transit/options.js';
import { rotate } from '../../src/transit/rotate-config.js';
import { makeCa } from '../transit/ca-support.js';

const settle = () => new Promise((r) => setImmediate(r));

/** Counts archive reads; can hold the next one back until released. */
class Probe extends MemoryStorage {
  archiveReads = 0;
  #hold = false;
  held: (() => void) | undefined;

  holdNextArchiveRead(): void {
    this.#hold = true;
  }

  override async get(key: string): Promise<Uint8Array | undefined> {
    if (!key.startsWith('transit/archive/')) return super.get(key);
    this.archiveReads++;
    const value = await super.get(key);
    if (this.#hold) {
      this.#hold = false;
      await new Promise<void>((release) => {
        this.held = release;
      });
    }
    return value;
  }
}

describe('archive entry keys', () => {
  it('parse back to name, uid and version, names with slashes included', () => {
    for (const name of ['k', 'a/b/c', 'x-y_z.1']) {
      const key = keyspace.archive(name, '0123456789abcdef', 42);
      expect(parseArchiveKey(key)).toEqual({ name, uid: '0123456789abcdef', version: 42 });
    }
    for (const other of [
      'transit/policy/k',
      'transit/archive/',
      'transit/archive/k',
      'transit/archive/k/uid',
      'transit/archive/k/uid/12',
      'transit/archive/k/uid/00000000x1',
      'transit/archive//00000000001',
    ]) {
      expect(parseArchiveKey(other)).toBeUndefined();
    }
  });
});

describe('archived versions and notifications', () => {
  it('rotate of an asymmetric key reads back at most the version it just archived', async () => {
    for (const type of ['ed25519', 'ecdsa-p256'] as const) {
      const storage = new Probe();
      const transit = new Transit({ storage, autoRotate: false });
      await transit.createKey('k', { type });
      for (let i = 0; i < HOT_VERSIONS * 3; i++) await transit.rotateKey('k');
      await settle();
      storage.archiveReads = 0;
      for (let i = 0; i < 5; i++) {
        const info = await transit.rotateKey('k');
        expect(Object.keys(info.keys)).toHaveLength(HOT_VERSIONS * 3 + 2 + i);
        await settle();
      }
      // One per rotate (its own notification drops the version it archived); it was
      // every archived version per rotate (32 and more) before.
      expect(storage.archiveReads).toBeLessThanOrEqual(5);
      // A fresh engine lists the same versions and public keys.
      const cold = new Transit({ storage, autoRotate: false });
      expect((await cold.readKey('k')).keys).toEqual((await transit.readKey('k')).keys);
      await cold.close();
      await transit.close();
    }
  });

  it("drops only the notified version of an asymmetric key, and none of a symmetric key's", async () => {
    const storage = new MemoryStorage();
    const e = engineFromOptions({ storage });
    await createKey(e, 'sym', {});
    await createKey(e, 'asym', { type: 'ed25519' });
    for (let i = 0; i < HOT_VERSIONS + 4; i++) {
      await rotate(e, 'sym');
      await rotate(e, 'asym');
    }
    const sym = (await e.store.get('sym')) as LoadedKey;
    const asym = (await e.store.get('asym')) as LoadedKey;
    for (const key of [sym, asym]) for (let v = 1; v <= 4; v++) await e.store.version(key, v);
    e.store.invalidateArchived('sym', sym.doc.uid, 2);
    e.store.invalidateArchived('asym', asym.doc.uid, 2);
    e.store.invalidate('asym'); // a document notification leaves the archive alone
    expect([1, 2, 3, 4].map((v) => e.store.cachedVersion(sym, v) !== undefined)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect([1, 2, 3, 4].map((v) => e.store.cachedVersion(asym, v) !== undefined)).toEqual([
      true,
      false,
      true,
      true,
    ]);
    // Everything, when the whole prefix is reported.
    e.store.invalidate();
    expect(e.store.cachedVersion(sym, 1)).toBeUndefined();
  });

  it('a read of an archived version that a rewrite overtook is answered, not cached', async () => {
    const storage = new Probe();
    const e = engineFromOptions({ storage });
    await createKey(e, 'k', { type: 'ed25519' });
    for (let i = 0; i < HOT_VERSIONS + 2; i++) await rotate(e, 'k');
    const fresh = engineFromOptions({ storage }); // nothing cached
    const key = (await fresh.store.get('k')) as LoadedKey;
    storage.holdNextArchiveRead();
    const reading = fresh.store.version(key, 1);
    await settle();
    expect(storage.held).toBeDefined();
    // Another instance rewrites version 1 now; its notification arrives while the read waits.
    fresh.store.invalidateArchived('k', key.doc.uid, 1);
    storage.held?.();
    expect((await reading).creation_time).toBeGreaterThan(0);
    expect(fresh.store.cachedVersion(key, 1)).toBeUndefined();
    // The next read caches.
    await fresh.store.version(key, 1);
    expect(fresh.store.cachedVersion(key, 1)).toBeDefined();
  });

  it("a read of an archived version that the engine's own rewrite overtook does not replace it", async () => {
    const storage = new Probe();
    const e = engineFromOptions({ storage });
    await createKey(e, 'k', { type: 'ecdsa-p256' });
    for (let i = 0; i < HOT_VERSIONS + 2; i++) await rotate(e, 'k');
    const ca = makeCa('own rewrite CA');
    const chain = ca.issue((await signCsr(e, 'k', { version: 1 })).csr) + ca.pem;
    const fresh = engineFromOptions({ storage }); // nothing cached, no storage watch
    const key = (await fresh.store.get('k')) as LoadedKey;
    storage.holdNextArchiveRead();
    const reading = fresh.store.version(key, 1);
    await settle();
    expect(storage.held).toBeDefined();
    // The same engine sets a certificate on version 1 while its own read of it waits.
    await setCertificate(fresh, 'k', { certificate_chain: chain, version: 1 });
    storage.held?.();
    expect((await reading).certificate_chain ?? []).toHaveLength(0); // the bytes it read
    const now = (await fresh.store.get('k')) as LoadedKey;
    expect(fresh.store.cachedVersion(now, 1)?.certificate_chain).toHaveLength(2);
    expect((await fresh.store.version(now, 1)).certificate_chain).toHaveLength(2);
  });
});

describe('the asymmetric read body across calls', () => {
  it('gives each reply its own entries, and a rewritten version its new entry', async () => {
    const storage = new MemoryStorage();
    const transit = new Transit({ storage, autoRotate: false });
    await transit.createKey('k', { type: 'ecdsa-p256' });
    for (let i = 0; i < HOT_VERSIONS + 4; i++) await transit.rotateKey('k');
    type Entry = { public_key: string; certificate_chain: string; creation_time: string };
    const first = (await transit.readKey('k')).keys as Record<string, Entry>;
    const pem = first['1']?.public_key;
    (first['1'] as Entry).public_key = 'changed by the caller';
    const second = (await transit.readKey('k')).keys as Record<string, Entry>;
    expect(second['1']?.public_key).toBe(pem);
    expect(second['1']).not.toBe(first['1']);
    // The same listing from a cold engine, entry for entry.
    const cold = new Transit({ storage, autoRotate: false });
    expect((await cold.readKey('k')).keys).toEqual(second);
    await cold.close();
    await transit.close();
  });

  it("a derived Ed25519 key's listing with a context is not taken for the one without", async () => {
    const transit = new Transit({ autoRotate: false });
    await transit.createKey('d', { type: 'ed25519', derived: true });
    for (let i = 0; i < 3; i++) await transit.rotateKey('d');
    type Entry = { public_key: string };
    const plain = (await transit.readKey('d')).keys as Record<string, Entry>;
    const context = Buffer.from('tenant-1').toString('base64');
    const withContext = (await transit.readKey('d', { context })).keys as Record<string, Entry>;
    const again = (await transit.readKey('d')).keys as Record<string, Entry>;
    expect(plain['1']?.public_key).toBe('');
    expect(withContext['1']?.public_key).not.toBe('');
    expect(again).toEqual(plain);
    const other = Buffer.from('tenant-2').toString('base64');
    const otherKeys = (await transit.readKey('d', { context: other })).keys as Record<
      string,
      Entry
    >;
    expect(otherKeys['1']?.public_key).not.toBe(withContext['1']?.public_key);
    await transit.close();
  });
});
