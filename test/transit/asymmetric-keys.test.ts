/**
 * Asymmetric keys in the engine: creation rules (derivation, convergence,
 * upsert texts), the read body's `keys` map (reference §9), the stored form
 * (reload from storage, public-key-only versions), rotation, read with a
 * context, and backup. RSA-OAEP encrypt/decrypt/rewrap/datakey and the
 * refusals between signing-only, encryption and symmetric types:
 * encrypt-rsa.test.ts.
 */
import { MemoryStorage, Transit } from 'transitkit';
import { beforeAll, describe, expect, it } from 'vitest';
import { nobleBackend } from '../../src/crypto/noble/index.js';
import { keyspace } from '../../src/storage/keyspace.js';
import { wycheproofRsa } from '../crypto/asymmetric-helpers.js';
import { ecMaterial, putKnownKey, rsaMaterial } from '../helpers/known-key.js';
import { b64, createSigningKeys, enginePair, type Pair, SIGNING_TYPES } from './asym-support.js';
import { expectError, unb64 } from './support.js';

type PublicEntry = {
  name: string;
  public_key: string;
  creation_time: string;
  certificate_chain: string;
};
const entries = (keys: unknown) => keys as Record<string, PublicEntry>;

let pair: Pair;
beforeAll(async () => {
  pair = enginePair();
  await createSigningKeys(pair);
});

describe('create', () => {
  it('flags per type, Vault ids of the registry, and what read shows', async () => {
    const expected = {
      ed25519: { enc: false, sign: true, derive: true, name: 'ed25519' },
      'ecdsa-p256': { enc: false, sign: true, derive: false, name: 'P-256' },
      'ecdsa-p384': { enc: false, sign: true, derive: false, name: 'P-384' },
      'ecdsa-p521': { enc: false, sign: true, derive: false, name: 'P-521' },
      'rsa-2048': { enc: true, sign: true, derive: false, name: 'rsa-2048' },
      'rsa-3072': { enc: true, sign: true, derive: false, name: 'rsa-3072' },
      'rsa-4096': { enc: true, sign: true, derive: false, name: 'rsa-4096' },
    } as const;
    for (const type of SIGNING_TYPES) {
      const info = await pair.noble.readKey(type);
      const e = expected[type];
      expect(info.type).toBe(type);
      expect(info.supports_encryption).toBe(e.enc);
      expect(info.supports_decryption).toBe(e.enc);
      expect(info.supports_signing).toBe(e.sign);
      expect(info.supports_derivation).toBe(e.derive);
      const v1 = entries(info.keys)['1'] as PublicEntry;
      expect(Object.keys(v1).sort()).toEqual([
        'certificate_chain',
        'creation_time',
        'name',
        'public_key',
      ]);
      expect(v1.name).toBe(e.name);
      expect(v1.certificate_chain).toBe('');
      expect(v1.creation_time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
      if (type === 'ed25519') {
        expect(unb64(v1.public_key)).toHaveLength(32);
      } else {
        expect(v1.public_key).toMatch(
          /^-----BEGIN PUBLIC KEY-----\n[\s\S]+\n-----END PUBLIC KEY-----\n$/,
        );
        // The read PEM and the public-key export (trimmed or not) are the same key.
        const exported = (await pair.node.exportKey('public-key', type, 1)).keys['1'];
        expect(exported?.trim()).toBe(v1.public_key.trim());
      }
    }
  });

  it('refuses derivation and convergence where Vault does (400, not 500)', async () => {
    const t = pair.node;
    for (const type of ['ecdsa-p256', 'ecdsa-p521', 'rsa-2048', 'rsa-4096']) {
      await expectError(
        t.createKey(`d-${type}`, { type, derived: true }),
        'invalid_request',
        `key derivation and convergent encryption not supported for keys of type ${type}`,
      );
    }
    await expectError(
      t.createKey('d-ed', { type: 'ed25519', derived: true, convergent_encryption: true }),
      'invalid_request',
      'convergent encryption not supported for keys of type ed25519',
    );
    await expectError(
      t.createKey('d-ed2', { type: 'ed25519', convergent_encryption: true }),
      'invalid_request',
      'convergent encryption requires derivation to be enabled',
    );
    await expectError(
      t.createKey('ks', { type: 'ecdsa-p256', key_size: 32 }),
      'invalid_request',
      'key_size is not valid for algorithm ecdsa-p256',
    );
    // Nothing was stored.
    expect((await t.listKeys()).keys.filter((k) => k.startsWith('d-'))).toEqual([]);
  });

  it('encrypt-upsert refuses asymmetric types with Vault texts', async () => {
    const t = pair.node;
    await expectError(
      t.encrypt('up-ec', { plaintext: b64('x'), type: 'ecdsa-p384' }),
      'invalid_request',
      'key type ecdsa-p384 not supported for this operation',
    );
    for (const type of ['rsa-2048', 'ed25519']) {
      await expectError(
        t.encrypt('up', { plaintext: b64('x'), type }),
        'invalid_request',
        `unknown key type ${type}`,
      );
    }
  });

  it('rotation adds a fresh key pair of the same type', async () => {
    await pair.node.createKey('rot', { type: 'ecdsa-p384' });
    const info = await pair.noble.rotateKey('rot');
    const keys = entries(info.keys);
    expect(info.latest_version).toBe(2);
    expect(keys['2']?.name).toBe('P-384');
    expect(keys['2']?.public_key).not.toBe(keys['1']?.public_key);
    const { signature } = await pair.noble.sign('rot', { input: b64('x') });
    expect(signature.startsWith('vault:v2:')).toBe(true);
  });
});

describe('stored form', () => {
  it('a fresh engine on the same storage reloads every type and verifies old signatures', async () => {
    const fresh = new Transit({ storage: pair.storage, crypto: nobleBackend, autoRotate: false });
    for (const type of SIGNING_TYPES) {
      const { signature } = await pair.node.sign(type, { input: b64('persisted') });
      expect((await fresh.verify(type, { input: b64('persisted'), signature })).valid).toBe(true);
      expect(await fresh.readKey(type)).toEqual(await pair.node.readKey(type));
    }
  });

  it('holds Vault’s numbers: EC x/y/d and RSA N/E/D/primes/CRT as decimal strings, Ed25519 seed ‖ pub', async () => {
    const doc = async (name: string) =>
      JSON.parse(
        Buffer.from((await pair.storage.get(keyspace.policy(name))) as Uint8Array).toString(),
      );
    const ec = (await doc('ecdsa-p256')).versions['1'];
    for (const f of ['ec_x', 'ec_y', 'ec_d']) expect(ec[f]).toMatch(/^[0-9]+$/);
    expect(ec.public_key).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
    expect(ec.key).toBe('');
    const rsa = (await doc('rsa-2048')).versions['1'];
    expect(Object.keys(rsa.rsa_key).sort()).toEqual(['d', 'dp', 'dq', 'e', 'n', 'p', 'q', 'qi']);
    expect(rsa.rsa_key.e).toBe('65537');
    const ed = (await doc('ed25519')).versions['1'];
    const key = Buffer.from(ed.key, 'base64');
    expect(key).toHaveLength(64);
    expect(key.subarray(32).toString('base64')).toBe(ed.public_key);
    // Every asymmetric version still has its own HMAC key.
    for (const v of [ec, rsa, ed]) expect(Buffer.from(v.hmac_key, 'base64')).toHaveLength(32);
  });

  it('public-key-only versions verify and encrypt but refuse to sign, decrypt and export a private key', async () => {
    const storage = new MemoryStorage();
    const rsa = wycheproofRsa(2048);
    const t = new Transit({ storage, autoRotate: false });
    const fullStorage = new MemoryStorage();
    await putKnownKey(
      fullStorage,
      'rsa',
      [{ key: new Uint8Array(0), asymmetric: rsaMaterial(rsa) }],
      {
        type: 'rsa-2048',
      },
    );
    await putKnownKey(
      storage,
      'rsa',
      [{ key: new Uint8Array(0), asymmetric: rsaMaterial({ n: rsa.n, e: rsa.e }) }],
      {
        type: 'rsa-2048',
        exportable: true,
      },
    );
    const signer = new Transit({ storage: fullStorage, autoRotate: false });
    const { signature } = await signer.sign('rsa', { input: b64('hi') });
    expect((await t.verify('rsa', { input: b64('hi'), signature })).valid).toBe(true);
    await expectError(
      t.sign('rsa', { input: b64('hi') }),
      'invalid_request',
      'requested version for signing does not contain a private part',
    );
    const { ciphertext } = await t.encrypt('rsa', { plaintext: b64('secret') });
    expect((await signer.decrypt('rsa', { ciphertext })).plaintext).toBe(b64('secret'));
    await expectError(
      t.decrypt('rsa', { ciphertext }),
      'invalid_request',
      'cannot decrypt ciphertext, no private key available',
    );
    expect((await t.exportKey('signing-key', 'rsa')).keys).toEqual({ '1': '' });

    const p = (await import('@noble/curves/nist.js')).p256;
    const d = 7n;
    const pt = p.Point.BASE.multiply(d).toAffine();
    await putKnownKey(
      storage,
      'ec',
      [{ key: new Uint8Array(0), asymmetric: ecMaterial('p256', pt.x, pt.y) }],
      {
        type: 'ecdsa-p256',
        exportable: true,
      },
    );
    await expectError(
      t.sign('ec', { input: b64('hi') }),
      'invalid_request',
      'requested version for signing does not contain a private part',
    );
    expect((await t.exportKey('signing-key', 'ec')).keys).toEqual({ '1': '' });
    expect((await t.readKey('ec')).keys).toMatchObject({ '1': { name: 'P-256' } });
  });
});

describe('read with context', () => {
  it('a bad context is refused; context on a non-derived key changes nothing', async () => {
    await expectError(pair.node.readKey('ed25519', { context: '%%' }), 'invalid_request');
    const a = await pair.node.readKey('ed25519');
    expect(await pair.node.readKey('ed25519', { context: b64('x') })).toEqual(a);
    expect(entries(a.keys)['1']?.public_key).not.toBe('');
  });
});

describe('backup of asymmetric keys (round trips: backup-asymmetric.test.ts)', () => {
  it('backs up an asymmetric key; a symmetric blob relabelled as ECDSA is refused', async () => {
    const t = pair.node;
    await t.createKey('bk-ed', { type: 'ed25519', exportable: true, allow_plaintext_backup: true });
    await t.backupKey('bk-ed');
    expect((await t.readKey('bk-ed')).backup_info?.version).toBe(1);
    await t.createKey('bk-aes', { exportable: true, allow_plaintext_backup: true });
    const { backup } = await t.backupKey('bk-aes');
    const json = Buffer.from(backup, 'base64').toString('utf8').replace('"type":0', '"type":1');
    await expectError(
      t.restoreKey({ backup: Buffer.from(json).toString('base64'), name: 'bk-ec' }),
      'invalid_request',
      "invalid backup: missing 'ec_x'/'ec_y'",
    );
  });
});
