/**
 * `aeadSealInto` (the backends' optional seal-into-a-buffer, used by the
 * stream encoder): on both backends, for every AEAD and the lengths around a
 * chunk, it writes exactly `aeadSeal`'s bytes at the offset and nothing else,
 * its output opens on the other backend, and a buffer without room is a
 * RangeError that writes nothing. And node's `aeadSealParts` (the stream
 * encoder's no-copy path for Node streams): the same bytes as two pieces.
 */
import { describe, expect, it } from 'vitest';
import type { AeadAlgorithm } from '../../src/crypto/backend.js';
import { nodeBackend } from '../../src/crypto/node/index.js';
import { BACKENDS } from '../helpers/backends.js';
import { joined, pattern } from './support.js';

const ALGS: ReadonlyArray<[AeadAlgorithm, number, number]> = [
  ['aes-gcm', 32, 12],
  ['aes-gcm', 16, 12],
  ['chacha20-poly1305', 32, 12],
  ['xchacha20-poly1305', 32, 24],
];

for (const [name, backend] of BACKENDS) {
  describe(`aeadSealInto on ${name}`, () => {
    it('writes aeadSeal’s bytes at the offset, and only there', () => {
      const seal = backend.aeadSealInto;
      if (!seal) throw new Error(`${name} has no aeadSealInto`);
      for (const [alg, keyLen, nonceLen] of ALGS) {
        const key = pattern(keyLen, 3);
        const nonce = pattern(nonceLen, 4);
        for (const n of [0, 1, 16_383, 16_384]) {
          const plain = pattern(n, n + 9);
          const out = new Uint8Array(n + 16 + 10).fill(0xaa);
          expect(seal(alg, key, nonce, plain, out, 5)).toBe(n + 16);
          const want = backend.aeadSeal(alg, key, nonce, plain);
          expect(out.subarray(5, 5 + n + 16)).toEqual(want);
          expect(
            [...out.subarray(0, 5), ...out.subarray(5 + n + 16)].every((b) => b === 0xaa),
          ).toBe(true);
          for (const [, other] of BACKENDS) {
            expect(other.aeadOpen(alg, key, nonce, out.subarray(5, 5 + n + 16))).toEqual(plain);
          }
        }
      }
    });

    it('refuses an output without room, writing nothing', () => {
      const seal = backend.aeadSealInto;
      if (!seal) throw new Error(`${name} has no aeadSealInto`);
      const out = new Uint8Array(40);
      for (const offset of [-1, 1.5, 30, 41]) {
        expect(() => seal('aes-gcm', pattern(32), pattern(12), pattern(20), out, offset)).toThrow(
          RangeError,
        );
      }
      expect(out.every((b) => b === 0)).toBe(true);
    });
  });
}

describe('aeadSealParts on node', () => {
  const parts = nodeBackend.aeadSealParts;

  it('gives aeadSeal’s bytes as [ciphertext, tag], for every AEAD', () => {
    if (!parts) throw new Error('node has no aeadSealParts');
    for (const [alg, keyLen, nonceLen] of ALGS) {
      const key = pattern(keyLen, 5);
      const nonce = pattern(nonceLen, 6);
      for (const n of [0, 1, 16_383, 16_384]) {
        const plain = pattern(n, n + 2);
        const [body, tag] = parts(alg, key, nonce, plain);
        expect(body.length).toBe(n);
        expect(tag.length).toBe(16);
        expect(joined([body, tag])).toEqual(backend(alg, key, nonce, plain));
      }
    }
  });

  it('refuses what aeadSeal refuses, with the same native errors', () => {
    if (!parts) throw new Error('node has no aeadSealParts');
    expect(() => parts('aes-gcm', pattern(31), pattern(12), pattern(4))).toThrow(RangeError);
    expect(() => parts('aes-gcm', pattern(32), pattern(8), pattern(4))).toThrow(RangeError);
    expect(() => parts('aes-gcm', pattern(32), pattern(12), 'text' as never)).toThrow(TypeError);
  });
});

/** What aeadSeal of the node backend gives. */
const backend = (alg: AeadAlgorithm, key: Uint8Array, nonce: Uint8Array, plain: Uint8Array) =>
  nodeBackend.aeadSeal(alg, key, nonce, plain);
