/**
 * Shared set-up of the stream tests: an engine per backend, byte sources
 * fed in chosen piece sizes, collectors, and settling helpers that report how
 * a stream ended (an error, or a clean end) together with what it yielded.
 */
import type { CryptoBackend } from '../../src/crypto/backend.js';
import { TransitError } from '../../src/errors.js';
import { Transit } from '../../src/transit/transit.js';

/** Piece sizes the stream tests feed: one byte, below, at and above a chunk, and odd. */
export const PIECES = [1, 4096, 16_384, 65_536, 100_003];

/** A fresh in-memory engine on `backend`. */
export function engineOn(backend: CryptoBackend): Transit {
  return new Transit({ crypto: backend, autoRotate: false });
}

/** Deterministic bytes (no CSPRNG needed for test data). */
export function pattern(n: number, seed = 1): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

/** A readable of `bytes` in pieces of `piece` bytes (the last shorter). */
export function readableOf(bytes: Uint8Array, piece = 65_536): ReadableStream<Uint8Array> {
  let off = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (off >= bytes.length) return controller.close();
      const n = Math.min(piece, bytes.length - off);
      controller.enqueue(bytes.slice(off, off + n));
      off += n;
    },
  });
}

/** Concatenate pieces. */
export function joined(parts: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** How a stream ended: its pieces, and its error (undefined for a clean end). */
export interface Outcome {
  readonly pieces: Uint8Array[];
  readonly bytes: Uint8Array<ArrayBuffer>;
  readonly error: unknown;
}

/** Read `stream` to its end or its error. */
export async function settleStream(stream: ReadableStream<Uint8Array>): Promise<Outcome> {
  const pieces: Uint8Array[] = [];
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { pieces, bytes: joined(pieces), error: undefined };
      pieces.push(value);
    }
  } catch (error) {
    return { pieces, bytes: joined(pieces), error };
  }
}

/** Encrypt `plain` through `transit.encryptStream` and return the envelope. */
export async function encryptAll(
  transit: Transit,
  name: string,
  plain: Uint8Array,
  options?: Parameters<Transit['encryptStream']>[1],
  piece?: number,
): Promise<Uint8Array<ArrayBuffer>> {
  const out = await settleStream(
    readableOf(plain, piece).pipeThrough(transit.encryptStream(name, options)),
  );
  if (out.error !== undefined) throw out.error;
  return out.bytes;
}

/** Decrypt `envelope` through `transit.decryptStream`, reporting how it ended. */
export function decryptAll(
  transit: Transit,
  name: string,
  envelope: Uint8Array,
  options?: Parameters<Transit['decryptStream']>[1],
  piece?: number,
): Promise<Outcome> {
  return settleStream(
    readableOf(envelope, piece).pipeThrough(transit.decryptStream(name, options)),
  );
}

/** The error as a TransitError with `code`; throws (failing the test) otherwise. */
export function expectCode(error: unknown, code: string): TransitError {
  if (!(error instanceof TransitError)) {
    throw new Error(`expected a TransitError ${code}, got ${String(error)}`);
  }
  if (error.code !== code)
    throw new Error(`expected code ${code}, got ${error.code}: ${error.message}`);
  return error;
}

/** Every byte equal (faster than toEqual on MiBs). */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
