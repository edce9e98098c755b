/**
 * `encryptStream` / `decryptStream`: WHATWG `TransformStream`s of bytes that
 * write and read TKS1 envelopes (Node, browsers, Deno, workers alike), each
 * a thin shell over its {@link ByteCoder} (`coders.ts`).
 *
 * The coder's first bytes (encrypt's envelope header) are enqueued by
 * `start`, so a failure before them errors the stream before its first
 * byte; decryption errors the stream, never ends it cleanly, on any failure.
 *
 * Memory and backpressure: both sides count bytes (64 KiB high-water marks),
 * so `transform` runs only while the reader keeps up; the coders hold one
 * chunk at most.
 *
 * {@link coderOf} hands a binding that can drive the coder itself (the Node
 * HTTP binding) the coder behind a stream it was given: the coder's `start`
 * is shared, so both see the same header, and the stream, unused, is dropped.
 * @module
 */
import { TransitError } from '../errors.js';
import { lazy } from '../util/lazy.js';
import type { Emit } from './chunker.js';
import type { ByteCoder, EngineRef } from './coders.js';
import type { StreamDecryptOptions, StreamEncryptOptions } from './data-key.js';

// The coders (with Cobblestone and the envelope) load with a stream's start,
// so an application that never streams does not carry them.
const coders = lazy(() => import('./coders.js'));

/**
 * A coder whose module loads on `start` (memoised, as the coders' own), then
 * passes every call straight on: one indirection per input piece.
 */
function deferred(make: (m: typeof import('./coders.js')) => ByteCoder): ByteCoder {
  let real: ByteCoder | undefined;
  let started: Promise<Uint8Array | undefined> | undefined;
  const loaded = (): ByteCoder => {
    if (real === undefined) throw new TransitError('internal', 'stream: not started');
    return real;
  };
  return {
    start() {
      started ??= coders().then((m) => {
        real = make(m);
        return real.start();
      });
      return started;
    },
    push: (piece, emit, output) => loaded().push(piece, emit, output),
    finish: (emit) => loaded().finish(emit),
  };
}

export type { EngineRef } from './coders.js';

/** Queue size per side, counted in bytes. */
const HIGH_WATER = 65_536;
const byteStrategy = (): QueuingStrategy<Uint8Array> => ({
  highWaterMark: HIGH_WATER,
  // Anything that is not bytes counts as one, so it reaches `transform` and
  // is refused there (a throwing size would error only the writable side).
  size: (chunk) => (chunk instanceof Uint8Array ? chunk.byteLength : 1),
});

const CODERS = new WeakMap<object, ByteCoder>();

/**
 * The coder behind a stream of `encryptStream` / `decryptStream`, for a
 * caller that drives it directly instead of writing to the stream (which it
 * must then never use). `undefined` for any other stream.
 * @internal
 */
export function coderOf(stream: object): ByteCoder | undefined {
  return CODERS.get(stream);
}

/** A `TransformStream` over a coder. */
function coderStream(coder: ByteCoder): TransformStream<Uint8Array, Uint8Array> {
  const stream = new TransformStream<Uint8Array, Uint8Array>(
    {
      async start(controller) {
        const first = await coder.start();
        if (first !== undefined) controller.enqueue(first);
      },
      transform(chunk, controller) {
        const emit: Emit = (c) => controller.enqueue(c);
        return coder.push(chunk, emit);
      },
      flush(controller) {
        coder.finish((c) => controller.enqueue(c));
      },
    },
    byteStrategy(),
    byteStrategy(),
  );
  CODERS.set(stream, coder);
  return stream;
}

/** @internal */
export function encryptStream(
  engine: EngineRef,
  name: string,
  options?: StreamEncryptOptions,
): TransformStream<Uint8Array, Uint8Array> {
  return coderStream(deferred((m) => m.encryptCoder(engine, name, options)));
}

/** @internal */
export function decryptStream(
  engine: EngineRef,
  name: string,
  options?: StreamDecryptOptions,
): TransformStream<Uint8Array, Uint8Array> {
  return coderStream(deferred((m) => m.decryptCoder(engine, name, options)));
}
