/**
 * `encryptStream` / `decryptStream`: WHATWG `TransformStream`s of bytes that
 * write and read TKS1 envelopes (Node, browsers, Deno, workers alike).
 *
 * Encrypt: `start` wraps a fresh data key under the named key and enqueues
 * the whole envelope header (prefix ‖ salt ‖ commitment) as the first output
 * chunk, so any failure before that (unknown key, a key that cannot encrypt,
 * a missing context) errors the stream before its first byte. Chunks follow.
 *
 * Decrypt: the prefix is collected, the data key is unwrapped through
 * transit decrypt, then {@link ChunkDecoder} releases each chunk's plaintext
 * only once it authenticates. Tamper, truncation, reordering, trailing data,
 * a bad header or a key that does not unwrap error the stream; it never ends
 * cleanly after any of them.
 *
 * Memory and backpressure: both sides count bytes (64 KiB high-water marks),
 * so `transform` runs only while the reader keeps up; the coders hold one
 * chunk at most.
 * @module
 */
import { TransitError } from '../errors.js';
import type { Engine } from '../transit/engine.js';
import { asBytes, ChunkDecoder, ChunkEncoder } from './chunker.js';
import { asStreamError, COBBLESTONE_256, startMessage, truncated } from './cobblestone.js';
import {
  checkDecryptOptions,
  type StreamDecryptOptions,
  type StreamEncryptOptions,
  unwrapDataKey,
  wrapDataKey,
} from './data-key.js';
import {
  checkMagic,
  envelopePrefix,
  FIXED_PREFIX,
  prefixLength,
  wrappedKeyOf,
} from './envelope.js';

/** The engine, resolved when the stream first needs it. @internal */
export type EngineRef = () => Promise<Engine>;

/** Queue size per side, counted in bytes. */
const HIGH_WATER = 65_536;
const byteStrategy = (): QueuingStrategy<Uint8Array> => ({
  highWaterMark: HIGH_WATER,
  // Anything that is not bytes counts as one, so it reaches `transform` and
  // is refused there (a throwing size would error only the writable side).
  size: (chunk) => (chunk instanceof Uint8Array ? chunk.byteLength : 1),
});

/** Run a step; any failure leaves as a TransitError. */
function guarded<T>(step: () => T): T {
  try {
    return step();
  } catch (e) {
    throw asStreamError(e);
  }
}

/** @internal */
export function encryptStream(
  engine: EngineRef,
  name: string,
  options?: StreamEncryptOptions,
): TransformStream<Uint8Array, Uint8Array> {
  let encoder: ChunkEncoder | undefined;
  const coder = (): ChunkEncoder => {
    if (encoder === undefined) throw new TransitError('internal', 'stream: not started');
    return encoder;
  };
  return new TransformStream<Uint8Array, Uint8Array>(
    {
      async start(controller) {
        try {
          const e = await engine();
          const { dataKey, wrapped } = await wrapDataKey(e, name, options);
          const prefix = envelopePrefix(wrapped);
          const { header, cipher } = startMessage(e.backend, COBBLESTONE_256, dataKey, prefix);
          dataKey.fill(0);
          encoder = new ChunkEncoder(cipher);
          const first = new Uint8Array(prefix.length + header.length);
          first.set(prefix, 0);
          first.set(header, prefix.length);
          controller.enqueue(first);
        } catch (e) {
          throw asStreamError(e);
        }
      },
      transform(chunk, controller) {
        guarded(() => coder().push(asBytes(chunk), (c) => controller.enqueue(c)));
      },
      flush(controller) {
        guarded(() => coder().finish((c) => controller.enqueue(c)));
      },
    },
    byteStrategy(),
    byteStrategy(),
  );
}

/** @internal */
export function decryptStream(
  engine: EngineRef,
  name: string,
  options?: StreamDecryptOptions,
): TransformStream<Uint8Array, Uint8Array> {
  let decoder: ChunkDecoder | undefined;
  // The envelope prefix, collected until complete (≤ 6 + 65,535 bytes).
  let prefix = new Uint8Array(0);
  let need = FIXED_PREFIX;

  const collect = async (chunk: Uint8Array): Promise<Uint8Array | undefined> => {
    const take = Math.min(need - prefix.length, chunk.length);
    const grown = new Uint8Array(prefix.length + take);
    grown.set(prefix, 0);
    grown.set(chunk.subarray(0, take), prefix.length);
    prefix = grown;
    checkMagic(prefix);
    if (prefix.length === FIXED_PREFIX && need === FIXED_PREFIX) {
      need = prefixLength(prefix);
      return collect(chunk.subarray(take));
    }
    if (prefix.length < need) return undefined;
    const e = await engine();
    const dataKey = await unwrapDataKey(e, name, wrappedKeyOf(prefix), options);
    decoder = new ChunkDecoder(e.backend, COBBLESTONE_256, dataKey, prefix);
    return chunk.subarray(take);
  };

  return new TransformStream<Uint8Array, Uint8Array>(
    {
      // Async, so that a refusal errors the stream instead of throwing from
      // the constructor.
      async start() {
        guarded(() => checkDecryptOptions(options));
      },
      async transform(chunk, controller) {
        try {
          let data: Uint8Array | undefined = asBytes(chunk);
          if (decoder === undefined) data = await collect(data);
          if (decoder !== undefined && data !== undefined && data.length > 0) {
            decoder.push(data, (c) => controller.enqueue(c));
          }
        } catch (e) {
          throw asStreamError(e);
        }
      },
      flush(controller) {
        guarded(() => {
          if (decoder === undefined) throw truncated();
          decoder.finish((c) => controller.enqueue(c));
        });
      },
    },
    byteStrategy(),
    byteStrategy(),
  );
}
