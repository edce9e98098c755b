/**
 * A rewrite of an archived version (import_version of a private half,
 * set-certificate) writes the version's archive entry by compare-and-set
 * before the key document, which is the commit. When another instance's
 * write wins the document in between, the attempt is retried from the key as
 * stored; what it rewrote in place must be put back first, or the retry finds
 * its own uncommitted change and refuses the import as done ("private key
 * imported, key version cannot be updated") although the caller is told it
 * failed. Two engines on one storage, the other's write landing exactly
 * before the importer's document write.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Transit } from '../../src/index.js';
import { mobilityPair, wrapForImport } from '../transit/import-support.js';

const pkcs8 = (k: { privateKey: KeyObject }) =>
  new Uint8Array(k.privateKey.export({ format: 'der', type: 'pkcs8' }));
const spkiPem = (k: { publicKey: KeyObject }) =>
  k.publicKey.export({ format: 'pem', type: 'spki' }).toString();
const FOX = btoa('the quick brown fox');

describe('a rewrite of an archived version whose document write loses', () => {
  it('is put back and retried: the import succeeds once, and the version signs', async () => {
    const pair = await mobilityPair();
    const [a, b] = pair.engines.map(([, t]) => t) as [Transit, Transit];
    const pairs = Array.from({ length: 17 }, () => generateKeyPairSync('ed25519'));
    await a.importKey('k', { type: 'ed25519', public_key: spkiPem(pairs[0] as never) });
    for (const k of pairs.slice(1)) await a.importKeyVersion('k', { public_key: spkiPem(k) });
    expect((await a.readKey('k')).latest_version).toBe(17); // version 1 is archived now

    // The other engine writes the key's document once, just before the importer's.
    const { storage } = pair;
    const cas = storage.compareAndSet.bind(storage);
    let documentWrites = 0;
    let interfered = false;
    storage.compareAndSet = async (key, expected, next) => {
      if (key === 'transit/policy/k') {
        documentWrites++;
        if (!interfered) {
          interfered = true;
          await b.updateKeyConfig('k', { deletion_allowed: true });
        }
      }
      return cas(key, expected, next);
    };
    const ciphertext = wrapForImport(pair.wrap, pkcs8(pairs[0] as never));
    await expect(a.importKeyVersion('k', { ciphertext, version: 1 })).resolves.toBeUndefined();
    expect(documentWrites, 'the importer lost once, then committed').toBe(3);
    storage.compareAndSet = cas;

    // Both changes are kept, and version 1 now signs (on both engines).
    expect((await b.readKey('k')).deletion_allowed).toBe(true);
    for (const t of [a, b]) {
      expect((await t.sign('k', { input: FOX, key_version: 1 })).signature).toMatch(/^vault:v1:/);
    }
    // A second import of the same private half is Vault's refusal: it is done.
    await expect(a.importKeyVersion('k', { ciphertext, version: 1 })).rejects.toThrow(
      'private key imported, key version cannot be updated',
    );
  });
});
