/**
 * The stream coders: the whole of `encryptStream` / `decryptStream` as
 * push-driven state machines, with no stream machinery of their own.
 * `transforms.ts` wraps each in a WHATWG `TransformStream`; the Node HTTP
 * binding drives the same coder straight from the request's `data` events
 * into the response (no promise per chunk), through {@link coderOf}.
 *
 * Encrypt: {@link ByteCoder.start} wraps a fresh data key under the named
 * key and yields the whole envelope header (prefix ‖ salt ‖ commitment), so
 * any failure before it (unknown key, a key that cannot encrypt, a missing
 * context) comes before the first byte. Chunks follow from `push`/`finish`.
 *
 * Decrypt: the prefix is collected, the data key unwrapped through transit
 * decrypt (the one asynchronous `push`), then {@link ChunkDecoder} releases
 * each chunk's plaintext only once it authenticates. Tamper, truncation,
 * reordering, trailing data, a bad header or a key that does not unwrap
 * throw; nothing is released past them.
 * @module
 */
import { TransitError } from '../errors.js';
import type { Engine } from '../transit/engine.js';
import { asBytes, ChunkDecoder, ChunkEncoder, type Emit, type Output } from './chunker.js';
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

/**
 * One stream's coder. Calls come in order: `start` once (its promise is
 * shared: every caller gets the same first bytes or the same failure), then
 * `push` for each input piece — awaiting it when it returns a promise
 * before the next — then `finish` once. Every failure is a TransitError.
 * @internal
 */
export interface ByteCoder {
  /** Ready to take input; resolves with the bytes to send first, if any. */
  start(): Promise<Uint8Array | undefined>;
  /**
   * One input piece; output goes to `emit` as it is produced. Encrypt gathers
   * each push's chunks into one piece made by `output` when it is an
   * allocator (fresh memory by default), or with `'each'` emits every chunk's
   * ciphertext and tag as the backend made them; decrypt always emits each
   * chunk's plaintext as the backend made it.
   */
  push(piece: unknown, emit: Emit, output?: Output): void | Promise<void>;
  /** The input ended. */
  finish(emit: Emit): void;
}

/**
 * Refuse a step once the engine the stream started on is closed (a node's
 * seal): `wipe` zeroes what the stream holds of the key first, so nothing
 * made before the seal encrypts or releases plaintext after it.
 */
function refuseIfClosed(e: Engine | undefined, wipe: () => void): void {
  if (e?.state.closed) {
    wipe();
    throw new TransitError('sealed', 'the transit engine is closed');
  }
}

/** Run a step; any failure leaves as a TransitError. */
function guarded<T>(step: () => T): T {
  try {
    return step();
  } catch (e) {
    throw asStreamError(e);
  }
}

/** `start` memoised: the first call runs it, every call shares its promise. */
function once<T>(run: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | undefined;
  return () => {
    p ??= run().catch((e: unknown) => {
      throw asStreamError(e);
    });
    return p;
  };
}

/** The coder of `encryptStream`. @internal */
export function encryptCoder(
  engine: EngineRef,
  name: string,
  options?: StreamEncryptOptions,
): ByteCoder {
  let encoder: ChunkEncoder | undefined;
  let on: Engine | undefined;
  const coder = (): ChunkEncoder => {
    if (encoder === undefined) throw new TransitError('internal', 'stream: not started');
    refuseIfClosed(on, () => encoder?.wipe());
    return encoder;
  };
  return {
    start: once(async () => {
      const e = await engine();
      on = e;
      const { dataKey, wrapped } = await wrapDataKey(e, name, options);
      const prefix = envelopePrefix(wrapped);
      const { header, cipher } = startMessage(e.backend, COBBLESTONE_256, dataKey, prefix);
      dataKey.fill(0);
      encoder = new ChunkEncoder(cipher);
      const first = new Uint8Array(prefix.length + header.length);
      first.set(prefix, 0);
      first.set(header, prefix.length);
      return first;
    }),
    push(piece, emit, output) {
      guarded(() => coder().push(asBytes(piece), emit, output));
    },
    finish(emit) {
      guarded(() => coder().finish(emit));
    },
  };
}

/** The coder of `decryptStream`. @internal */
export function decryptCoder(
  engine: EngineRef,
  name: string,
  options?: StreamDecryptOptions,
): ByteCoder {
  let decoder: ChunkDecoder | undefined;
  let on: Engine | undefined;
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
    on = e;
    decoder = new ChunkDecoder(e.backend, COBBLESTONE_256, dataKey, prefix);
    return chunk.subarray(take);
  };
  const decode = (data: Uint8Array, emit: Emit): void => {
    refuseIfClosed(on, () => decoder?.wipe());
    if (decoder !== undefined && data.length > 0) decoder.push(data, emit);
  };

  return {
    start: once(async () => {
      checkDecryptOptions(options);
      return undefined;
    }),
    push(piece, emit) {
      const data = guarded(() => asBytes(piece));
      if (decoder !== undefined) return guarded(() => decode(data, emit));
      return collect(data).then(
        (rest) => {
          if (rest !== undefined) guarded(() => decode(rest, emit));
        },
        (e: unknown) => {
          throw asStreamError(e);
        },
      );
    },
    finish(emit) {
      guarded(() => {
        if (decoder === undefined) throw truncated();
        refuseIfClosed(on, () => decoder?.wipe());
        decoder.finish(emit);
      });
    },
  };
}
