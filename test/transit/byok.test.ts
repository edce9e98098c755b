/**
 * BYOK export (`GET /transit/byok-export/:destination/:source(/:version)`):
 * engine A wraps its keys for engine B's wrapping key (imported into A
 * public-only), B imports the blobs, and what A encrypted or signed B
 * decrypts or verifies. Also the refusals: non-RSA destination, soft-deleted
 * keys, non-exportable source, missing keys, bad hash and version.
 */
import { constants, createDecipheriv, createPrivateKey, privateDecrypt } from 'node:crypto';
import { Transit } from 'transitkit';
import { beforeAll, describe, expect, it } from 'vitest';
import { encodePkcs8PrivateKey } from '../../src/crypto/pki/keys.js';
import { wycheproofRsa } from '../crypto/asymmetric-helpers.js';
import { type MobilityPair, mobilityPair } from './import-support.js';
import { b64, expectError } from './support.js';

const FOX = b64('the quick brown fox');
let a: Transit;
let b: MobilityPair;
let bt: Transit;

beforeAll(async () => {
  a = new Transit({ autoRotate: false });
  b = await mobilityPair();
  bt = (b.engines[0] as MobilityPair['engines'][number])[1];
  await a.importKey('b-wrap', { type: 'rsa-4096', public_key: b.wrap });
});

describe('byok-export → import into another engine', () => {
  it('symmetric: every version, then the copy decrypts what the source encrypted', async () => {
    await a.createKey('aes', { exportable: true });
    const v1 = (await a.encrypt('aes', { plaintext: FOX })).ciphertext;
    await a.rotateKey('aes');
    const v2 = (await a.encrypt('aes', { plaintext: FOX })).ciphertext;
    const out = await a.byokExport('b-wrap', 'aes');
    expect(out).toMatchObject({ name: 'aes', type: 'aes256-gcm96' });
    expect(Object.keys(out.keys)).toEqual(['1', '2']);
    for (const blob of Object.values(out.keys)) {
      // 512-byte wrapped AES key ‖ KWP(32-byte key) = 40 bytes.
      expect(Buffer.from(blob, 'base64')).toHaveLength(552);
    }
    await bt.importKey('aes-copy', { type: 'aes256-gcm96', ciphertext: out.keys['1'] as string });
    await bt.importKeyVersion('aes-copy', { ciphertext: out.keys['2'] as string });
    for (const [, t] of b.engines) {
      expect((await t.decrypt('aes-copy', { ciphertext: v1 })).plaintext).toBe(FOX);
      expect((await t.decrypt('aes-copy', { ciphertext: v2 })).plaintext).toBe(FOX);
    }
  });

  it('asymmetric keys, with hash and version options: the copy verifies and decrypts', async () => {
    for (const type of ['ed25519', 'ecdsa-p521', 'rsa-2048'] as const) {
      await a.createKey(type, { type, exportable: true });
      const { signature } = await a.sign(type, { input: FOX });
      const out = await a.byokExport('b-wrap', type, { version: 'latest', hash: 'SHA512' });
      expect(Object.keys(out.keys)).toEqual(['1']);
      await bt.importKey(`${type}-copy`, {
        type,
        ciphertext: out.keys['1'] as string,
        hash_function: 'SHA512',
      });
      for (const [, t] of b.engines) {
        expect((await t.verify(`${type}-copy`, { input: FOX, signature })).valid).toBe(true);
      }
      const pub = (k: Transit, n: string) => k.exportKey('public-key', n, 1);
      expect((await pub(bt, `${type}-copy`)).keys).toEqual((await pub(a, type)).keys);
    }
    const { ciphertext } = await a.encrypt('rsa-2048', { plaintext: FOX });
    expect((await bt.decrypt('rsa-2048-copy', { ciphertext })).plaintext).toBe(FOX);
  });

  it('the blob is exactly the import format: an RSA-4096 destination holder unwraps it', async () => {
    const wrapKey = createPrivateKey({
      key: Buffer.from(encodePkcs8PrivateKey({ type: 'rsa', key: wycheproofRsa(4096) })),
      format: 'der',
      type: 'pkcs8',
    });
    await a.createKey('raw', { exportable: true, type: 'chacha20-poly1305' });
    const { keys } = await a.byokExport('b-wrap', 'raw', { version: 1 });
    const blob = Buffer.from(keys['1'] as string, 'base64');
    const aes = privateDecrypt(
      { key: wrapKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
      blob.subarray(0, 512),
    );
    expect(aes).toHaveLength(32);
    const exported = (await a.exportKey('encryption-key', 'raw', 1)).keys['1'];
    const kwp = createDecipheriv('id-aes256-wrap-pad', aes, Buffer.from('A65959A6', 'hex'));
    const material = Buffer.concat([kwp.update(blob.subarray(512)), kwp.final()]);
    expect(material.toString('base64')).toBe(exported);
  });
});

describe('byok-export refusals', () => {
  it('non-RSA destination, non-exportable or soft-deleted keys, missing keys, bad options', async () => {
    await a.createKey('ec-dest', { type: 'ecdsa-p256' });
    await a.createKey('closed');
    await a.createKey('open', { exportable: true });
    await expectError(
      a.byokExport('ec-dest', 'open'),
      'invalid_request',
      'unsupported key type in use; must be a rsa key',
    );
    await expectError(a.byokExport('b-wrap', 'closed'), 'invalid_request', 'key is not exportable');
    await expectError(a.byokExport('nope', 'open'), 'not_found', /no such destination key/);
    await expectError(a.byokExport('b-wrap', 'nope'), 'not_found', /no such source key/);
    await expectError(
      a.byokExport('b-wrap', 'open', { hash: 'MD5' }),
      'invalid_request',
      'unknown hash function: MD5',
    );
    await expectError(
      a.byokExport('b-wrap', 'open', { version: 7 }),
      'invalid_request',
      'version does not exist or cannot be found',
    );
    await a.softDeleteKey('open');
    await expectError(a.byokExport('b-wrap', 'open'), 'invalid_request', /soft-deleted/);
    await a.restoreSoftDeletedKey('open');
    await a.softDeleteKey('b-wrap');
    await expectError(a.byokExport('b-wrap', 'open'), 'invalid_request', /soft-deleted/);
    await a.restoreSoftDeletedKey('b-wrap');
    expect(Object.keys((await a.byokExport('b-wrap', 'open')).keys)).toEqual(['1']);
  });
});
