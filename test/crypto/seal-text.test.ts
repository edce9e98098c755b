/**
 * The node backend's `aeadSealText` (src/crypto/node/aead.ts): `nonce ‖
 * ciphertext ‖ tag` as text, which transit's encrypt, rewrap and datakey use
 * for the ciphertext's payload when the backend has it
 * (src/transit/seal-open.ts). It must be the encoding of `nonce ‖ aeadSeal`
 * exactly, so it is checked against noble's seal (the independent side) and
 * opened by noble; its refusals are `aeadSeal`'s. Then the callers: with and
 * without it, a convergent key gives the same ciphertext byte for byte, and
 * every other kind of key gives ciphertexts each backend opens.
 */
import { describe, expect, it } from 'vitest';
import type { CryptoBackend } from '../../src/crypto/backend.js';
import { nobleBackend } from '../../src/crypto/noble/index.js';
import { nodeBackend } from '../../src/crypto/node/index.js';
import { aeadSealText } from '../../src/crypto/text.js';
import { concatBytes, encodeBase64, encodeHex, tryDecodeBase64, utf8 } from '../../src/encoding.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { Transit } from '../../src/transit/transit.js';
import { AEAD_AADS, AEAD_CASES, AEAD_KEY, AEAD_LENGTHS, AEAD_NONCE } from './aead-cases.js';

const sealText = nodeBackend.aeadSealText as NonNullable<CryptoBackend['aeadSealText']>;
const key = AEAD_KEY;
const nonce = AEAD_NONCE;

describe('aeadSealText (node backend, and the fallback of src/crypto/text.ts)', () => {
  it('is on the node backend only (noble gains nothing from it)', () => {
    expect(typeof nodeBackend.aeadSealText).toBe('function');
    expect(nobleBackend.aeadSealText).toBeUndefined();
  });

  it("is nonce ‖ noble's seal, encoded: every algorithm, lengths, AAD, views; noble opens it", () => {
    for (const [alg, k, n] of AEAD_CASES) {
      for (const length of AEAD_LENGTHS) {
        for (const aad of AEAD_AADS) {
          // A view that does not start at its buffer's start, as a decoded input is.
          const plain = new Uint8Array(length + 7).subarray(7);
          for (let i = 0; i < length; i++) plain[i] = (i * 31) & 255;
          const want = concatBytes(n, nobleBackend.aeadSeal(alg, k, n, plain, aad));
          const label = `${alg} ${k.length} ${length} ${aad?.length}`;
          expect(sealText(alg, k, n, plain, aad, 'base64'), label).toBe(encodeBase64(want));
          expect(sealText(alg, k, n, plain, aad, 'hex'), label).toBe(encodeHex(want));
          // The neutral helper's fallback (src/crypto/text.ts), on a backend without it.
          expect(aeadSealText(nobleBackend, alg, k, n, plain, aad, 'base64')).toBe(
            encodeBase64(want),
          );
          expect(aeadSealText(nobleBackend, alg, k, n, plain, aad, 'hex')).toBe(encodeHex(want));
          const payload = tryDecodeBase64(sealText(alg, k, n, plain, aad, 'base64')) as Uint8Array;
          const opened = nobleBackend.aeadOpen(alg, k, n, payload.subarray(n.length), aad);
          expect(opened, label).toEqual(plain);
        }
      }
    }
  });

  it('refuses what aeadSeal refuses, with its error types, and another encoding', () => {
    const plain = utf8('secret');
    const cases: [Uint8Array, Uint8Array, string][] = [
      [key.subarray(0, 20), nonce, 'a 20-byte key'],
      [key, nonce.subarray(0, 8), 'an 8-byte nonce'],
    ];
    for (const [k, n, what] of cases) {
      expect(() => nodeBackend.aeadSeal('aes-gcm', k, n, plain), what).toThrow(RangeError);
      expect(() => sealText('aes-gcm', k, n, plain, undefined, 'base64'), what).toThrow(RangeError);
    }
    expect(() => sealText('xchacha20-poly1305', key, nonce, plain, undefined, 'hex')).toThrow(
      RangeError,
    );
    expect(() => sealText('aes-ocb' as never, key, nonce, plain, undefined, 'hex')).toThrow(
      RangeError,
    );
    expect(() => sealText('aes-gcm', key, nonce, 'secret' as never, undefined, 'hex')).toThrow(
      TypeError,
    );
    for (const encoding of ['latin1', 'utf8', 'base64url', ''] as never[]) {
      expect(() => sealText('aes-gcm', key, nonce, plain, undefined, encoding)).toThrow(RangeError);
    }
  });
});

describe('transit encrypt, rewrap and datakey with and without it', () => {
  /** The node backend without the text form: the callers' fallback path. */
  const bytesOnly: CryptoBackend = { ...nodeBackend, aeadSealText: undefined };

  it('a convergent key gives the same ciphertext either way; every kind opens on every backend', async () => {
    const storage = new MemoryStorage();
    let calls = 0;
    const counting: CryptoBackend = {
      ...nodeBackend,
      aeadSealText: (...args) => {
        calls++;
        return sealText(...args);
      },
    };
    const fast = new Transit({ storage, autoRotate: false, crypto: counting });
    const slow = new Transit({ storage, autoRotate: false, crypto: bytesOnly });
    const noble = new Transit({ storage, autoRotate: false, crypto: 'noble' });
    const context = encodeBase64(utf8('tenant-1'));
    const kinds: [string, Record<string, unknown>, Record<string, string>][] = [
      ['gcm', {}, {}],
      ['gcm128', { type: 'aes128-gcm96' }, {}],
      ['chacha', { type: 'chacha20-poly1305' }, {}],
      ['derived', { derived: true }, { context }],
      ['convergent', { derived: true, convergent_encryption: true }, { context }],
      [
        'chacha-convergent',
        { type: 'chacha20-poly1305', derived: true, convergent_encryption: true },
        { context },
      ],
    ];
    for (const [name, create, extra] of kinds) {
      await fast.createKey(name, create);
      for (const plain of [new Uint8Array(0), utf8('hello'), new Uint8Array(5000).fill(7)]) {
        const plaintext = encodeBase64(plain);
        const made = [];
        for (const t of [fast, slow]) {
          const { ciphertext } = await t.encrypt(name, { plaintext, ...extra });
          const batch = await t.encrypt(name, { batch_input: [{ plaintext, ...extra }] });
          const rewrapped = (await t.rewrap(name, { ciphertext, ...extra })).ciphertext;
          made.push(ciphertext, batch.batch_results[0]?.ciphertext as string, rewrapped);
        }
        if (name.endsWith('convergent')) expect(new Set(made).size, name).toBe(1);
        for (const ciphertext of made) {
          expect(ciphertext.startsWith('vault:v1:'), name).toBe(true);
          for (const t of [fast, slow, noble]) {
            expect((await t.decrypt(name, { ciphertext, ...extra })).plaintext, name).toBe(
              plaintext,
            );
          }
        }
      }
      const wrapped = await fast.generateDataKey(name, 'plaintext', { bits: 256, ...extra });
      const opened = await noble.decrypt(name, { ciphertext: wrapped.ciphertext, ...extra });
      expect(opened.plaintext).toBe(wrapped.plaintext);
    }
    // The fast path was taken: one call per encrypt, batch item and rewrap, and the data key.
    expect(calls).toBe(kinds.length * (3 * 3 + 1));
    await Promise.all([fast.close(), slow.close(), noble.close()]);
  });
});
