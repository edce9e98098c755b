/**
 * `readEnvelopeHeader`: what a TKS1 envelope says about itself, read without
 * any key — the transit key version that wrapped its data key. A rotation
 * campaign scans its objects with it (a ranged read of the first bytes each)
 * to find those still wrapped by versions it is about to retire with
 * `min_decryption_version`; nothing is decrypted, so the scan needs no
 * permission on the key. The reading itself (`./header-read.ts`) loads on
 * first use.
 * @module
 */
import type { RandomAccessSource } from './source.js';

/**
 * The header of a TKS1 envelope ({@link readEnvelopeHeader}). Nothing in it
 * is authenticated until the envelope is opened with its key.
 * @public
 */
export interface EnvelopeHeader {
  /** The version of the transit key that wrapped the data key (`<prefix>:v<N>:…`). */
  readonly keyVersion: number;
  /** The wrapped data key: the transit ciphertext, exactly as `transit/encrypt` returned it. */
  readonly wrappedKey: string;
  /** Bytes before the Cobblestone ciphertext: `"TKS1"`, the length field and the wrapped key. */
  readonly headerLength: number;
}

/**
 * Read the header of a TKS1 envelope (docs/stream-format.md) from a `Blob`, a
 * Node `FileHandle`, a `{ read(offset, length), size }` source, or the
 * envelope's first bytes: two small reads at the start, no key and no
 * decryption. The answer is what the envelope claims; opening it
 * (`decryptStream`, `openEncrypted`) is what proves it.
 * @throws TransitError `invalid_request` for a source of another kind, bytes
 *   that are not a TKS1 envelope, a wrapped key that is not a transit
 *   ciphertext, or a source that ends inside the header.
 * @example
 * ```ts
 * const handle = await open('db.dump.tks1');
 * const { keyVersion } = await readEnvelopeHeader(handle);
 * await handle.close();
 * if (keyVersion < 3) console.log('re-encrypt: wrapped by a version about to be retired');
 * ```
 * @public
 */
export async function readEnvelopeHeader(
  source: RandomAccessSource | Uint8Array,
): Promise<EnvelopeHeader> {
  const { readHeader } = await import('./header-read.js');
  return readHeader(source);
}
