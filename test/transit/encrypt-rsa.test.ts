/**
 * RSA-OAEP encryption with asymmetric keys in the engine: encrypt, decrypt,
 * rewrap, datakey and batches on both backends (checked against node:crypto
 * in both directions), the size limit, one fixed decryption-failure text, the
 * leading-zero rule (as Go), associated_data, nonce and context, and the
 * refusals between signing-only, encryption and symmetric types.
 */
import { constants, createPrivateKey, privateDecrypt, publicEncrypt } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  b64,
  createSigningKeys,
  enginePair,
  type Pair,
  publicKeyObject,
  RSA_TYPES,
} from './asym-support.js';
import { expectError, unb64 } from './support.js';

let pair: Pair;
beforeAll(async () => {
  pair = enginePair();
  await createSigningKeys(pair);
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
