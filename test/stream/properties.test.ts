/**
 * Property-based tests (fast-check) of streams on both backends:
 * - any length round-trips (weighted to 0, 1, 16383, 16384, 16385 and chunk
 *   multiples), whatever the piece sizes on either side; multi-MiB lengths
 *   run as fixed cases;
 * - any single-byte change, any cut and any append fails: the decrypt stream
 *   errors (never ends cleanly) and random access cannot read the whole.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TransitError } from '../../src/errors.js';
import { CHUNK_SIZE } from '../../src/stream/cobblestone.js';
import { BACKENDS } from '../helpers/backends.js';
import { decryptAll, encryptAll, engineOn, joined, pattern, sameBytes } from './support.js';

const lengthArb = fc.oneof(
  fc.constantFrom(0, 1, 16_383, 16_384, 16_385, 2 * CHUNK_SIZE, 2 * CHUNK_SIZE + 1),
  fc.integer({ min: 0, max: 5 * CHUNK_SIZE }),
);
const pieceArb = fc.constantFrom(1, 13, 4096, 16_384, 16_400, 65_536);

type Damage =
  | { kind: 'flip'; at: number; mask: number }
  | { kind: 'cut'; keep: number }
  | { kind: 'append'; extra: Uint8Array };
const damageArb: fc.Arbitrary<Damage> = fc.oneof(
  fc.record({
    kind: fc.constant('flip' as const),
    at: fc.nat(),
    mask: fc.integer({ min: 1, max: 255 }),
  }),
  fc.record({ kind: fc.constant('cut' as const), keep: fc.nat() }),
  fc.record({
    kind: fc.constant('append' as const),
    extra: fc.uint8Array({ minLength: 1, maxLength: 40 }),
  }),
);

function damage(env: Uint8Array<ArrayBuffer>, d: Damage): Uint8Array<ArrayBuffer> {
  if (d.kind === 'flip') {
    const out = env.slice();
    const i = d.at % env.length;
    out[i] = (out[i] ?? 0) ^ d.mask;
    return out;
  }
  if (d.kind === 'cut') return env.slice(0, d.keep % env.length);
  return joined([env, d.extra]);
}

for (const [name, backend] of BACKENDS) {
  describe(`stream properties on ${name}`, () => {
    const transit = engineOn(backend);
    const ready = transit.createKey('p');

    it('any length round-trips, whatever the piece sizes', async () => {
      await ready;
      await fc.assert(
        fc.asyncProperty(lengthArb, pieceArb, pieceArb, async (n, inPiece, outPiece) => {
          const plain = pattern(n, n + 11);
          const env = await encryptAll(transit, 'p', plain, undefined, inPiece);
          const back = await decryptAll(transit, 'p', env, undefined, outPiece);
          expect(back.error).toBeUndefined();
          expect(sameBytes(back.bytes, plain)).toBe(true);
        }),
        { numRuns: 40 },
      );
    });

    it('multi-MiB lengths round-trip through streams and random access', async () => {
      await ready;
      for (const n of [2 * 1024 * 1024, 5 * 1024 * 1024 + 16_385]) {
        const plain = pattern(n, 5);
        const env = await encryptAll(transit, 'p', plain);
        const back = await decryptAll(transit, 'p', env, undefined, 1 << 20);
        expect(sameBytes(back.bytes, plain)).toBe(true);
        const obj = await transit.openEncrypted('p', new Blob([env]));
        expect(await obj.plaintextSize()).toBe(n);
        const at = n - 3 * CHUNK_SIZE - 17;
        expect(sameBytes(await obj.read(at, 40_000), plain.subarray(at, at + 40_000))).toBe(true);
      }
    });

    it('any single-byte change, cut or append fails, streaming and by random access', async () => {
      await ready;
      await fc.assert(
        fc.asyncProperty(lengthArb, damageArb, async (n, d) => {
          const plain = pattern(n, n + 3);
          const env = await encryptAll(transit, 'p', plain);
          const bad = damage(env, d);
          const out = await decryptAll(transit, 'p', bad);
          expect(out.error).toBeInstanceOf(TransitError);
          // Anything released before the error is a genuine prefix.
          expect(sameBytes(out.bytes, plain.subarray(0, out.bytes.length))).toBe(true);
          const whole = await transit
            .openEncrypted('p', new Blob([bad]))
            .then((o) => o.read(0, bad.length))
            .catch((e: unknown) => e);
          expect(whole).toBeInstanceOf(TransitError);
        }),
        { numRuns: 60 },
      );
    });
  });
}
