/**
 * The key store's layout and concurrency: newest versions inline, older ones
 * archived under the key's incarnation id, trim removing archive entries,
 * delete removing everything, and CAS writes that never lose an update.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MemoryStorage, Transit } from 'transitkit';
import { FileStorage } from 'transitkit/adapters/file';
import { describe, expect, it } from 'vitest';
import { decodeDocument } from '../../src/keys/policy-codec.js';
import { HOT_VERSIONS } from '../../src/keys/policy-store.js';

const FOX = 'dGhlIHF1aWNrIGJyb3duIGZveA==';

async function docOf(storage: MemoryStorage, name: string) {
  const raw = await storage.get(`transit/policy/${name}`);
  if (!raw) throw new Error('no document');
  return decodeDocument(raw);
}

describe('policy store layout', () => {
  it('keeps the newest versions inline and archives the rest; every version still decrypts', async () => {
    const storage = new MemoryStorage();
    const transit = new Transit({ storage, autoRotate: false });
    await transit.createKey('k');
    const cts: string[] = [];
    const total = HOT_VERSIONS * 3 + 5;
    for (let v = 1; v <= total; v++) {
      cts.push((await transit.encrypt('k', { plaintext: FOX })).ciphertext);
      if (v < total) await transit.rotateKey('k');
    }
    const doc = await docOf(storage, 'k');
    expect(doc.policy.latest_version).toBe(total);
    expect([...doc.versions.keys()].sort((a, b) => a - b)).toEqual(
      Array.from({ length: HOT_VERSIONS }, (_, i) => total - HOT_VERSIONS + 1 + i),
    );
    const archived = await storage.list(`transit/archive/k/${doc.uid}/`);
    expect(archived).toHaveLength(total - HOT_VERSIONS);
    // A fresh engine (cold caches) decrypts every version, inline or archived.
    const cold = new Transit({ storage, autoRotate: false });
    for (const [i, ciphertext] of cts.entries()) {
      expect(ciphertext.startsWith(`vault:v${i + 1}:`)).toBe(true);
      expect((await cold.decrypt('k', { ciphertext })).plaintext).toBe(FOX);
    }
    expect(Object.keys((await cold.readKey('k')).keys)).toHaveLength(total);
  });

  it('an archived asymmetric version signs, verifies and decrypts from a cold engine', async () => {
    const storage = new MemoryStorage();
    const transit = new Transit({ storage, autoRotate: false });
    await transit.createKey('ec', { type: 'ecdsa-p256' });
    await transit.createKey('rsa', { type: 'rsa-2048' });
    const first = (await transit.sign('ec', { input: FOX })).signature;
    const sealed = (await transit.encrypt('rsa', { plaintext: FOX })).ciphertext;
    for (let v = 1; v <= HOT_VERSIONS; v++) {
      await transit.rotateKey('ec');
      await transit.rotateKey('rsa');
    }
    for (const name of ['ec', 'rsa']) {
      const doc = await docOf(storage, name);
      expect(doc.versions.has(1)).toBe(false); // version 1 is read from the archive
    }
    // Each call below starts on a fresh engine, so version 1 is never at hand.
    const engines: Transit[] = [transit];
    const cold = () => {
      const engine = new Transit({ storage, autoRotate: false });
      engines.push(engine);
      return engine;
    };
    expect((await cold().verify('ec', { input: FOX, signature: first })).valid).toBe(true);
    const again = await cold().sign('ec', { input: FOX, key_version: 1 });
    expect(again.key_version).toBe(1);
    expect((await cold().verify('ec', { input: FOX, signature: again.signature })).valid).toBe(
      true,
    );
    expect((await cold().decrypt('rsa', { ciphertext: sealed })).plaintext).toBe(FOX);
    const old = await cold().encrypt('rsa', { plaintext: FOX, key_version: 1 });
    expect(old.ciphertext.startsWith('vault:v1:')).toBe(true);
    expect((await cold().decrypt('rsa', { ciphertext: old.ciphertext })).plaintext).toBe(FOX);
    await expect(
      cold().decrypt('rsa', { ciphertext: sealed, associated_data: FOX }),
    ).rejects.toThrow("'[0].associated_data' provided for non-AEAD cipher suite");
    await Promise.all(engines.map((engine) => engine.close()));
  });

  it('rotate stays O(1) in versions: own writes keep archived symmetric versions cached', async () => {
    // MemoryStorage's watch tells an engine of its own writes too; archived
    // versions of a symmetric key never change under one uid, so the
    // notification must not drop them (rotate returns every version's time).
    class Counting extends MemoryStorage {
      archiveReads = 0;
      override async get(key: string): Promise<Uint8Array | undefined> {
        if (key.startsWith('transit/archive/')) this.archiveReads++;
        return super.get(key);
      }
    }
    const storage = new Counting();
    const transit = new Transit({ storage, autoRotate: false });
    await transit.createKey('k');
    for (let i = 0; i < HOT_VERSIONS * 3; i++) await transit.rotateKey('k');
    await new Promise((r) => setImmediate(r)); // let the watch notifications run
    storage.archiveReads = 0;
    for (let i = 0; i < 5; i++) {
      const info = await transit.rotateKey('k');
      expect(Object.keys(info.keys)).toHaveLength(HOT_VERSIONS * 3 + 2 + i);
      await new Promise((r) => setImmediate(r));
    }
    expect(storage.archiveReads).toBe(0);
  });

  it('trim deletes archived entries below min_available_version; delete removes everything', async () => {
    const storage = new MemoryStorage();
    const transit = new Transit({ storage, autoRotate: false });
    await transit.createKey('k');
    const first = (await transit.encrypt('k', { plaintext: FOX })).ciphertext;
    for (let i = 0; i < HOT_VERSIONS + 10; i++) await transit.rotateKey('k');
    const latest = HOT_VERSIONS + 11;
    await transit.updateKeyConfig('k', { min_decryption_version: 8, min_encryption_version: 9 });
    await transit.trimKey('k', { min_available_version: 8 });
    const { uid } = await docOf(storage, 'k');
    const archived = await storage.list(`transit/archive/k/${uid}/`);
    expect(archived.map(Number)).toEqual(
      Array.from({ length: latest - HOT_VERSIONS - 7 }, (_, i) => 8 + i),
    );
    await expect(transit.decrypt('k', { ciphertext: first })).rejects.toMatchObject({
      code: 'invalid_request',
      message: 'ciphertext or signature version is disallowed by policy (too old)',
    });
    await transit.updateKeyConfig('k', { deletion_allowed: true });
    await transit.deleteKey('k');
    expect(await storage.list('transit/')).toEqual([]);
  });

  it('a re-created name never sees the archive of the deleted key', async () => {
    const storage = new MemoryStorage();
    const transit = new Transit({ storage, autoRotate: false });
    await transit.createKey('k');
    for (let i = 0; i < HOT_VERSIONS + 2; i++) await transit.rotateKey('k');
    const oldUid = (await docOf(storage, 'k')).uid;
    await transit.updateKeyConfig('k', { deletion_allowed: true });
    await transit.deleteKey('k');
    await transit.createKey('k');
    expect((await docOf(storage, 'k')).uid).not.toBe(oldUid);
    expect((await transit.readKey('k')).latest_version).toBe(1);
  });

  it('concurrent rotations from two engines on one storage never lose a version', async () => {
    const storage = new MemoryStorage();
    const a = new Transit({ storage, autoRotate: false });
    const b = new Transit({ storage, autoRotate: false });
    await a.createKey('k');
    await Promise.all(
      Array.from({ length: 60 }, (_, i) => ((i % 2 === 0 ? a : b) as Transit).rotateKey('k')),
    );
    const doc = await docOf(storage, 'k');
    expect(doc.policy.latest_version).toBe(61);
    const fresh = new Transit({ storage, autoRotate: false });
    expect(Object.keys((await fresh.readKey('k')).keys)).toHaveLength(61);
  });
});

describe('persistence on FileStorage', () => {
  it('keys, archived versions and settings survive close and reopen', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'transitkit-persist-'));
    try {
      let storage = await FileStorage.open(dir);
      let transit = new Transit({ storage, autoRotate: false });
      await transit.createKey('orders', { type: 'chacha20-poly1305', derived: true });
      const context = 'Y3VzdG9tZXItNDI=';
      const cts: string[] = [];
      for (let i = 0; i < HOT_VERSIONS + 4; i++) {
        cts.push((await transit.encrypt('orders', { plaintext: FOX, context })).ciphertext);
        await transit.rotateKey('orders');
      }
      await transit.writeKeysConfig({ disable_upsert: true });
      await transit.writeCacheConfig({ size: 25 });
      await transit.close();
      await storage.close();

      storage = await FileStorage.open(dir);
      transit = new Transit({ storage, autoRotate: false });
      for (const ciphertext of cts) {
        expect((await transit.decrypt('orders', { ciphertext, context })).plaintext).toBe(FOX);
      }
      expect(await transit.readKeysConfig()).toEqual({ disable_upsert: true });
      expect(await transit.readCacheConfig()).toEqual({ size: 25 });
      await expect(transit.encrypt('new-key', { plaintext: FOX })).rejects.toMatchObject({
        message: 'encryption key not found',
      });
      await storage.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
