/**
 * Archive writes racing another instance's writes (src/keys/policy-store.ts):
 * a version leaves the hot window by being written to its archive entry
 * before the document that drops it is compare-and-set. An instance whose
 * view of the key is behind must neither overwrite an archived version that
 * another instance has since rewritten (a lost certificate), nor leave an
 * archive entry behind a key that was deleted, replaced or trimmed meanwhile
 * (key material that outlives its key).
 */
import { MemoryStorage } from 'transitkit';
import { describe, expect, it } from 'vitest';
import { encodeVersion } from '../../src/keys/policy-codec.js';
import type { LoadedKey } from '../../src/keys/policy-store.js';
import { HOT_VERSIONS } from '../../src/keys/policy-store.js';
import { keyspace } from '../../src/storage/keyspace.js';
import { backupKey, restoreKey } from '../../src/transit/backup.js';
import { setCertificate, signCsr } from '../../src/transit/certificates.js';
import type { Engine } from '../../src/transit/engine.js';
import { createKey, deleteKey } from '../../src/transit/keys.js';
import { engineFromOptions } from '../../src/transit/options.js';
import { rotate, trimKey, updateKeyConfig } from '../../src/transit/rotate-config.js';
import { makeCa } from '../transit/ca-support.js';

/** Two engines on one storage, neither watching it: each sees the other's writes only on reload. */
async function pair(type: 'ecdsa-p256' | 'aes256-gcm96', versions: number) {
  const storage = new MemoryStorage();
  const a = engineFromOptions({ storage });
  const b = engineFromOptions({ storage });
  await createKey(a, 'k', { type });
  for (let v = 1; v < versions; v++) await rotate(a, 'k');
  return { storage, a, b };
}

let ca: ReturnType<typeof makeCa> | undefined;

/** Set a certificate chain (leaf and one openssl CA) on version 1 of key `k`, through `e`. */
async function certifyVersion1(e: Engine): Promise<void> {
  ca ??= makeCa('archive store CA');
  const chain = ca.issue((await signCsr(e, 'k', { version: 1 })).csr) + ca.pem;
  await setCertificate(e, 'k', { certificate_chain: chain, version: 1 });
}

const archiveEntries = async (storage: MemoryStorage) =>
  storage.list('transit/archive/', { limit: 0 });

describe('a rotate on a view that is behind', () => {
  it('does not overwrite an archived version another instance has rewritten since', async () => {
    const { storage, a, b } = await pair('ecdsa-p256', HOT_VERSIONS);
    await a.store.get('k'); // a's view: version 1 still inline
    // b rotates (version 1 is archived), then sets a certificate on version 1.
    await rotate(b, 'k');
    await certifyVersion1(b);
    // a rotates from its older view: its first attempt archives its copy of version 1.
    await rotate(a, 'k');
    const fresh = engineFromOptions({ storage });
    const key = (await fresh.store.get('k')) as LoadedKey;
    expect(key.doc.policy.latest_version).toBe(HOT_VERSIONS + 2);
    expect((await fresh.store.version(key, 1)).certificate_chain).toHaveLength(2);
  });
});

describe('an entry left by an attempt that never committed', () => {
  it('is replaced when the version leaves the hot window on the current view', async () => {
    const { storage, a } = await pair('ecdsa-p256', HOT_VERSIONS);
    const key = (await a.store.get('k')) as LoadedKey;
    // A crash between an archive write and its document left other bytes for version 1.
    const other = encodeVersion(await a.store.version(key, 2));
    await storage.put(keyspace.archive('k', key.doc.uid, 1), other);
    await certifyVersion1(a);
    await rotate(a, 'k');
    const fresh = engineFromOptions({ storage });
    const now = (await fresh.store.get('k')) as LoadedKey;
    expect(now.doc.versions.has(1)).toBe(false);
    const v1 = await fresh.store.version(now, 1);
    expect(v1.certificate_chain).toHaveLength(2);
    expect(v1.hmac_key).toEqual(key.doc.versions.get(1)?.hmac_key);
  });
});

describe('a rewrite of an archived version on a view that is behind', () => {
  it("is based on the version's stored bytes, so another instance's rewrite is kept", async () => {
    const { storage, a, b } = await pair('ecdsa-p256', HOT_VERSIONS + 2);
    const seen = (await a.store.get('k')) as LoadedKey;
    const before = await a.store.version(seen, 1); // a caches version 1 as it is now
    await certifyVersion1(b);
    // a rewrites version 1 from what it cached (another field than b's).
    let attempts = 0;
    await a.store.mutate('k', async (current) => {
      attempts++;
      const old = await a.store.version(current, 1);
      const next = { ...old, creation_time: old.creation_time + 1 };
      return { policy: current.doc.policy, add: new Map([[1, next]]), base: new Map([[1, old]]) };
    });
    expect(attempts).toBe(2);
    const key = (await engineFromOptions({ storage }).store.get('k')) as LoadedKey;
    const v1 = await engineFromOptions({ storage }).store.version(key, 1);
    expect(v1.certificate_chain).toHaveLength(2);
    expect(v1.creation_time).toBe(before.creation_time + 1);
  });
});

describe('archive entries of a key gone meanwhile', () => {
  it('a key deleted by another instance keeps no archived version', async () => {
    const { storage, a, b } = await pair('aes256-gcm96', HOT_VERSIONS);
    await updateKeyConfig(b, 'k', { deletion_allowed: true });
    await a.store.get('k');
    await deleteKey(b, 'k');
    expect((await rotate(a, 'k')).key).toBeUndefined();
    expect(await archiveEntries(storage)).toEqual([]);
  });

  it('a key trimmed by another instance keeps no archived version below the trim', async () => {
    const { storage, a, b } = await pair('aes256-gcm96', HOT_VERSIONS + 4);
    await a.store.get('k');
    await updateKeyConfig(b, 'k', { min_decryption_version: 10, min_encryption_version: 10 });
    await trimKey(b, 'k', { min_available_version: 10 });
    await rotate(a, 'k');
    const left = (await archiveEntries(storage)).map((k) => Number(k.split('/').at(-1)));
    expect(left.filter((v) => v < 10)).toEqual([]);
    const key = (await engineFromOptions({ storage }).store.get('k')) as LoadedKey;
    expect(key.doc.policy.latest_version).toBe(HOT_VERSIONS + 5);
  });
});

describe('a write that throws', () => {
  /** Fails the next compare-and-set of a key document (a store that drops its connection). */
  class FailingDocWrite extends MemoryStorage {
    failNext = false;
    override async compareAndSet(
      key: string,
      expected: Uint8Array | undefined,
      next: Uint8Array | undefined,
    ): Promise<boolean> {
      if (this.failNext && key.startsWith('transit/policy/')) {
        this.failNext = false;
        throw new Error('injected: connection lost');
      }
      return super.compareAndSet(key, expected, next);
    }
  }

  it('leaves no archived version of a key a restore never created', async () => {
    const source = engineFromOptions({ storage: new MemoryStorage() });
    await createKey(source, 'k', { exportable: true, allow_plaintext_backup: true });
    for (let v = 1; v < HOT_VERSIONS + 4; v++) await rotate(source, 'k');
    const { backup } = await backupKey(source, 'k');
    const storage = new FailingDocWrite();
    const e = engineFromOptions({ storage });
    storage.failNext = true;
    await expect(restoreKey(e, { backup, name: 'other' })).rejects.toThrow(/injected/);
    expect(await storage.get('transit/policy/other')).toBeUndefined();
    expect(await archiveEntries(storage)).toEqual([]);
    // Then it restores, with every version.
    await restoreKey(e, { backup, name: 'other' });
    expect(await archiveEntries(storage)).toHaveLength(4);
  });

  it('a rotate whose document write throws after the key was deleted leaves nothing', async () => {
    const storage = new FailingDocWrite();
    const a2 = engineFromOptions({ storage });
    const b2 = engineFromOptions({ storage });
    await createKey(a2, 'k', {});
    for (let v = 1; v < HOT_VERSIONS; v++) await rotate(a2, 'k');
    await updateKeyConfig(b2, 'k', { deletion_allowed: true });
    await a2.store.get('k');
    await deleteKey(b2, 'k');
    storage.failNext = true;
    await expect(rotate(a2, 'k')).rejects.toThrow(/injected/);
    expect(await archiveEntries(storage)).toEqual([]);
  });
});

describe('a storage failure after a delete, trim or restore committed', () => {
  /** Fails deletes of archive entries while `failDeletes` is set (a store that drops its connection). */
  class FailingDeletes extends MemoryStorage {
    failDeletes = false;
    override async delete(key: string): Promise<void> {
      if (this.failDeletes && key.startsWith('transit/archive/')) {
        throw new Error('injected: connection lost');
      }
      return super.delete(key);
    }
  }
  const setup = async (versions: number) => {
    const storage = new FailingDeletes();
    const e = engineFromOptions({ storage });
    await createKey(e, 'k', { exportable: true, allow_plaintext_backup: true });
    for (let v = 1; v < versions; v++) await rotate(e, 'k');
    await updateKeyConfig(e, 'k', { deletion_allowed: true });
    return { storage, e };
  };
  const notes = (s: MemoryStorage) => s.list('transit/purge/', { limit: 0 });

  it('a delete whose archive deletion failed: the retry ("not found") purges it', async () => {
    const { storage, e } = await setup(HOT_VERSIONS + 3);
    storage.failDeletes = true;
    await expect(deleteKey(e, 'k')).rejects.toThrow(/injected/);
    expect(await e.store.get('k')).toBeUndefined();
    expect(await archiveEntries(storage)).toHaveLength(3);
    expect(await notes(storage)).toHaveLength(1);
    storage.failDeletes = false;
    await expect(deleteKey(e, 'k')).rejects.toMatchObject({ message: /not found/ });
    expect(await archiveEntries(storage)).toEqual([]);
    expect(await notes(storage)).toEqual([]);
  });

  it("a later delete of another key purges it too; a live key's note and archive are left alone", async () => {
    const { storage, e } = await setup(HOT_VERSIONS + 2);
    const other = engineFromOptions({ storage });
    await createKey(other, 'live', {});
    for (let v = 1; v < HOT_VERSIONS + 2; v++) await rotate(other, 'live');
    const live = (await other.store.get('live')) as LoadedKey;
    // A note for a live incarnation (a delete whose write never committed).
    await storage.put(`transit/purge/${live.doc.uid}`, new TextEncoder().encode('live'));
    storage.failDeletes = true;
    await expect(deleteKey(e, 'k')).rejects.toThrow(/injected/);
    storage.failDeletes = false;
    await createKey(e, 'doomed', {});
    await updateKeyConfig(e, 'doomed', { deletion_allowed: true });
    await deleteKey(e, 'doomed');
    const left = await archiveEntries(storage);
    expect(left).toHaveLength(2);
    expect(left.every((k) => k.startsWith(`live/${live.doc.uid}/`))).toBe(true);
    expect(await notes(storage)).toEqual([live.doc.uid]);
    expect((await other.store.version(live, 1)).key).toBeDefined();
  });

  it('a trim whose clean-up failed took effect; the same trim again deletes what is left below it', async () => {
    const { storage, e } = await setup(HOT_VERSIONS + 6);
    await updateKeyConfig(e, 'k', { min_decryption_version: 5, min_encryption_version: 5 });
    storage.failDeletes = true;
    // The document committed: the trim is reported done, not failed (a retry would find it done).
    expect((await trimKey(e, 'k', { min_available_version: 5 })).min_available_version).toBe(5);
    expect((await e.store.get('k'))?.doc.policy.min_available_version).toBe(5);
    expect(await archiveEntries(storage)).toHaveLength(6);
    storage.failDeletes = false;
    await trimKey(e, 'k', { min_available_version: 5 });
    const left = (await archiveEntries(storage)).map((k) => Number(k.split('/').at(-1)));
    expect(left).toEqual([5, 6]);
  });

  it('a forced restore whose old archive deletion failed: the next delete purges it', async () => {
    const { storage, e } = await setup(HOT_VERSIONS + 2);
    const { backup } = await backupKey(e, 'k');
    const old = (await e.store.get('k')) as LoadedKey;
    storage.failDeletes = true;
    await expect(restoreKey(e, { backup, force: true })).rejects.toThrow(/injected/);
    storage.failDeletes = false;
    const now = (await e.store.get('k')) as LoadedKey;
    expect(now.doc.uid).not.toBe(old.doc.uid);
    await createKey(e, 'x', {});
    await updateKeyConfig(e, 'x', { deletion_allowed: true });
    await deleteKey(e, 'x');
    const left = await archiveEntries(storage);
    expect(left.filter((k) => k.includes(old.doc.uid))).toEqual([]);
    expect(left.filter((k) => k.includes(now.doc.uid))).toHaveLength(2);
    expect(await notes(storage)).toEqual([]);
  });
});
