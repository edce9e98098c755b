/**
 * Hundreds of MiB through `encryptStream → decryptStream` (issue 17): 256 MiB
 * generated on the fly in uneven pieces (never held in memory), hashed with
 * SHA-256 on the way in and on the way out. node backend (the noble backend
 * runs the same path over 16 MiB: pure JS is far slower, and the property
 * and vector tests cover it byte for byte).
 */
import { createHash, randomFillSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { engineOn } from './support.js';

const MiB = 1024 * 1024;

/** `total` random bytes in pieces of 1 B … 256 KiB, hashed as they are made. */
function generated(total: number, hash: ReturnType<typeof createHash>): ReadableStream<Uint8Array> {
  let sent = 0;
  let i = 0;
  const sizes = [262_144, 1, 65_536, 16_385, 100_000, 16_383, 7];
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= total) return controller.close();
      const n = Math.min(sizes[i++ % sizes.length] as number, total - sent);
      const piece = randomFillSync(new Uint8Array(n));
      hash.update(piece);
      controller.enqueue(piece);
      sent += n;
    },
  });
}

for (const [name, backend] of BACKENDS) {
  const total = name === 'noble' ? 16 * MiB : 256 * MiB;
  describe(`large streams on ${name}`, () => {
    it(`${total / MiB} MiB through encryptStream → decryptStream, SHA-256 equal`, async () => {
      const transit = engineOn(backend);
      await transit.createKey('big');
      const hashIn = createHash('sha256');
      const hashOut = createHash('sha256');
      let out = 0;
      let ciphertext = 0;
      let largestPiece = 0;
      await generated(total, hashIn)
        .pipeThrough(transit.encryptStream('big'))
        .pipeThrough(
          new TransformStream<Uint8Array, Uint8Array>({
            transform(c, controller) {
              ciphertext += c.length;
              controller.enqueue(c);
            },
          }),
        )
        .pipeThrough(transit.decryptStream('big'))
        .pipeTo(
          new WritableStream({
            write(c) {
              out += c.length;
              largestPiece = Math.max(largestPiece, c.length);
              hashOut.update(c);
            },
          }),
        );
      expect(out).toBe(total);
      expect(hashOut.digest('hex')).toBe(hashIn.digest('hex'));
      expect(ciphertext).toBeGreaterThan(total + (total / 16_384) * 16);
      // Output pieces follow the input pieces (≤ 256 KiB + a chunk): nothing accumulates.
      expect(largestPiece).toBeLessThanOrEqual(262_144 + 16_384);
    }, 300_000);
  });
}
