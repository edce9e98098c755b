/**
 * The key-pair families load on demand (issue 22, the edge build): the
 * registry reaches them through a dynamic `import()`, so a process (or a
 * browser bundle) that only encrypts never loads pkijs, asn1js or the curves.
 * Every path that meets a key-pair type first must load them: key creation,
 * import, restore, the wrapping key, and the policy store decoding a stored
 * key. Each case here runs in a fresh copy of the modules (`vi.resetModules`),
 * where nothing has loaded them yet, on keys written by another copy.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { nobleBackend } from '../../src/crypto/noble/index.js';
import { nodeBackend } from '../../src/crypto/node/index.js';
import { isTransitError } from '../../src/errors.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { Transit } from '../../src/transit/transit.js';

type Fresh = {
  Transit: typeof Transit;
  keyTypes: typeof import('../../src/keys/key-types.js');
};

/** A copy of the engine modules in which no key-pair family has been loaded. */
async function fresh(): Promise<Fresh> {
  vi.resetModules();
  const keyTypes = await import('../../src/keys/key-types.js');
  const { Transit: FreshTransit } = await import('../../src/transit/transit.js');
  return { Transit: FreshTransit, keyTypes };
}

/** A storage holding keys of every key-pair family, written by this (loaded) copy. */
async function storageWithKeyPairs(): Promise<MemoryStorage> {
  const storage = new MemoryStorage();
  const writer = new Transit({ storage, autoRotate: false });
  for (const type of ['ed25519', 'ecdsa-p256', 'rsa-2048', 'mldsa-44']) {
    await writer.createKey(type, { type, exportable: true, allow_plaintext_backup: true });
  }
  await writer.close();
  return storage;
}

const B64 = btoa('message');

describe('key-pair families load on demand', () => {
  let storage: MemoryStorage;
  beforeEach(async () => {
    storage = await storageWithKeyPairs();
  }, 60_000);

  it('a fresh registry has no key-pair family until one is needed', async () => {
    const { keyTypes } = await fresh();
    const aes = keyTypes.keyType('aes256-gcm96');
    expect(keyTypes.familyReady(aes)).toBeUndefined();
    expect(aes.family.name).toBeTypeOf('string');
    const rsa = keyTypes.keyType('rsa-2048');
    let error: unknown;
    try {
      void rsa.family;
    } catch (e) {
      error = e;
    }
    expect(isTransitError(error, 'internal')).toBe(true);
    expect((error as Error).message).toBe('the rsa key family was used before it was loaded');
    const ready = keyTypes.familyReady(rsa);
    expect(ready).toBeInstanceOf(Promise);
    await ready;
    expect(keyTypes.familyReady(rsa)).toBeUndefined();
    expect(rsa.family.asymmetric).toBe(true);
  });

  it('symmetric work in a fresh copy loads no key-pair family', async () => {
    const m = await fresh();
    const t = new m.Transit({ storage: new MemoryStorage(), autoRotate: false });
    await t.createKey('aes');
    const { ciphertext } = await t.encrypt('aes', { plaintext: B64 });
    expect((await t.decrypt('aes', { ciphertext })).plaintext).toBe(B64);
    const { hmac } = await t.hmac('aes', { input: B64 });
    expect((await t.verify('aes', { input: B64, hmac })).valid).toBe(true);
    await t.close();
    expect(m.keyTypes.familyReady(m.keyTypes.keyType('ed25519'))).toBeInstanceOf(Promise);
  });

  it.each([
    ['node', nodeBackend],
    ['noble', nobleBackend],
  ])(
    'stored key pairs read, sign and verify in a fresh copy (%s)',
    async (_name, crypto) => {
      const m = await fresh();
      const t = new m.Transit({ storage, crypto, autoRotate: false });
      for (const type of ['ed25519', 'ecdsa-p256', 'rsa-2048', 'mldsa-44']) {
        const info = await t.readKey(type);
        expect(info.type).toBe(type);
        const { signature } = await t.sign(type, { input: B64 });
        expect((await t.verify(type, { input: B64, signature })).valid).toBe(true);
      }
      const { ciphertext } = await t.encrypt('rsa-2048', { plaintext: B64 });
      expect((await t.decrypt('rsa-2048', { ciphertext })).plaintext).toBe(B64);
      await t.close();
    },
    60_000,
  );

  it('verifying a signature is the first use of a stored key pair', async () => {
    const writer = new Transit({ storage, autoRotate: false });
    const { signature } = await writer.sign('ecdsa-p256', { input: B64 });
    const m = await fresh();
    const t = new m.Transit({ storage, autoRotate: false });
    expect((await t.verify('ecdsa-p256', { input: B64, signature })).valid).toBe(true);
  });

  it('creating a key pair is the first use', async () => {
    const m = await fresh();
    const t = new m.Transit({ storage: new MemoryStorage(), autoRotate: false });
    await t.createKey('fresh', { type: 'ECDSA-P384' });
    const { signature } = await t.sign('fresh', { input: B64 });
    expect(signature).toMatch(/^vault:v1:/);
    // A bad type is still refused as before, not by the loader.
    await expect(t.createKey('bad', { type: 'rsa-1024' })).rejects.toThrow(
      'unknown key type rsa-1024',
    );
  });

  it('restoring a key-pair backup is the first use', async () => {
    const writer = new Transit({ storage, autoRotate: false });
    const { backup } = await writer.backupKey('ed25519');
    const m = await fresh();
    const t = new m.Transit({ storage: new MemoryStorage(), autoRotate: false });
    await t.restoreKey({ backup, name: 'restored' });
    expect((await t.readKey('restored')).type).toBe('ed25519');
  });

  it('importing a public key is the first use', async () => {
    const writer = new Transit({ storage, autoRotate: false });
    const pem = (await writer.exportKey('public-key', 'ecdsa-p256', 1)).keys['1'] as string;
    const m = await fresh();
    const t = new m.Transit({ storage: new MemoryStorage(), autoRotate: false });
    await t.importKey('imported', { type: 'ecdsa-p256', public_key: pem });
    expect((await t.readKey('imported')).type).toBe('ecdsa-p256');
  });

  it('the wrapping key is the first use', async () => {
    const m = await fresh();
    const t = new m.Transit({ storage: new MemoryStorage(), autoRotate: false });
    const { public_key } = await t.getWrappingKey();
    expect(public_key).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
  }, 60_000);
});
