/**
 * Asymmetric keys in the engine: creation rules (derivation, convergence,
 * upsert texts), the read body's `keys` map (reference §9), the stored form
 * (reload from storage, public-key-only versions), rotation, RSA-OAEP
 * encrypt/decrypt/rewrap/datakey on both backends, and the refusals between
 * signing-only, encryption and symmetric types.
 */
import { constants, createPrivateKey, privateDecrypt, publicEncrypt } from 'node:crypto';
import { MemoryStorage, Transit } from 'transitkit';
import { beforeAll, describe, expect, it } from 'vitest';
import { nobleBackend } from '../../src/crypto/noble/index.js';
import { keyspace } from '../../src/storage/keyspace.js';
import { wycheproofRsa } from '../crypto/asymmetric-helpers.js';
import { ecMaterial, putKnownKey, rsaMaterial } from '../helpers/known-key.js';
import {
  b64,
  createSigningKeys,
  enginePair,
  type Pair,
  publicKeyObject,
  RSA_TYPES,
  SIGNING_TYPES,
} from './asym-support.js';
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

describe('RSA-OAEP encryption', () => {
  it.each(RSA_TYPES)(
    '%s: encrypt/decrypt across backends; node:crypto decrypts and encrypts',
    async (type) => {
      const plaintext = b64('attack at dawn');
      for (const [, a] of pair.engines) {
        for (const [, b] of pair.engines) {
          const c = await a.encrypt(type, { plaintext });
          expect(c.key_version).toBe(1);
          expect(c.ciphertext).toMatch(/^vault:v1:/);
          const bytes = unb64(c.ciphertext.slice('vault:v1:'.length));
          expect(bytes).toHaveLength(Number(type.slice(4)) / 8);
          expect((await b.decrypt(type, { ciphertext: c.ciphertext })).plaintext).toBe(plaintext);
        }
      }
      // Independent: node:crypto with SHA-256 OAEP, empty label, in both directions.
      const pub = await publicKeyObject(pair.node, type);
      const pem = (await pair.node.exportKey('encryption-key', type, 1)).keys['1'] as string;
      const priv = createPrivateKey(pem);
      const ours = await pair.noble.encrypt(type, { plaintext });
      const oaep = { padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' };
      const plain = privateDecrypt({ key: priv, ...oaep }, unb64(ours.ciphertext.slice(9)));
      expect(plain.toString()).toBe('attack at dawn');
      const theirs = publicEncrypt({ key: pub, ...oaep }, Buffer.from('from node'));
      const d = await pair.noble.decrypt(type, {
        ciphertext: `vault:v1:${theirs.toString('base64')}`,
      });
      expect(d.plaintext).toBe(b64('from node'));
    },
  );

  it('rewrap, datakey, batch, empty plaintext and the size limit', async () => {
    const t = pair.noble;
    const c = await pair.node.encrypt('rsa-2048', { plaintext: '' });
    expect((await t.decrypt('rsa-2048', { ciphertext: c.ciphertext })).plaintext).toBe('');
    const r = await t.rewrap('rsa-2048', { ciphertext: c.ciphertext });
    expect(r.ciphertext).not.toBe(c.ciphertext);
    const dk = await t.generateDataKey('rsa-2048', 'plaintext', { bits: 512 });
    expect((await pair.node.decrypt('rsa-2048', { ciphertext: dk.ciphertext })).plaintext).toBe(
      dk.plaintext,
    );
    const batch = await t.encrypt('rsa-2048', {
      batch_input: [{ plaintext: b64('a'), reference: 'x' }, { plaintext: b64('b') }],
    });
    expect(batch.batch_results.map((i) => i.reference)).toEqual(['x', '']);
    // OAEP-SHA256 fits k - 66 bytes: 190 for rsa-2048.
    await t.encrypt('rsa-2048', { plaintext: Buffer.alloc(190).toString('base64') });
    await expectError(
      t.encrypt('rsa-2048', { plaintext: Buffer.alloc(191).toString('base64') }),
      'invalid_request',
      'failed to RSA encrypt the plaintext: crypto/rsa: message too long for RSA key size',
    );
  });

  it('a decryption failure has one fixed message, whatever the cause', async () => {
    // A ciphertext whose first byte is not zero: cut by one byte it is another
    // number (with a zero first byte it is the same one; see the next test).
    let bytes: Uint8Array;
    do {
      const { ciphertext } = await pair.node.encrypt('rsa-2048', { plaintext: b64('x') });
      bytes = unb64(ciphertext.slice(9));
    } while (bytes[0] === 0);
    const tampered = bytes.slice();
    tampered[10] = (tampered[10] ?? 0) ^ 1;
    const cases = [tampered, bytes.subarray(1), new Uint8Array(256).fill(0xff), new Uint8Array(0)];
    for (const [, t] of pair.engines) {
      for (const c of cases) {
        await expectError(
          t.decrypt('rsa-2048', { ciphertext: `vault:v1:${Buffer.from(c).toString('base64')}` }),
          'invalid_request',
          'failed to RSA decrypt the ciphertext: crypto/rsa: decryption error',
        );
      }
      // Another key's ciphertext too.
      const other = await t.encrypt('noble-rsa-2048', { plaintext: b64('x') });
      await expectError(
        t.decrypt('rsa-2048', { ciphertext: other.ciphertext }),
        'invalid_request',
        'failed to RSA decrypt the ciphertext: crypto/rsa: decryption error',
      );
    }
  });

  it('a ciphertext one byte short of the modulus decrypts when the byte cut was a leading zero (as Go, so Vault)', async () => {
    // Go's rsa.DecryptOAEP (Vault) and OpenSSL read a shorter ciphertext as
    // the same number with zeros in front; 1 in 256 ciphertexts starts with one.
    let bytes: Uint8Array;
    do {
      const { ciphertext } = await pair.node.encrypt('rsa-2048', { plaintext: b64('zero') });
      bytes = unb64(ciphertext.slice(9));
    } while (bytes[0] !== 0);
    const short = `vault:v1:${Buffer.from(bytes.subarray(1)).toString('base64')}`;
    const long = `vault:v1:${Buffer.from([0, ...bytes]).toString('base64')}`;
    for (const [, t] of pair.engines) {
      expect((await t.decrypt('rsa-2048', { ciphertext: short })).plaintext).toBe(b64('zero'));
      await expectError(
        t.decrypt('rsa-2048', { ciphertext: long }),
        'invalid_request',
        'failed to RSA decrypt the ciphertext: crypto/rsa: decryption error',
      );
    }
  });

  it('associated_data, nonce and context on RSA', async () => {
    const t = pair.node;
    // Vault names the item, `[0]` for a request without a batch (path_encrypt.go, path_decrypt.go).
    await expectError(
      t.encrypt('rsa-2048', { plaintext: b64('x'), associated_data: b64('aad') }),
      'invalid_request',
      "'[0].associated_data' provided for non-AEAD cipher suite rsa-2048",
    );
    const { ciphertext } = await t.encrypt('rsa-2048', { plaintext: b64('x') });
    await expectError(
      t.decrypt('rsa-2048', { ciphertext, associated_data: b64('aad') }),
      'invalid_request',
      "'[0].associated_data' provided for non-AEAD cipher suite rsa-2048",
    );
    await expectError(
      t.encrypt('rsa-2048', { plaintext: b64('x'), nonce: Buffer.alloc(12).toString('base64') }),
      'invalid_request',
      'provided nonce not allowed for this key',
    );
    // A context is ignored on a non-derived key, as Vault.
    const c = await t.encrypt('rsa-2048', { plaintext: b64('x'), context: b64('ctx') });
    expect((await t.decrypt('rsa-2048', { ciphertext: c.ciphertext })).plaintext).toBe(b64('x'));
    const items = await t.encrypt('rsa-2048', {
      batch_input: [
        { plaintext: b64('x') },
        { plaintext: b64('y'), associated_data: b64('a') },
        { plaintext: b64('z') },
        { plaintext: b64('w'), associated_data: b64('a') },
      ],
    });
    expect(items.batch_results.map((r) => r.error)).toEqual([
      undefined,
      "'[1].associated_data' provided for non-AEAD cipher suite rsa-2048",
      undefined,
      "'[3].associated_data' provided for non-AEAD cipher suite rsa-2048",
    ]);
    const opened = await t.decrypt('rsa-2048', {
      batch_input: [{ ciphertext, associated_data: b64('a') }, { ciphertext }],
    });
    expect(opened.batch_results.map((r) => r.error)).toEqual([
      "'[0].associated_data' provided for non-AEAD cipher suite rsa-2048",
      undefined,
    ]);
  });

  it('signing-only types refuse encryption; symmetric types refuse signing', async () => {
    for (const type of ['ed25519', 'ecdsa-p256', 'ecdsa-p521']) {
      await expectError(
        pair.node.encrypt(type, { plaintext: b64('x') }),
        'invalid_request',
        `message encryption not supported for key type ${type}`,
      );
      await expectError(
        pair.node.decrypt(type, { ciphertext: 'vault:v1:AAAA' }),
        'invalid_request',
        `message decryption not supported for key type ${type}`,
      );
      await expectError(
        pair.node.generateDataKey(type, 'wrapped'),
        'invalid_request',
        `message encryption not supported for key type ${type}`,
      );
    }
    await pair.node.createKey('sym');
    await expectError(
      pair.node.sign('sym', { input: b64('x') }),
      'invalid_request',
      'key type aes256-gcm96 does not support signing',
    );
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
