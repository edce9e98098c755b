/**
 * The AEAD parameter checks (src/crypto/noble/params.ts), which both backends
 * share: each non-byte input is named in its TypeError as `<alg>: <what>`,
 * with the received type and nothing of the value; unknown algorithms and
 * wrong sizes are RangeErrors. The messages are built only when thrown, so
 * they are pinned here text for text, on both backends, seal and open.
 */
import { describe, expect, it } from 'vitest';
import type { AeadAlgorithm, CryptoBackend } from '../../src/crypto/backend.js';
import { aeadOpenText } from '../../src/crypto/text.js';
import { BACKENDS } from '../helpers/backends.js';

const thrown = (f: () => unknown): Error => {
  try {
    f();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a throw');
};

describe.each(BACKENDS)('AEAD parameter errors (%s)', (_name, b: CryptoBackend) => {
  const key = new Uint8Array(32);
  const nonce = new Uint8Array(12);
  const xnonce = new Uint8Array(24);
  const plain = new Uint8Array(5);

  it('names each non-byte input and its type', () => {
    for (const alg of ['aes-gcm', 'chacha20-poly1305', 'xchacha20-poly1305'] as AeadAlgorithm[]) {
      const n = alg === 'xchacha20-poly1305' ? xnonce : nonce;
      const sealed = b.aeadSeal(alg, key, n, plain);
      const cases: [string, () => unknown][] = [
        ['key must be a Uint8Array, got string', () => b.aeadSeal(alg, 'k' as never, n, plain)],
        ['nonce must be a Uint8Array, got Array', () => b.aeadSeal(alg, key, [1] as never, plain)],
        ['aad must be a Uint8Array, got number', () => b.aeadSeal(alg, key, n, plain, 7 as never)],
        ['plaintext must be a Uint8Array, got null', () => b.aeadSeal(alg, key, n, null as never)],
        [
          'sealed input must be a Uint8Array, got ArrayBuffer',
          () => b.aeadOpen(alg, key, n, new ArrayBuffer(20) as never),
        ],
        [
          'key must be a Uint8Array, got object',
          () => aeadOpenText(b, alg, Object.create(null), n, sealed, undefined, 'base64'),
        ],
      ];
      for (const [message, f] of cases) {
        const e = thrown(f);
        expect(e, `${alg} ${message}`).toBeInstanceOf(TypeError);
        expect(e.message).toBe(`${alg}: ${message}`);
      }
    }
  });

  it('refuses unknown algorithms and wrong sizes with RangeError', () => {
    const e = thrown(() => b.aeadSeal('aes-ocb' as AeadAlgorithm, key, nonce, plain));
    expect(e).toBeInstanceOf(RangeError);
    expect(e.message).toBe('unsupported AEAD algorithm "aes-ocb"');
    expect(thrown(() => b.aeadSeal('hasOwnProperty' as never, key, nonce, plain))).toBeInstanceOf(
      RangeError,
    );
    expect(thrown(() => b.aeadSeal('aes-gcm', key.subarray(0, 24), nonce, plain)).message).toBe(
      'aes-gcm: key must be 16 or 32 bytes, got 24',
    );
    expect(thrown(() => b.aeadOpen('aes-gcm', key, nonce, new Uint8Array(15))).message).toBe(
      'aes-gcm: sealed input must be at least 16 bytes (the tag), got 15',
    );
  });

  it('checks key lengths per algorithm, one or two allowed, in any order of calls', () => {
    // 16 and 32 for AES-GCM, 32 alone for the ChaCha20 pair: a check made
    // for one algorithm never lets the other's length through.
    const sizes: [AeadAlgorithm, number, boolean][] = [
      ['aes-gcm', 16, true],
      ['chacha20-poly1305', 16, false],
      ['aes-gcm', 32, true],
      ['chacha20-poly1305', 32, true],
      ['xchacha20-poly1305', 16, false],
      ['aes-gcm', 24, false],
      ['chacha20-poly1305', 0, false],
    ];
    for (const [alg, size, ok] of sizes) {
      const n = alg === 'xchacha20-poly1305' ? xnonce : nonce;
      const k = new Uint8Array(size);
      if (ok) expect(b.aeadOpen(alg, k, n, b.aeadSeal(alg, k, n, plain))).toEqual(plain);
      else {
        const allowed = alg === 'aes-gcm' ? '16 or 32' : '32';
        expect(thrown(() => b.aeadSeal(alg, k, n, plain)).message).toBe(
          `${alg}: key must be ${allowed} bytes, got ${size}`,
        );
      }
    }
  });
});

describe.each(BACKENDS)('hash names (%s)', (_name, b: CryptoBackend) => {
  it('accepts each known hash and refuses the rest, in any order of calls', () => {
    // The backends remember the last hash name they accepted: a refusal
    // right after an acceptance, and an acceptance after it, still hold.
    const key = new Uint8Array(16);
    const data = new Uint8Array(3);
    const seq = ['sha256', 'sha256', 'sha512', 'sha-256', 'sha512', 'SHA512', 'sha1', 'toString'];
    const sizes = new Map([
      ['sha256', 32],
      ['sha512', 64],
      ['sha1', 20],
    ]);
    for (const h of seq) {
      const size = sizes.get(h);
      if (size !== undefined) {
        expect(b.hmac(h as never, key, data).length).toBe(size);
        expect(b.digest(h as never, data).length).toBe(size);
      } else {
        const e = thrown(() => b.hmac(h as never, key, data));
        expect(e).toBeInstanceOf(RangeError);
        expect(e.message).toBe(`unsupported hash ${JSON.stringify(h)}`);
      }
    }
    expect(thrown(() => b.hmac(5 as never, key, data)).message).toBe('unsupported hash "5"');
  });
});
