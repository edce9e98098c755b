/**
 * Shared by the bindings: the error a body reader throws past the size limit
 * (413, Vault's `http: request body too large`), and chunk concatenation.
 * Runtime-neutral.
 * @module
 */
import { TransitError } from '../../src/errors.js';

/** The error a body reader throws past the limit. @internal */
export const tooLarge = (): TransitError =>
  new TransitError('payload_too_large', 'http: request body too large');

/** Concatenate received chunks (no copy for a single chunk). @internal */
export function concatChunks(chunks: readonly Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const out = new Uint8Array(total);
  let off = 0;
  for (const c of chunks) {
    out.set(c, off);
    off += c.byteLength;
  }
  return out;
}
