/**
 * Wycheproof Cobblestone vectors (C2SP chunked-encryption, AES-128-GCM and
 * AES-256-GCM) on every backend: every case through the streaming decoder
 * (fed whole and in odd-sized pieces) and through the random-access reader.
 *
 * Each flag is handled explicitly (README in the vectors folder):
 * - `valid` → exact plaintext (length and SHA-512), derived key and nonce match;
 * - `invalid` → the stream fails, and keeps failing; it yields exactly the
 *   prefix of `PartialPlaintext` cases and nothing otherwise; `HeaderFailure`
 *   fails before any chunk is opened; `InvalidKeySize` fails when the key is
 *   given;
 * - random access: `plaintextSize` fails unless `ValidFinalChunk`; reading
 *   everything fails always; a `PartialPlaintext` prefix, if served, is exact;
 * - any other result string → the test throws.
 */
import { describe, expect, it } from 'vitest';
import type { CryptoBackend } from '../../src/crypto/backend.js';
import { TransitError } from '../../src/errors.js';
import { ChunkDecoder } from '../../src/stream/chunker.js';
import {
  COBBLESTONE_128,
  COBBLESTONE_256,
  type CobblestoneSuite,
  deriveKeys,
  HEADER_SIZE,
  SALT_SIZE,
} from '../../src/stream/cobblestone.js';
import { ChunkReader } from '../../src/stream/reader.js';
import type { ByteSource } from '../../src/stream/source.js';
import { BACKENDS } from '../helpers/backends.js';
import { type ChunkedCase, loadChunkedVectors, sha512Hex } from './chunked-vectors.js';

const FILES: ReadonlyArray<{ file: string; suite: CobblestoneSuite }> = [
  { file: 'c2sp_chunked_encryption_aes_128_gcm_test.json', suite: COBBLESTONE_128 },
  { file: 'c2sp_chunked_encryption_aes_256_gcm_test.json', suite: COBBLESTONE_256 },
];
const DATA = FILES.map((f) => ({ ...f, data: loadChunkedVectors(f.file) }));
const PIECES = [Number.POSITIVE_INFINITY, 1000, 16_401, 7];

/** Concatenate emitted pieces. */
function joined(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** Feed `ct` to a fresh decoder in pieces of `piece` bytes; what came out and how it ended. */
function decodeStreaming(
  backend: CryptoBackend,
  suite: CobblestoneSuite,
  c: ChunkedCase,
  piece: number,
): { out: Uint8Array; error: unknown; decoder: ChunkDecoder | undefined } {
  const parts: Uint8Array[] = [];
  const emit = (p: Uint8Array) => parts.push(p.slice());
  let decoder: ChunkDecoder | undefined;
  try {
    decoder = new ChunkDecoder(backend, suite, c.key, c.ctx);
    for (let off = 0; off < c.ct.length; off += piece) {
      decoder.push(c.ct.subarray(off, Math.min(c.ct.length, off + piece)), emit);
    }
    decoder.finish(emit);
    return { out: joined(parts), error: undefined, decoder };
  } catch (error) {
    return { out: joined(parts), error, decoder };
  }
}

/** A source over `bytes` that counts its reads. */
function countingSource(bytes: Uint8Array): ByteSource & { reads: number } {
  const src = {
    reads: 0,
    size: async () => bytes.length,
    read: async (offset: number, length: number) => {
      src.reads++;
      if (offset + length > bytes.length) throw new Error('read past the end');
      return bytes.slice(offset, offset + length);
    },
  };
  return src;
}

const settle = <T>(p: Promise<T>) =>
  p.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );

for (const [name, backend] of BACKENDS) {
  describe(`Wycheproof Cobblestone on ${name}`, () => {
    for (const { file, suite, data } of DATA) {
      it(`${file}: ${data.cases.length} cases, ${suite.aeadName}`, async () => {
        expect(data.aead).toBe(suite.aeadName);
        const seen = { valid: 0, invalid: 0 };
        for (const c of data.cases) {
          const why = `tcId ${c.tcId} (${c.comment})`;
          if (c.result !== 'valid' && c.result !== 'invalid') {
            throw new Error(`${why}: unknown result ${c.result}`);
          }
          seen[c.result]++;
          // Streaming, in several piece sizes.
          for (const piece of PIECES) {
            const { out, error, decoder } = decodeStreaming(backend, suite, c, piece);
            if (c.result === 'valid') {
              expect(error, why).toBeUndefined();
              expect(out.length, why).toBe(c.msgLength);
              expect(sha512Hex(out), why).toBe(c.msgSha512);
              continue;
            }
            expect(error, why).toBeInstanceOf(TransitError);
            expect((error as TransitError).code, why).toBe('invalid_request');
            if (c.flags.includes('PartialPlaintext')) {
              expect(out.length, why).toBe(c.msgLength);
              expect(sha512Hex(out), why).toBe(c.msgSha512);
            } else {
              expect(out.length, why).toBe(0);
            }
            if (c.flags.includes('InvalidKeySize')) expect(decoder, why).toBeUndefined();
            if (c.flags.includes('HeaderFailure')) expect(decoder?.chunks ?? 0, why).toBe(0);
            // Sticky: the decoder keeps failing.
            if (decoder) {
              expect(() => decoder.push(new Uint8Array(1), () => {}), why).toThrow(TransitError);
              expect(() => decoder.finish(() => {}), why).toThrow(TransitError);
            }
          }
          // Key schedule, where the case gives it.
          if (c.aeadKey && c.baseNonce && c.ct.length >= HEADER_SIZE) {
            const k = deriveKeys(backend, suite, c.key, c.ct.subarray(0, SALT_SIZE), c.ctx);
            expect(k.key, why).toEqual(c.aeadKey);
            expect(k.baseNonce, why).toEqual(c.baseNonce);
          }
          // Random access.
          const src = countingSource(c.ct);
          const opened = await settle(ChunkReader.open(backend, suite, c.key, c.ctx, src, 0));
          if (c.result === 'valid') {
            if (!opened.ok) throw opened.error;
            const obj = opened.value;
            expect(await obj.plaintextSize(), why).toBe(c.msgLength);
            const all = await obj.read(0, (c.msgLength ?? 0) + 10);
            expect(sha512Hex(all), why).toBe(c.msgSha512);
            continue;
          }
          if (c.flags.includes('HeaderFailure')) {
            expect(opened.ok, why).toBe(false);
            expect(src.reads, `${why}: no chunk read`).toBeLessThanOrEqual(1);
            continue;
          }
          if (!opened.ok) {
            expect(opened.error, why).toBeInstanceOf(TransitError);
            continue;
          }
          const obj = opened.value;
          const size = await settle(obj.plaintextSize());
          if (!c.flags.includes('ValidFinalChunk')) expect(size.ok, why).toBe(false);
          const everything = await settle(obj.read(0, c.ct.length));
          expect(everything.ok, why).toBe(false);
          if (!everything.ok) expect(everything.error, why).toBeInstanceOf(TransitError);
          if (c.flags.includes('PartialPlaintext') && c.msgLength) {
            const prefix = await settle(obj.read(0, c.msgLength));
            if (prefix.ok) expect(sha512Hex(prefix.value), why).toBe(c.msgSha512);
          }
        }
        expect(seen.valid).toBeGreaterThan(0);
        expect(seen.invalid).toBeGreaterThan(0);
        expect(seen.valid + seen.invalid).toBe(data.cases.length);
      });
    }
  });
}
