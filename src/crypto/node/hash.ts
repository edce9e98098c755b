/**
 * Digest, HMAC and HKDF over node:crypto (OpenSSL) for every `HashName`.
 * node:crypto's names are exactly our `HashName`s (`sha256`, `sha3-256`, …).
 *
 * HKDF: `hkdfSync` refuses an `info` longer than 1024 bytes (an OpenSSL
 * limit); such calls are delegated to noble's HKDF so both backends accept the
 * same inputs and return the same bytes.
 *
 * @module
 */
import { createHash, createHmac, hkdfSync } from 'node:crypto';
import type { HashName, TextEncodingName } from '../backend.js';
import { nobleHkdf } from '../noble/hash.js';
import { assertBytes, checkHkdf, hashLength } from '../noble/params.js';
import { ownedBytes } from './bytes.js';

/** Longest `info` node:crypto's `hkdfSync` accepts, in bytes. */
const NODE_HKDF_MAX_INFO = 1024;

/**
 * Message digest.
 * @throws RangeError for an unknown hash; TypeError for non-byte data.
 * @internal
 */
export function nodeDigest(hash: HashName, data: Uint8Array): Uint8Array {
  hashLength(hash);
  assertBytes(data, 'digest: data');
  return ownedBytes(createHash(hash).update(data).digest());
}

/** The hash of `parts` in turn as `encoding` (the digest and HMAC text forms). */
function textOf(
  h: { update(p: Uint8Array | string): unknown; digest(e: TextEncodingName): string },
  parts: readonly (Uint8Array | string)[],
  encoding: TextEncodingName,
  label: string,
): string {
  if (encoding !== 'hex' && encoding !== 'base64') {
    throw new RangeError(`unsupported encoding ${JSON.stringify(String(encoding))}`);
  }
  for (const p of parts) {
    if (typeof p !== 'string') assertBytes(p, label);
    h.update(p); // a string as UTF-8 (lone surrogates as U+FFFD, as TextEncoder)
  }
  return h.digest(encoding);
}

/**
 * A digest as hex or base64, encoded by OpenSSL's call.
 * @throws RangeError for an unknown hash or encoding; TypeError for a part that is neither bytes nor a string.
 * @internal
 */
export function nodeDigestText(
  hash: HashName,
  parts: readonly (Uint8Array | string)[],
  encoding: TextEncodingName,
): string {
  hashLength(hash);
  return textOf(createHash(hash), parts, encoding, 'digest: part');
}

/**
 * An HMAC as hex or base64, encoded by OpenSSL's call.
 * @throws RangeError for an unknown hash or encoding; TypeError for a non-byte key or part.
 * @internal
 */
export function nodeHmacText(
  hash: HashName,
  key: Uint8Array,
  parts: readonly (Uint8Array | string)[],
  encoding: TextEncodingName,
): string {
  hashLength(hash);
  assertBytes(key, 'hmac: key');
  return textOf(createHmac(hash, key), parts, encoding, 'hmac: part');
}

/**
 * HMAC with any key length.
 * @throws RangeError for an unknown hash; TypeError for non-byte inputs.
 * @internal
 */
export function nodeHmac(hash: HashName, key: Uint8Array, data: Uint8Array): Uint8Array {
  hashLength(hash);
  assertBytes(key, 'hmac: key');
  assertBytes(data, 'hmac: data');
  return ownedBytes(createHmac(hash, key).update(data).digest());
}

/**
 * HKDF extract-and-expand (RFC 5869); an empty salt means HashLen zero bytes.
 * @throws RangeError for an unknown hash or `length` > 255·HashLen.
 * @internal
 */
export function nodeHkdf(
  hash: HashName,
  ikm: Uint8Array,
  salt: Uint8Array,
  info: Uint8Array,
  length: number,
): Uint8Array {
  checkHkdf(hash, ikm, salt, info, length);
  if (info.length > NODE_HKDF_MAX_INFO) return nobleHkdf(hash, ikm, salt, info, length);
  return new Uint8Array(hkdfSync(hash, ikm, salt, info, length));
}
