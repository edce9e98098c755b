/**
 * `openEncrypted`: a TKS1 envelope held by a random-access source, opened for
 * range reads. Two source reads open it (the fixed prefix, then the wrapped
 * key with the Cobblestone header); the data key is unwrapped through transit
 * decrypt; {@link ChunkReader} serves the ranges.
 * @module
 */
import { TransitError } from '../errors.js';
import type { Engine } from '../transit/engine.js';
import { asStreamError, COBBLESTONE_256, HEADER_SIZE, truncated } from './cobblestone.js';
import { type StreamDecryptOptions, unwrapDataKey } from './data-key.js';
import { FIXED_PREFIX, prefixLength, wrappedKeyOf } from './envelope.js';
import { ChunkReader, type EncryptedObject } from './reader.js';
import { byteSource, type RandomAccessSource } from './source.js';

/**
 * Every failure of a reader as a TransitError; once the engine it was opened
 * on is closed (a node's seal), its key is wiped and every call is `sealed`.
 */
function guardedObject(inner: ChunkReader, e: Engine): EncryptedObject {
  const sealedNow = (): Promise<never> | undefined => {
    if (!e.state.closed) return undefined;
    inner.wipe();
    return Promise.reject(new TransitError('sealed', 'the transit engine is closed'));
  };
  // A call in flight across the seal answers `sealed` too, whatever it met
  // (another call may have wiped the key under it: no "tampered" answer).
  const settle = <T>(p: Promise<T>): Promise<T> =>
    p.then(
      (value) => sealedNow() ?? value,
      (err: unknown) => sealedNow() ?? Promise.reject(asStreamError(err)),
    );
  return {
    plaintextSize: () => sealedNow() ?? settle(inner.plaintextSize()),
    read: (offset, length) => sealedNow() ?? settle(inner.read(offset, length)),
  };
}

/** @internal */
export async function openEncrypted(
  e: Engine,
  name: string,
  source: RandomAccessSource,
  options?: StreamDecryptOptions,
): Promise<EncryptedObject> {
  try {
    const src = byteSource(source);
    const total = await src.size();
    if (total < FIXED_PREFIX) throw truncated();
    // A copy: a source may hand out a view of one buffer it reuses on the next read.
    const fixed = (await src.read(0, FIXED_PREFIX)).slice();
    const prefixEnd = prefixLength(fixed);
    if (total < prefixEnd + HEADER_SIZE) throw truncated();
    const rest = await src.read(FIXED_PREFIX, prefixEnd - FIXED_PREFIX + HEADER_SIZE);
    const prefix = new Uint8Array(prefixEnd);
    prefix.set(fixed, 0);
    prefix.set(rest.subarray(0, prefixEnd - FIXED_PREFIX), FIXED_PREFIX);
    const dataKey = await unwrapDataKey(e, name, wrappedKeyOf(prefix), options);
    const reader = ChunkReader.fromHeader(
      e.backend,
      COBBLESTONE_256,
      dataKey,
      prefix,
      rest.subarray(prefixEnd - FIXED_PREFIX),
      src,
      prefixEnd,
      total,
    );
    return guardedObject(reader, e);
  } catch (err) {
    throw asStreamError(err);
  }
}
