/**
 * Cross-backend checks (noble-ciphers `crosstest`): for every AEAD algorithm
 * and hash, every pair of backends produces byte-identical output at boundary
 * lengths, opens the other's output, rejects tampering with `AeadAuthError`,
 * and rejects bad sizes and types with the same native error. One fast-check
 * round-trip property per AEAD algorithm runs across all backend pairs.
 */
import { bytesToHex } from '@noble/hashes/utils.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AeadAlgorithm, CryptoBackend, HashName } from '../../src/crypto/backend.js';
import { AeadAuthError } from '../../src/crypto/backend.js';
import { BACKENDS } from '../helpers/backends.js';

const LENGTHS = [0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 1024, 65537] as const;
/** Every HashName with its digest size. */
const HASHES = Object.entries({
  ...{ sha1: 20, sha224: 28, sha256: 32, sha384: 48, sha512: 64 },
  ...{ 'sha3-224': 28, 'sha3-256': 32, 'sha3-384': 48, 'sha3-512': 64 },
} satisfies Record<HashName, number>) as [HashName, number][];

type Variant = { label: string; alg: AeadAlgorithm; keyLen: number; nonceLen: number };
const variant = (label: string, alg: AeadAlgorithm, keyLen: number, nonceLen: number) =>
  ({ label, alg, keyLen, nonceLen }) satisfies Variant;
/** AEAD variants (AES-GCM once per key size) and the sizes each must reject. */
const AEADS = [
  { ...variant('aes-128-gcm', 'aes-gcm', 16, 12), badKeys: [0, 1, 15, 17, 24, 31, 33, 64] },
  { ...variant('aes-256-gcm', 'aes-gcm', 32, 12), badKeys: [24] },
  { ...variant('chacha20-poly1305', 'chacha20-poly1305', 32, 12), badKeys: [0, 16, 31, 33, 64] },
  { ...variant('xchacha20-poly1305', 'xchacha20-poly1305', 32, 24), badKeys: [0, 16, 33, 64] },
];
const BAD_NONCES: Record<number, number[]> = {
  12: [0, 8, 11, 13, 16, 24],
  24: [0, 12, 16, 23, 25, 32],
};

/** Deterministic filler bytes (distinct per seed). */
function bytes(n: number, seed = 1): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = (i * 31 + seed * 17 + (i >> 8)) & 0xff;
  return out;
}

/** Ordered pairs of distinct backends (both directions). */
const PAIRS: [string, CryptoBackend, string, CryptoBackend][] = BACKENDS.flatMap(([an, a]) =>
  BACKENDS.filter(([bn]) => bn !== an).map(
    ([bn, b]) => [an, a, bn, b] as [string, CryptoBackend, string, CryptoBackend],
  ),
);

/** Asserts `fn` throws a `ctor`; returns the error. */
function expectThrows(fn: () => unknown, ctor: new () => Error, where: string): Error {
  let err: unknown;
  try {
    fn();
  } catch (e) {
    err = e;
  }
  expect(err, `${where}: expected ${ctor.name}`).toBeInstanceOf(ctor);
  return err as Error;
}

/**
 * Byte equality. vitest's `toEqual` walks typed arrays element by element
 * (~0.5 s for 64 KiB), so compare fast and show a hex diff only on mismatch.
 */
function expectSame(actual: Uint8Array, expected: Uint8Array, where: string): void {
  expectPlain(actual, where);
  if (actual.length === expected.length && actual.every((x, i) => x === expected[i])) return;
  expect(bytesToHex(actual), where).toBe(bytesToHex(expected));
}

/** Outputs must be plain Uint8Arrays (a Buffer would not `toEqual` noble's). */
function expectPlain(u: Uint8Array, where: string): void {
  expect(Object.getPrototypeOf(u), where).toBe(Uint8Array.prototype);
}

it('runs with at least two backends', () => {
  expect(BACKENDS.length).toBeGreaterThanOrEqual(2);
  expect(PAIRS.length).toBeGreaterThan(0);
});

describe.each(AEADS)('AEAD $label', (v) => {
  const key = bytes(v.keyLen, 3);
  const nonce = bytes(v.nonceLen, 5);
  const aad = bytes(13, 7);

  it.each(LENGTHS)('seal/open across backends, %i-byte plaintext', (len) => {
    const pt = bytes(len, 11);
    for (const [an, a, bn, b] of PAIRS) {
      const where = `${v.label} len ${len} ${an}→${bn}`;
      const sa = a.aeadSeal(v.alg, key, nonce, pt, aad);
      expectPlain(sa, where);
      expect(sa.length).toBe(len + 16);
      expectSame(b.aeadSeal(v.alg, key, nonce, pt, aad), sa, where);
      expectSame(b.aeadOpen(v.alg, key, nonce, sa, aad), pt, where);
      // AAD omitted ≡ empty AAD, on both sides.
      const noAad = a.aeadSeal(v.alg, key, nonce, pt);
      expectSame(b.aeadSeal(v.alg, key, nonce, pt, new Uint8Array(0)), noAad, where);
      expectSame(b.aeadOpen(v.alg, key, nonce, noAad), pt, where);
      // AAD of boundary length too.
      const aadL = bytes(len, 13);
      const withAad = a.aeadSeal(v.alg, key, nonce, pt, aadL);
      expectSame(b.aeadSeal(v.alg, key, nonce, pt, aadL), withAad, where);
      expectSame(b.aeadOpen(v.alg, key, nonce, withAad, aadL), pt, where);
    }
  });

  it.each([1, 17, 64, 1024])('tampering → AeadAuthError on every backend (%i bytes)', (len) => {
    const sealed = BACKENDS[0]?.[1].aeadSeal(v.alg, key, nonce, bytes(len, 19), aad);
    if (!sealed) throw new Error('no backend');
    const flip = (pos: number) => {
      const bad = sealed.slice();
      bad[pos] = (bad[pos] ?? 0) ^ 0x01;
      return bad;
    };
    const other = bytes(v.nonceLen, 6);
    const cases: [string, Uint8Array, Uint8Array, Uint8Array | undefined][] = [
      ['first byte', flip(0), nonce, aad],
      ['middle byte', flip(len >> 1), nonce, aad],
      ['last byte', flip(len - 1), nonce, aad],
      ['tag first byte', flip(len), nonce, aad],
      ['tag last byte', flip(len + 15), nonce, aad],
      ['one byte cut', sealed.subarray(0, sealed.length - 1), nonce, aad],
      ['other nonce', sealed, other, aad],
      ['other aad', sealed, nonce, bytes(13, 8)],
      ['aad dropped', sealed, nonce, undefined],
    ];
    for (const [name, backend] of BACKENDS) {
      for (const [label, input, iv, ad] of cases) {
        const open = () => backend.aeadOpen(v.alg, key, iv, input, ad);
        expectThrows(open, AeadAuthError, `${name} ${label}`);
      }
    }
  });

  it('empty plaintext: the tag alone is authenticated', () => {
    for (const [name, backend] of BACKENDS) {
      const sealed = backend.aeadSeal(v.alg, key, nonce, new Uint8Array(0), aad);
      expect(backend.aeadOpen(v.alg, key, nonce, sealed, aad), name).toEqual(new Uint8Array(0));
      sealed[15] = (sealed[15] ?? 0) ^ 0x80;
      expectThrows(() => backend.aeadOpen(v.alg, key, nonce, sealed, aad), AeadAuthError, name);
    }
  });

  it('wrong key/nonce sizes and short input → RangeError on every backend, no key bytes', () => {
    const pt = bytes(5);
    const sealed = new Uint8Array(32);
    for (const [name, b] of BACKENDS) {
      for (const n of v.badKeys) {
        const k = bytes(n, 99);
        const calls = [
          () => b.aeadSeal(v.alg, k, nonce, pt),
          () => b.aeadOpen(v.alg, k, nonce, sealed),
        ];
        for (const fn of calls) {
          const e = expectThrows(fn, RangeError, `${name} key ${n}`);
          expect(e.message).toMatch(/key/);
          if (n > 0) expect(e.message).not.toContain(bytesToHex(k).slice(0, 8));
        }
      }
      for (const n of BAD_NONCES[v.nonceLen] ?? []) {
        const iv = bytes(n, 98);
        expectThrows(() => b.aeadSeal(v.alg, key, iv, pt), RangeError, `${name} nonce ${n}`);
        expectThrows(() => b.aeadOpen(v.alg, key, iv, sealed), RangeError, `${name} nonce ${n}`);
      }
      for (const n of [0, 1, 15]) {
        const short = new Uint8Array(n);
        expectThrows(() => b.aeadOpen(v.alg, key, nonce, short), RangeError, `${name} sealed ${n}`);
      }
    }
  });

  it('non-Uint8Array inputs → TypeError on every backend; Buffer accepted', () => {
    const notBytes = ['abc', [1, 2], new Uint16Array(v.keyLen / 2), null, 42] as unknown[];
    const one = bytes(1);
    for (const [name, b] of BACKENDS) {
      for (const x of notBytes as Uint8Array[]) {
        for (const [label, fn] of [
          ['key', () => b.aeadSeal(v.alg, x, nonce, one)],
          ['nonce', () => b.aeadSeal(v.alg, key, x, one)],
          ['plaintext', () => b.aeadSeal(v.alg, key, nonce, x)],
          ['aad', () => b.aeadSeal(v.alg, key, nonce, one, x)],
          ['sealed', () => b.aeadOpen(v.alg, key, nonce, x)],
        ] as const) {
          expectThrows(fn, TypeError, `${name} ${label}`);
        }
      }
      // A Buffer is a Uint8Array: accepted, and the output is still plain.
      expectPlain(b.aeadSeal(v.alg, Buffer.from(key), Buffer.from(nonce), Buffer.from(one)), name);
    }
  });

  it('fast-check: random round trip across backends', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: v.keyLen, maxLength: v.keyLen }),
        fc.uint8Array({ minLength: v.nonceLen, maxLength: v.nonceLen }),
        fc.uint8Array({ maxLength: 300 }),
        fc.option(fc.uint8Array({ maxLength: 64 }), { nil: undefined }),
        (k, n, pt, ad) => {
          for (const [, a, , b] of PAIRS) {
            const sa = a.aeadSeal(v.alg, k, n, pt, ad);
            expectSame(b.aeadSeal(v.alg, k, n, pt, ad), sa, 'seal');
            expectSame(b.aeadOpen(v.alg, k, n, sa, ad), pt, 'open');
          }
        },
      ),
    );
  });
});

it('unknown algorithm or hash → RangeError on every backend', () => {
  for (const [name, b] of BACKENDS) {
    const bad = 'aes-192-gcm' as AeadAlgorithm;
    expectThrows(() => b.aeadSeal(bad, bytes(24), bytes(12), bytes(1)), RangeError, name);
    expectThrows(() => b.aeadOpen(bad, bytes(24), bytes(12), bytes(16)), RangeError, name);
    for (const h of ['md5', 'sha2-256', 'SHA256', 'constructor', ''] as unknown as HashName[]) {
      expectThrows(() => b.digest(h, bytes(1)), RangeError, `${name} ${h}`);
      expectThrows(() => b.hmac(h, bytes(1), bytes(1)), RangeError, `${name} ${h}`);
      expectThrows(() => b.hkdf(h, bytes(1), bytes(0), bytes(0), 16), RangeError, `${name} ${h}`);
    }
  }
});

describe.each(HASHES)('hash %s', (hash, size) => {
  it('digest and hmac are identical across backends at boundary lengths', () => {
    for (const len of LENGTHS) {
      const data = bytes(len, 21);
      // Keys shorter than, equal to and longer than the block size (64/128/144 bytes…).
      const key = bytes(len, 23);
      for (const [an, a, bn, b] of PAIRS) {
        const where = `${hash} len ${len} ${an}→${bn}`;
        const d = a.digest(hash, data);
        expectPlain(d, where);
        expect(d.length).toBe(size);
        expectSame(b.digest(hash, data), d, where);
        const m = a.hmac(hash, key, data);
        expectPlain(m, where);
        expect(m.length).toBe(size);
        expectSame(b.hmac(hash, key, data), m, where);
      }
    }
  });

  it('hkdf is identical across backends at boundary lengths; > 255·HashLen → RangeError', () => {
    const max = 255 * size;
    const same = (ikm: Uint8Array, salt: Uint8Array, info: Uint8Array, n: number, at: string) => {
      for (const [an, a, bn, b] of PAIRS) {
        const out = a.hkdf(hash, ikm, salt, info, n);
        expect(out.length).toBe(n);
        expectSame(b.hkdf(hash, ikm, salt, info, n), out, `${hash} ${at} ${an}→${bn}`);
      }
    };
    // One dimension at a time (the full product costs minutes in pure JS).
    // ikm, salt (empty = HashLen zeros) and info at every boundary length; info
    // 1025+ exercises node's delegation to noble past hkdfSync's 1024-byte cap.
    for (const len of [...LENGTHS, 1025]) {
      same(bytes(len, 25), new Uint8Array(0), bytes(9, 27), 42, `ikm ${len}`);
      same(bytes(16, 25), bytes(len, 31), bytes(9, 27), 42, `salt ${len}`);
      same(bytes(16, 25), new Uint8Array(0), bytes(len, 27), 42, `info ${len}`);
      if (len <= max) same(bytes(16, 25), bytes(size, 29), bytes(9, 27), len, `length ${len}`);
    }
    same(bytes(16, 25), new Uint8Array(0), bytes(1500, 27), max, 'max length, long info');
    // An empty salt is HashLen zero bytes (RFC 5869 §2.2) on every backend.
    const [ikm, info, empty] = [bytes(20), bytes(10), new Uint8Array(0)];
    for (const [name, b] of BACKENDS) {
      const zeros = new Uint8Array(size);
      expectSame(b.hkdf(hash, ikm, empty, info, 64), b.hkdf(hash, ikm, zeros, info, 64), name);
      expect(b.hkdf(hash, ikm, empty, info, max).length).toBe(max);
      for (const n of [max + 1, 65537, -1, 1.5, Number.NaN]) {
        expectThrows(() => b.hkdf(hash, ikm, empty, info, n), RangeError, `${name} ${n}`);
      }
    }
  });
});

describe('randomBytes and timingSafeEqual', () => {
  it.each(BACKENDS)('%s: randomBytes sizes, freshness and bad counts', (_name, b) => {
    for (const n of [0, 1, 32, 65536, 65537, 200_000]) {
      const r = b.randomBytes(n);
      expectPlain(r, `${n}`);
      expect(r.length).toBe(n);
    }
    expect(b.randomBytes(32)).not.toEqual(b.randomBytes(32));
    const big = b.randomBytes(200_000);
    expect(big.subarray(100_000, 100_032)).not.toEqual(new Uint8Array(32)); // past the 64 KiB chunk
    for (const n of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expectThrows(() => b.randomBytes(n), RangeError, `${n}`);
    }
    expectThrows(() => b.randomBytes('8' as unknown as number), TypeError, 'string');
  });

  it('timingSafeEqual agrees across backends', () => {
    const cases: [Uint8Array, Uint8Array, boolean][] = [
      [new Uint8Array(0), new Uint8Array(0), true],
      [bytes(32), bytes(32), true],
      [bytes(32), bytes(32, 2), false],
      [bytes(32), bytes(31), false],
      [bytes(1), new Uint8Array(0), false],
      [bytes(65), Buffer.from(bytes(65)), true],
    ];
    for (const [name, b] of BACKENDS) {
      for (const [x, y, want] of cases) expect(b.timingSafeEqual(x, y), name).toBe(want);
      const last = bytes(64);
      const flipped = last.slice();
      flipped[63] = (flipped[63] ?? 0) ^ 1;
      expect(b.timingSafeEqual(last, flipped), name).toBe(false);
      const notBytes = 'a' as unknown as Uint8Array;
      expectThrows(() => b.timingSafeEqual(notBytes, bytes(1)), TypeError, name);
    }
  });
});
