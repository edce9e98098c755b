/**
 * `sameBytes` (src/util/same-bytes.ts): the loop for short inputs and Node's
 * native comparison from 64 bytes on give the same answers, for views that
 * do not start at their buffer's start, and for a difference anywhere.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sameBytes } from '../../src/util/same-bytes.js';

/** A copy of `bytes` as a view into a larger buffer, at offset `at`. */
const viewOf = (bytes: Uint8Array, at: number): Uint8Array => {
  const out = new Uint8Array(bytes.length + at + 3).subarray(at, at + bytes.length);
  out.set(bytes);
  return out;
};

describe('sameBytes', () => {
  it('agrees with a byte-by-byte comparison around the native threshold', () => {
    for (const length of [0, 1, 63, 64, 65, 4000]) {
      const a = Uint8Array.from({ length }, (_, i) => (i * 13) & 255);
      expect(sameBytes(a, viewOf(a, 5)), `${length}`).toBe(true);
      expect(sameBytes(a, a.subarray(0, Math.max(0, length - 1)))).toBe(length === 0);
      for (const at of length === 0 ? [] : [0, length >> 1, length - 1]) {
        const b = viewOf(a, 1);
        b[at] = (b[at] as number) ^ 0x80;
        expect(sameBytes(a, b), `${length} @${at}`).toBe(false);
        expect(sameBytes(b, a)).toBe(false);
      }
    }
  });

  it('is equality of contents (property)', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 300 }),
        fc.uint8Array({ maxLength: 300 }),
        fc.nat(7),
        (a, b, at) => {
          const want = a.length === b.length && a.every((x, i) => x === b[i]);
          expect(sameBytes(viewOf(a, at), b)).toBe(want);
          expect(sameBytes(a, viewOf(a, at))).toBe(true);
        },
      ),
    );
  });
});
