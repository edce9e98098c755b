/**
 * The TKS1 envelope (docs/stream-format.md):
 *
 * ```
 * "TKS1"            4 bytes, magic and version
 * len               2 bytes, big-endian length of the next field
 * wrapped data key  len bytes, UTF-8 transit ciphertext ("vault:v<N>:…")
 * Cobblestone-256   salt ‖ commitment ‖ chunks; input key = the data key,
 *                   context = every byte of the envelope before it
 * ```
 * Binding the prefix as the Cobblestone context means a swapped, re-wrapped
 * or edited wrapped key fails the commitment check before any chunk.
 * @module
 */
import { utf8 } from '../encoding.js';
import { invalidRequest } from '../errors.js';

/** `"TKS1"`. @internal */
export const MAGIC = /* @__PURE__ */ utf8('TKS1');
/** Magic and length field. @internal */
export const FIXED_PREFIX = 6;
/** The wrapped key's length field is 16 bits. */
const MAX_WRAPPED = 0xffff;

const strictUtf8 = /* @__PURE__ */ new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The envelope refusal every malformed prefix gets. @internal */
export const badEnvelope = (why: string) => invalidRequest(`stream: not a TKS1 envelope (${why})`);

/**
 * `"TKS1" ‖ BE16(len) ‖ wrapped`: the envelope prefix, also the Cobblestone context.
 * @internal
 */
export function envelopePrefix(wrapped: string): Uint8Array {
  const bytes = utf8(wrapped);
  if (bytes.length === 0 || bytes.length > MAX_WRAPPED) {
    throw invalidRequest('stream: the wrapped data key does not fit the envelope');
  }
  const out = new Uint8Array(FIXED_PREFIX + bytes.length);
  out.set(MAGIC, 0);
  out[4] = bytes.length >>> 8;
  out[5] = bytes.length & 0xff;
  out.set(bytes, FIXED_PREFIX);
  return out;
}

/**
 * Check the magic of the first bytes seen (as soon as there are any), so a
 * stream that is not an envelope fails at once.
 * @throws TransitError `invalid_request`.
 * @internal
 */
export function checkMagic(start: Uint8Array): void {
  const n = Math.min(start.length, MAGIC.length);
  for (let i = 0; i < n; i++) {
    if (start[i] !== MAGIC[i]) throw badEnvelope('bad magic');
  }
}

/**
 * The total prefix length announced by the first six bytes.
 * @throws TransitError `invalid_request` for a bad magic or an empty wrapped key.
 * @internal
 */
export function prefixLength(fixed: Uint8Array): number {
  checkMagic(fixed);
  const len = ((fixed[4] ?? 0) << 8) | (fixed[5] ?? 0);
  if (len === 0) throw badEnvelope('empty wrapped key');
  return FIXED_PREFIX + len;
}

/**
 * The wrapped data key of a complete prefix, as a string.
 * @throws TransitError `invalid_request` when it is not UTF-8.
 * @internal
 */
export function wrappedKeyOf(prefix: Uint8Array): string {
  try {
    return strictUtf8.decode(prefix.subarray(FIXED_PREFIX));
  } catch {
    throw badEnvelope('the wrapped key is not UTF-8');
  }
}
