/**
 * BYOK import round trips (`POST keys/:name/import`): material made with
 * node:crypto and wrapped with node:crypto for the engine's wrapping key is
 * imported on both backends, used in transitkit, and checked with node:crypto
 * against our own copy (decrypt, verify). Also: every hash_function, Vault's
 * NSS-Ed25519 and RSA-PSS-OID PKCS#8 fixtures, and public-key-only imports.
 */
import {
  constants,
  createCipheriv,
  createDecipheriv,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign as nodeSign,
  verify as nodeVerify,
  privateDecrypt,
  randomBytes,
} from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES_DIR } from '../helpers/vectors.js';
import { type MobilityPair, mobilityPair, wrapForImport } from './import-support.js';
import { b64, expectError, splitVersioned } from './support.js';

const FOX = b64('the quick brown fox');
const foxBytes = Buffer.from('the quick brown fox');
let pair: MobilityPair;
let n = 0;
const fresh = (what: string) => `${what}-${++n}`;
type Engine = MobilityPair['engines'][number];

beforeAll(async () => {
  pair = await mobilityPair();
});

const pkcs8 = (k: { privateKey: import('node:crypto').KeyObject }) =>
  k.privateKey.export({ format: 'der', type: 'pkcs8' });
const spkiPem = (k: { publicKey: import('node:crypto').KeyObject }) =>
  k.publicKey.export({ format: 'pem', type: 'spki' }).toString();

describe('symmetric keys: transitkit encrypts, node:crypto decrypts with our copy, and back', () => {
  const cases = [
    ['aes128-gcm96', 16, 'aes-128-gcm'],
    ['aes256-gcm96', 32, 'aes-256-gcm'],
    ['chacha20-poly1305', 32, 'chacha20-poly1305'],
  ] as const;
  for (const [type, size, cipher] of cases) {
    it(type, async () => {
      for (const [backend, t] of pair.engines) {
        const key = randomBytes(size);
        const name = fresh(`${type}-${backend}`);
        await t.importKey(name, { type, ciphertext: wrapForImport(pair.wrap, key) });
        const info = await t.readKey(name);
        expect(info).toMatchObject({ type, imported: true, imported_key: true, latest_version: 1 });
        const { ciphertext } = await t.encrypt(name, { plaintext: FOX });
        const raw = splitVersioned(ciphertext).payload;
        // node's typings overload by cipher family; `cipher` is one of the three.
        const d = createDecipheriv(cipher as 'aes-256-gcm', key, raw.subarray(0, 12), {
          authTagLength: 16,
        });
        d.setAuthTag(raw.subarray(raw.length - 16));
        const out = Buffer.concat([d.update(raw.subarray(12, raw.length - 16)), d.final()]);
        expect(out.toString()).toBe('the quick brown fox');
        // node:crypto encrypts in Vault's layout; transitkit decrypts.
        const nonce = randomBytes(12);
        const c = createCipheriv(cipher as 'aes-256-gcm', key, nonce, { authTagLength: 16 });
        const body = Buffer.concat([c.update(foxBytes), c.final()]);
        const payload = Buffer.concat([nonce, body, c.getAuthTag()]).toString('base64');
        const back = await t.decrypt(name, { ciphertext: `vault:v1:${payload}` });
        expect(back.plaintext).toBe(FOX);
      }
    });
  }

  it('xchacha20-poly1305 (no node:crypto cipher): the other backend decrypts', async () => {
    const [[, node], [, noble]] = [pair.engines[0], pair.engines[1]] as [Engine, Engine];
    const name = fresh('xchacha');
    const ciphertext = wrapForImport(pair.wrap, randomBytes(32));
    await node.importKey(name, { type: 'xchacha20-poly1305', ciphertext });
    const ct = (await node.encrypt(name, { plaintext: FOX })).ciphertext;
    expect((await noble.decrypt(name, { ciphertext: ct })).plaintext).toBe(FOX);
  });

  it('binary ciphertext (Uint8Array) and every hash_function, case-insensitive', async () => {
    const [, t] = pair.engines[0] as Engine;
    for (const h of ['SHA1', 'sha224', 'SHA256', 'Sha384', 'SHA512']) {
      const key = randomBytes(32);
      const name = fresh(`hash-${h}`);
      const blob = wrapForImport(pair.wrap, key, h.toLowerCase());
      await t.importKey(name, {
        type: 'aes256-gcm96',
        ciphertext: new Uint8Array(Buffer.from(blob, 'base64')),
        hash_function: h,
      });
      const { ciphertext } = await t.encrypt(name, { plaintext: FOX });
      const raw = splitVersioned(ciphertext).payload;
      const d = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
      d.setAuthTag(raw.subarray(raw.length - 16));
      expect(Buffer.concat([d.update(raw.subarray(12, raw.length - 16)), d.final()])).toEqual(
        foxBytes,
      );
    }
  });
});

describe('asymmetric keys: transitkit signs, node:crypto verifies with our copy', () => {
  const ec = [
    ['ecdsa-p256', 'P-256'],
    ['ecdsa-p384', 'P-384'],
    ['ecdsa-p521', 'P-521'],
  ] as const;
  for (const [type, curve] of ec) {
    it(type, async () => {
      for (const [backend, t] of pair.engines) {
        const k = generateKeyPairSync('ec', { namedCurve: curve });
        const name = fresh(`${type}-${backend}`);
        await t.importKey(name, { type, ciphertext: wrapForImport(pair.wrap, pkcs8(k)) });
        const info = await t.readKey(name);
        expect((info.keys as Record<string, { public_key: string }>)['1']?.public_key).toBe(
          spkiPem(k),
        );
        for (const marshaling_algorithm of ['asn1', 'jws'] as const) {
          const { signature } = await t.sign(name, { input: FOX, marshaling_algorithm });
          const sig = Buffer.from(signature.split(':')[2] as string, 'base64url');
          const enc = marshaling_algorithm === 'jws' ? 'ieee-p1363' : 'der';
          expect(nodeVerify('sha256', foxBytes, { key: k.publicKey, dsaEncoding: enc }, sig)).toBe(
            true,
          );
        }
        const theirs = nodeSign('sha256', foxBytes, k.privateKey).toString('base64');
        const r = await t.verify(name, { input: FOX, signature: `vault:v1:${theirs}` });
        expect(r.valid).toBe(true);
      }
    });
  }

  it('ed25519', async () => {
    for (const [backend, t] of pair.engines) {
      const k = generateKeyPairSync('ed25519');
      const name = fresh(`ed25519-${backend}`);
      await t.importKey(name, { type: 'ed25519', ciphertext: wrapForImport(pair.wrap, pkcs8(k)) });
      const raw = k.publicKey.export({ format: 'der', type: 'spki' }).subarray(12);
      const info = await t.readKey(name);
      expect((info.keys as Record<string, { public_key: string }>)['1']?.public_key).toBe(
        raw.toString('base64'),
      );
      const { signature } = await t.sign(name, { input: FOX });
      const sig = Buffer.from(signature.split(':')[2] as string, 'base64');
      expect(nodeVerify(null, foxBytes, k.publicKey, sig)).toBe(true);
    }
  });

  it('rsa-2048: PSS and PKCS#1 v1.5 signatures verify; OAEP ciphertexts decrypt with our copy', async () => {
    const k = generateKeyPairSync('rsa', { modulusLength: 2048 });
    for (const [backend, t] of pair.engines) {
      const name = fresh(`rsa-${backend}`);
      await t.importKey(name, { type: 'rsa-2048', ciphertext: wrapForImport(pair.wrap, pkcs8(k)) });
      const pss = await t.sign(name, { input: FOX });
      const pssSig = Buffer.from(pss.signature.split(':')[2] as string, 'base64');
      const opts = { key: k.publicKey, padding: constants.RSA_PKCS1_PSS_PADDING };
      expect(nodeVerify('sha256', foxBytes, opts, pssSig)).toBe(true);
      const v15 = await t.sign(name, { input: FOX, signature_algorithm: 'pkcs1v15' });
      const v15Sig = Buffer.from(v15.signature.split(':')[2] as string, 'base64');
      expect(nodeVerify('sha256', foxBytes, k.publicKey, v15Sig)).toBe(true);
      const { ciphertext } = await t.encrypt(name, { plaintext: FOX });
      const plain = privateDecrypt(
        { key: k.privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
        splitVersioned(ciphertext).payload,
      );
      expect(plain).toEqual(foxBytes);
    }
  });
});

describe("Vault's PKCS#8 edge formats (fixtures/import-keys.json)", () => {
  const fx = JSON.parse(readFileSync(path.join(FIXTURES_DIR, 'import-keys.json'), 'utf8')) as {
    keys: Array<Record<string, string>>;
  };
  for (const key of fx.keys) {
    it(`${key.name} imports as ${key.import_as_type}`, async () => {
      for (const [backend, t] of pair.engines) {
        const name = fresh(`fx-${backend}`);
        const der = Buffer.from(key.pkcs8_der_b64 as string, 'base64');
        await t.importKey(name, {
          type: key.import_as_type as string,
          ciphertext: wrapForImport(pair.wrap, der),
        });
        const pub = ((await t.readKey(name)).keys as Record<string, { public_key: string }>)['1']
          ?.public_key;
        const { signature } = await t.sign(name, { input: FOX });
        const sig = Buffer.from(signature.split(':')[2] as string, 'base64');
        if (key.import_as_type === 'ed25519') {
          expect(pub).toBe(key.public_key_b64);
          const spki = Buffer.concat([
            Buffer.from('302a300506032b6570032100', 'hex'),
            Buffer.from(pub as string, 'base64'),
          ]);
          const pk = createPublicKey({ key: spki, format: 'der', type: 'spki' });
          expect(nodeVerify(null, foxBytes, pk, sig)).toBe(true);
        } else {
          expect(pub).toBe(key.public_key_pem);
          const opts = {
            key: createPublicKey(pub as string),
            padding: constants.RSA_PKCS1_PSS_PADDING,
          };
          expect(nodeVerify('sha256', foxBytes, opts, sig)).toBe(true);
        }
      }
    });
  }
});

describe('public-key-only imports', () => {
  it('ecdsa: verifies; signing is refused; import_version with the private key enables it', async () => {
    const [, t] = pair.engines[0] as Engine;
    const k = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const name = fresh('ec-pub');
    await t.importKey(name, { type: 'ecdsa-p256', public_key: spkiPem(k) });
    const theirs = nodeSign('sha256', foxBytes, k.privateKey).toString('base64');
    expect((await t.verify(name, { input: FOX, signature: `vault:v1:${theirs}` })).valid).toBe(
      true,
    );
    await expectError(t.sign(name, { input: FOX }), 'invalid_request', /private part/);
    await t.importKeyVersion(name, { ciphertext: wrapForImport(pair.wrap, pkcs8(k)), version: 1 });
    const { signature } = await t.sign(name, { input: FOX });
    expect(signature).toMatch(/^vault:v1:/);
    expect((await t.readKey(name)).latest_version).toBe(1);
  });

  it('rsa: encrypts for the holder of the private key; decrypting is refused', async () => {
    const k = generateKeyPairSync('rsa', { modulusLength: 2048 });
    for (const [backend, t] of pair.engines) {
      const name = fresh(`rsa-pub-${backend}`);
      await t.importKey(name, { type: 'rsa-2048', public_key: spkiPem(k) });
      const { ciphertext } = await t.encrypt(name, { plaintext: FOX });
      const plain = privateDecrypt(
        { key: k.privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
        splitVersioned(ciphertext).payload,
      );
      expect(plain).toEqual(foxBytes);
      await expectError(t.decrypt(name, { ciphertext }), 'invalid_request', /no private key/);
    }
  });

  it('ed25519: verifies; a derived ed25519 key cannot be public-only', async () => {
    const [, t] = pair.engines[1] as Engine;
    const k = generateKeyPairSync('ed25519');
    const name = fresh('ed-pub');
    await t.importKey(name, { type: 'ed25519', public_key: spkiPem(k) });
    const sig = nodeSign(null, foxBytes, k.privateKey).toString('base64');
    expect((await t.verify(name, { input: FOX, signature: `vault:v1:${sig}` })).valid).toBe(true);
    await expectError(
      t.importKey(fresh('ed-derived'), {
        type: 'ed25519',
        public_key: spkiPem(k),
        derived: true,
        context: b64('ctx'),
      }),
      'invalid_request',
      /derived Ed25519/,
    );
  });

  it('the private key of a PEM-imported key is PKCS#8 in byok and equal to ours', async () => {
    const [, t] = pair.engines[0] as Engine;
    const k = generateKeyPairSync('ec', { namedCurve: 'P-384' });
    const name = fresh('ec-export');
    await t.importKey(name, {
      type: 'ecdsa-p384',
      ciphertext: wrapForImport(pair.wrap, pkcs8(k)),
      exportable: true,
    });
    const { keys } = await t.exportKey('signing-key', name, 1, { format: 'der' });
    const ours = createPrivateKey({
      key: Buffer.from(keys['1'] as string, 'base64'),
      format: 'der',
      type: 'pkcs8',
    });
    expect(ours.export({ format: 'jwk' })).toEqual(k.privateKey.export({ format: 'jwk' }));
  });
});
