/**
 * Incremental Cobblestone encoder and decoder: bytes in, whole chunks out,
 * whatever the sizes of the pieces pushed. Synchronous and runtime-neutral;
 * the WHATWG transforms (`transforms.ts`) drive them.
 *
 * Memory: each holds one chunk at most (16 KiB in, 16,400 bytes out). Input
 * pieces are sealed or opened in place (`subarray`) whenever a whole chunk
 * lies inside one piece; only chunks that straddle two pieces are copied.
 *
 * The decoder releases a chunk's plaintext only after its tag verifies. A
 * full-size chunk is never the last one (the last is always shorter), so it
 * is opened as soon as it is complete; the short final chunk is opened by
 * {@link ChunkDecoder.finish}. A failure is sticky: every later call throws
 * the same error, so a caller can never resume past a bad chunk.
 * @module
 */

import type { CryptoBackend } from '../crypto/backend.js';
import { invalidRequest } from '../errors.js';
import { unfilled } from './alloc.js';
import {
  CHUNK_SIZE,
  type ChunkCipher,
  type CobblestoneSuite,
  checkInputKey,
  HEADER_SIZE,
  openMessage,
  TAG_SIZE,
  truncated,
  WIRE_CHUNK,
} from './cobblestone.js';

/** Receives each output piece, in order. @internal */
export type Emit = (bytes: Uint8Array) => void;

/**
 * Makes an output piece of `n` bytes, which the encoder then overwrites
 * entirely. The default is fresh memory; a caller that knows when a piece
 * has been written can hand out recycled memory instead. @internal
 */
export type Alloc = (n: number) => Uint8Array;

/**
 * How the encoder shapes its output: gathered into pieces made by an
 * {@link Alloc} (one piece per push, the default), or `'each'`: every
 * chunk's ciphertext and tag as the backend made them, no copy
 * (`ChunkCipher.sealInto` with a function). @internal
 */
export type Output = Alloc | 'each';

/** A pushed piece must be bytes (a `Buffer` is a `Uint8Array`). @internal */
export function asBytes(piece: unknown): Uint8Array {
  if (piece instanceof Uint8Array) return piece;
  throw invalidRequest('stream: every chunk written must be a Uint8Array');
}

/**
 * Encrypts a message piece by piece: {@link ChunkEncoder.push} seals every
 * complete 16 KiB chunk, {@link ChunkEncoder.finish} the short final one.
 * The caller writes the header (`startMessage`) first.
 * @internal
 */
export class ChunkEncoder {
  readonly #cipher: ChunkCipher;
  readonly #pending = new Uint8Array(CHUNK_SIZE);
  #fill = 0;
  #index = 0;
  #finished = false;

  /** Zero the key and the buffered plaintext (the engine was closed: a seal). */
  wipe(): void {
    this.#cipher.wipe();
    this.#pending.fill(0);
    this.#fill = 0;
  }

  constructor(cipher: ChunkCipher) {
    this.#cipher = cipher;
  }

  /**
   * Seal every chunk `data` completes, and keep the remainder (< 16 KiB).
   * With an allocator (fresh memory by default) the chunks are gathered into
   * one output piece (a 64 KiB write gives one 65,600-byte piece, not four);
   * with `'each'` every chunk leaves as the backend made it (ciphertext and
   * tag, no gathering copy), for a reader that takes many pieces cheaply.
   */
  push(data: Uint8Array, emit: Emit, output: Output = unfilled): void {
    if (this.#finished) throw invalidRequest('stream: write after the end');
    const chunks = Math.floor((this.#fill + data.length) / CHUNK_SIZE);
    if (chunks === 0) {
      this.#pending.set(data, this.#fill);
      this.#fill += data.length;
      return;
    }
    const out = output === 'each' ? emit : output(chunks * WIRE_CHUNK);
    let off = 0;
    let at = 0;
    if (this.#fill > 0) {
      off = CHUNK_SIZE - this.#fill;
      this.#pending.set(data.subarray(0, off), this.#fill);
      this.#cipher.sealInto(this.#index++, this.#pending, out, 0);
      at = WIRE_CHUNK;
      this.#fill = 0;
    }
    for (; at < chunks * WIRE_CHUNK; at += WIRE_CHUNK, off += CHUNK_SIZE) {
      this.#cipher.sealInto(this.#index++, data.subarray(off, off + CHUNK_SIZE), out, at);
    }
    if (off < data.length) {
      this.#pending.set(data.subarray(off), 0);
      this.#fill = data.length - off;
    }
    if (typeof out !== 'function') emit(out);
  }

  /** Seal the final chunk (shorter than 16 KiB, possibly empty). */
  finish(emit: Emit): void {
    if (this.#finished) throw invalidRequest('stream: finished twice');
    this.#finished = true;
    emit(this.#cipher.seal(this.#index++, this.#pending.subarray(0, this.#fill)));
    this.#pending.fill(0);
  }
}

/**
 * Decrypts a message (header and chunks) piece by piece. The input key is
 * checked at construction; the commitment as soon as the 56-byte header is in.
 * @internal
 */
export class ChunkDecoder {
  readonly #open: (header: Uint8Array) => ChunkCipher;
  #cipher: ChunkCipher | undefined;
  readonly #header = new Uint8Array(HEADER_SIZE);
  #headerFill = 0;
  readonly #pending = new Uint8Array(WIRE_CHUNK);
  #fill = 0;
  #index = 0;
  #failure: unknown;
  #finished = false;

  /**
   * @throws TransitError `invalid_request` when `inputKey` has the wrong size.
   */
  constructor(
    backend: CryptoBackend,
    suite: CobblestoneSuite,
    inputKey: Uint8Array,
    context: Uint8Array,
  ) {
    checkInputKey(suite, inputKey);
    this.#open = (header) => openMessage(backend, suite, inputKey, context, header);
    this.#inputKey = inputKey;
  }

  readonly #inputKey: Uint8Array;

  /** Zero the keys (the engine was closed: a seal); every later call fails. */
  wipe(): void {
    this.#inputKey.fill(0);
    this.#cipher?.wipe();
    this.#pending.fill(0);
    this.#fill = 0;
  }

  /** Chunks opened so far (the final one included once finished). */
  get chunks(): number {
    return this.#index;
  }

  /** Open every chunk `data` completes and emit its plaintext. */
  push(data: Uint8Array, emit: Emit): void {
    this.#guard(() => this.#push(data, emit));
  }

  /**
   * The input has ended: open the final chunk.
   * @throws TransitError `invalid_request` when the input ended before a
   *   final chunk (truncation), or that chunk does not authenticate.
   */
  finish(emit: Emit): void {
    this.#guard(() => {
      if (this.#cipher === undefined || this.#fill < TAG_SIZE) throw truncated();
      this.#finished = true;
      emit(this.#cipher.open(this.#index++, this.#pending.subarray(0, this.#fill)));
    });
  }

  #guard(step: () => void): void {
    if (this.#failure !== undefined) throw this.#failure;
    if (this.#finished) throw invalidRequest('stream: data after the end');
    try {
      step();
    } catch (e) {
      this.#failure = e;
      throw e;
    }
  }

  #push(data: Uint8Array, emit: Emit): void {
    let off = 0;
    let cipher = this.#cipher;
    if (cipher === undefined) {
      off = Math.min(HEADER_SIZE - this.#headerFill, data.length);
      this.#header.set(data.subarray(0, off), this.#headerFill);
      this.#headerFill += off;
      if (this.#headerFill < HEADER_SIZE) return;
      cipher = this.#open(this.#header);
      this.#cipher = cipher;
    }
    // Each chunk's plaintext leaves as the backend returns it (node:crypto's
    // own output buffer, no copy): gathering them into one piece would cost
    // an allocation and a copy per chunk, more than the extra enqueues.
    if (this.#fill > 0) {
      const take = Math.min(WIRE_CHUNK - this.#fill, data.length - off);
      this.#pending.set(data.subarray(off, off + take), this.#fill);
      this.#fill += take;
      off += take;
      if (this.#fill < WIRE_CHUNK) return;
      this.#fill = 0;
      emit(cipher.open(this.#index++, this.#pending));
    }
    for (; data.length - off >= WIRE_CHUNK; off += WIRE_CHUNK) {
      emit(cipher.open(this.#index++, data.subarray(off, off + WIRE_CHUNK)));
    }
    if (off < data.length) {
      this.#pending.set(data.subarray(off), 0);
      this.#fill = data.length - off;
    }
  }
}
