/**
 * Random access into a Cobblestone message held by a {@link ByteSource}: a
 * range read fetches and authenticates only the chunks it covers.
 *
 * Why this is sound: chunk `i` opens only under nonce `i`, and only a
 * genuine final chunk is shorter than 16,400 bytes, so the source's size
 * tells where the final chunk must be, and opening it there proves the
 * plaintext length. Bytes of earlier chunks are genuine at their offsets
 * whatever the rest of the source holds. A read that reaches the end (or
 * starts past it) therefore opens the final chunk first; any other read opens
 * only its own chunks. {@link ChunkReader.plaintextSize} opens the final chunk
 * once and remembers the result.
 * @module
 */

import type { CryptoBackend } from '../crypto/backend.js';
import { invalidRequest } from '../errors.js';
import {
  CHUNK_SIZE,
  type ChunkCipher,
  type CobblestoneSuite,
  checkInputKey,
  HEADER_SIZE,
  MAX_CHUNKS,
  openMessage,
  TAG_SIZE,
  truncated,
  WIRE_CHUNK,
} from './cobblestone.js';
import type { ByteSource } from './source.js';

/**
 * An encrypted object opened for random access ({@link Transit.openEncrypted}).
 * @public
 */
export interface EncryptedObject {
  /**
   * The plaintext length, authenticated by opening the final chunk (read once).
   * @throws TransitError `invalid_request` when the source is truncated or the
   *   final chunk does not authenticate.
   */
  plaintextSize(): Promise<number>;
  /**
   * Up to `length` plaintext bytes from `offset`: fewer at the end, none past
   * it. Reads and authenticates only the chunks the range covers (and the
   * final chunk when the range reaches the end).
   * @throws TransitError `invalid_request` for a bad range, or when a chunk
   *   read does not authenticate (tamper, truncation, reordering).
   */
  read(offset: number, length: number): Promise<Uint8Array>;
}

/** Chunks fetched per source read, at most (about 1 MiB). */
const BATCH = 64;

/** @internal */
export class ChunkReader implements EncryptedObject {
  readonly #cipher: ChunkCipher;
  readonly #source: ByteSource;
  readonly #body: number;
  /** Index of the final chunk, and its ciphertext length (≥ 16, < 16,400). */
  readonly #last: number;
  readonly #lastWire: number;
  #size: Promise<number> | undefined;

  private constructor(cipher: ChunkCipher, source: ByteSource, body: number, total: number) {
    this.#cipher = cipher;
    this.#source = source;
    this.#body = body;
    const length = total - body;
    this.#last = Math.floor(length / WIRE_CHUNK);
    this.#lastWire = length - this.#last * WIRE_CHUNK;
    if (this.#lastWire < TAG_SIZE) throw truncated();
    if (this.#last >= MAX_CHUNKS)
      throw invalidRequest('stream: too many chunks (the limit is 2^38)');
  }

  /**
   * Open the message whose header starts at `offset` in `source`: read the
   * header, then as {@link ChunkReader.fromHeader}.
   * @throws TransitError `invalid_request` as for `fromHeader`.
   */
  static async open(
    backend: CryptoBackend,
    suite: CobblestoneSuite,
    inputKey: Uint8Array,
    context: Uint8Array,
    source: ByteSource,
    offset: number,
  ): Promise<ChunkReader> {
    checkInputKey(suite, inputKey);
    const total = await source.size();
    if (total - offset < HEADER_SIZE) throw truncated();
    const header = await source.read(offset, HEADER_SIZE);
    return ChunkReader.fromHeader(backend, suite, inputKey, context, header, source, offset, total);
  }

  /**
   * Check the commitment of `header` (read at `offset`), and work out where
   * the final chunk lies from the source's `total` size.
   * @throws TransitError `invalid_request`: wrong key size, failed commitment,
   *   or a source too short to hold a final chunk.
   */
  static fromHeader(
    backend: CryptoBackend,
    suite: CobblestoneSuite,
    inputKey: Uint8Array,
    context: Uint8Array,
    header: Uint8Array,
    source: ByteSource,
    offset: number,
    total: number,
  ): ChunkReader {
    const cipher = openMessage(backend, suite, inputKey, context, header);
    return new ChunkReader(cipher, source, offset + HEADER_SIZE, total);
  }

  /** Zero the derived key (the engine was closed: a seal). */
  wipe(): void {
    this.#cipher.wipe();
  }

  /** The length the source's size implies (authenticated once the final chunk opens). */
  get #claimedSize(): number {
    return this.#last * CHUNK_SIZE + this.#lastWire - TAG_SIZE;
  }

  plaintextSize(): Promise<number> {
    this.#size ??= this.#chunks(this.#last, this.#last).then(() => this.#claimedSize);
    // A failed check is not cached: every call fails again on the same source.
    this.#size.catch(() => {
      this.#size = undefined;
    });
    return this.#size;
  }

  async read(offset: number, length: number): Promise<Uint8Array> {
    if (!Number.isSafeInteger(offset) || offset < 0) {
      throw invalidRequest('stream: offset must be a non-negative integer');
    }
    if (!Number.isSafeInteger(length) || length < 0) {
      throw invalidRequest('stream: length must be a non-negative integer');
    }
    const claimed = this.#claimedSize;
    if (length === 0) return new Uint8Array(0);
    if (offset >= claimed) {
      await this.plaintextSize();
      return new Uint8Array(0);
    }
    const end = Math.min(offset + length, claimed);
    const first = Math.floor(offset / CHUNK_SIZE);
    // A range that reaches the end includes the final chunk (even an empty
    // one): opening it proves the end.
    const last = end === claimed ? this.#last : Math.floor((end - 1) / CHUNK_SIZE);
    const out = new Uint8Array(end - offset);
    await this.#chunks(first, last, (index, plain) => {
      const start = index * CHUNK_SIZE;
      const from = Math.max(offset, start) - start;
      const to = Math.min(end, start + plain.length) - start;
      out.set(plain.subarray(from, to), start + from - offset);
    });
    if (last === this.#last) this.#size ??= Promise.resolve(claimed);
    return out;
  }

  /** Fetch and open chunks `first..last` in batches, in order. */
  async #chunks(
    first: number,
    last: number,
    each?: (index: number, plain: Uint8Array) => void,
  ): Promise<void> {
    for (let i = first; i <= last; i += BATCH) {
      const upto = Math.min(last, i + BATCH - 1);
      const wireEnd =
        upto === this.#last ? upto * WIRE_CHUNK + this.#lastWire : (upto + 1) * WIRE_CHUNK;
      const wire = await this.#source.read(this.#body + i * WIRE_CHUNK, wireEnd - i * WIRE_CHUNK);
      for (let k = i; k <= upto; k++) {
        const at = (k - i) * WIRE_CHUNK;
        const len = k === this.#last ? this.#lastWire : WIRE_CHUNK;
        const plain = this.#cipher.open(k, wire.subarray(at, at + len));
        each?.(k, plain);
      }
    }
  }
}
