/**
 * Recycled output pieces for a pushed encrypt-stream reply (stream-push.ts).
 *
 * The encoder seals each input event's chunks into one fresh piece, which
 * the response holds until the socket has taken it. With fresh memory per
 * piece, a 1 GiB stream allocated 1 GiB of ArrayBuffers on top of
 * node:crypto's own outputs: the collections that external memory triggers
 * (a profile: ≈ 0.5 ms per MiB, ten times the bare server's) and the first
 * touch of new pages in the copy. Here a piece goes back to the pool once
 * the binding says it was written, and the next event seals into it.
 *
 * Safe only where "written" means the binding holds no reference any more:
 * the Node binding reports it for its own `node:http` responses on real
 * sockets only (stream-node.ts). A piece never reported is simply left to
 * the collector, as before. Every byte of a piece handed out is overwritten
 * by the encoder before it leaves, so no earlier output can show through.
 *
 * Runtime-neutral.
 * @module
 */
import { unfilled } from '../../src/stream/alloc.js';
import { WIRE_CHUNK } from '../../src/stream/cobblestone.js';

/** The pooled size: the output of a 64 KiB input event (Node's socket reads). */
const PIECE = 4 * WIRE_CHUNK;
/** Free pieces kept at most (output in flight is bounded by the binding's backpressure). */
const KEEP = 8;

/** @internal */
export class OutputPool {
  readonly #free: Uint8Array[] = [];
  /** The pooled buffer under each view handed out and not yet given back. */
  readonly #owner = new WeakMap<Uint8Array, Uint8Array>();
  /** Buffers this pool has allocated (for tests). */
  created = 0;

  /** An output piece of `n` bytes: a view over a pooled buffer, or fresh memory when larger. */
  readonly alloc = (n: number): Uint8Array => {
    if (n > PIECE) return unfilled(n);
    let whole = this.#free.pop();
    if (whole === undefined) {
      whole = unfilled(PIECE);
      this.created++;
    }
    const view = whole.subarray(0, n);
    this.#owner.set(view, whole);
    return view;
  };

  /**
   * For a piece from {@link OutputPool.alloc}: a callback that gives its
   * buffer back (call it once the piece is written, at most once); for any
   * other piece `undefined`.
   */
  returner(piece: Uint8Array): (() => void) | undefined {
    const whole = this.#owner.get(piece);
    if (whole === undefined) return undefined;
    this.#owner.delete(piece);
    return () => {
      if (this.#free.length < KEEP && !this.#free.includes(whole)) this.#free.push(whole);
    };
  }
}
