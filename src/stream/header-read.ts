/**
 * The reading behind `readEnvelopeHeader` (`./header.ts`): two reads at the
 * start of the source, the envelope's own checks, the version of the wrapped
 * key. Loaded on first use, so the core's eager code does not grow with it.
 * @module
 */
import { badEnvelope, checkMagic, FIXED_PREFIX, prefixLength, wrappedKeyOf } from './envelope.js';
import type { EnvelopeHeader } from './header.js';
import { byteSource, type RandomAccessSource, type ReadAtSource } from './source.js';

/**
 * `<prefix>:v<N>:<body>`: the prefix as `TransitOptions.prefix` allows it, the
 * version as transit's ciphertext parser reads it (1–15 digits).
 */
const WRAPPED = /^[A-Za-z0-9_-]{1,32}:v([0-9]{1,15}):./s;

/** A byte array as a source (a view per read, no copy). */
const bytesSource = (bytes: Uint8Array): ReadAtSource => ({
  size: bytes.length,
  read: async (offset, length) => bytes.subarray(offset, offset + length),
});

const shortHeader = (needed: number, got: number) =>
  badEnvelope(`the header takes ${needed} bytes, the source holds ${got}`);

/** `readEnvelopeHeader` (`./header.ts`), loaded on first use. @internal */
export async function readHeader(source: RandomAccessSource | Uint8Array): Promise<EnvelopeHeader> {
  const src = byteSource(source instanceof Uint8Array ? bytesSource(source) : source);
  const total = await src.size();
  const fixed = await src.read(0, Math.min(total, FIXED_PREFIX));
  checkMagic(fixed);
  if (total < FIXED_PREFIX) throw shortHeader(FIXED_PREFIX, total);
  const headerLength = prefixLength(fixed);
  if (total < headerLength) throw shortHeader(headerLength, total);
  const prefix = new Uint8Array(headerLength);
  prefix.set(fixed, 0);
  prefix.set(await src.read(FIXED_PREFIX, headerLength - FIXED_PREFIX), FIXED_PREFIX);
  const wrappedKey = wrappedKeyOf(prefix);
  const keyVersion = Number(WRAPPED.exec(wrappedKey)?.[1] ?? 0);
  if (keyVersion < 1) throw badEnvelope('the wrapped key is not a transit ciphertext');
  return { keyVersion, wrappedKey, headerLength };
}
