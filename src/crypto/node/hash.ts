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
import { Buffer } from 'node:buffer';
import * as nodeCrypto from 'node:crypto';
import { createHash, createHmac, hkdfSync } from 'node:crypto';
import type { HashName, TextEncodingName } from '../backend.js';
import { nobleHkdf } from '../noble/hash.js';
import { assertBytes, checkHkdf, checkTextEncoding, hashLength } from '../noble/params.js';
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
  checkTextEncoding(encoding);
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
  return (
    oneShotText(hash, parts, encoding) ?? textOf(createHash(hash), parts, encoding, 'digest: part')
  );
}

/** node:crypto's one-shot `hash` (Node ≥ 20.12): no Hash object, one call into OpenSSL. */
const oneShot = (
  nodeCrypto as {
    hash?: (algorithm: string, data: Uint8Array, encoding: TextEncodingName) => string;
  }
).hash;

/** Where short inputs are put together for {@link oneShot}; wiped after each use. */
const SCRATCH = new Uint8Array(1024);
const SCRATCH_BUFFER = Buffer.from(SCRATCH.buffer, SCRATCH.byteOffset, SCRATCH.byteLength);

/**
 * A short digest (a token id, an audit hash) in one call: the parts are
 * copied into one buffer and hashed at once, ≈ 0.4 µs less than a Hash
 * object. `undefined` (use the Hash object) for long inputs, an encoding
 * other than hex or base64, or a runtime without the one-shot call.
 */
function oneShotText(
  hash: HashName,
  parts: readonly (Uint8Array | string)[],
  encoding: TextEncodingName,
): string | undefined {
  if (!oneShot || (encoding !== 'hex' && encoding !== 'base64')) return undefined;
  let n = 0;
  for (const p of parts) {
    if (typeof p === 'string') {
      // At most 3 UTF-8 bytes per UTF-16 unit (a lone surrogate becomes U+FFFD, 3 bytes).
      if (n + 3 * p.length > SCRATCH.length) return wipe(n);
      n += SCRATCH_BUFFER.write(p, n, 'utf8');
    } else {
      assertBytes(p, 'digest: part');
      if (n + p.byteLength > SCRATCH.length) return wipe(n);
      SCRATCH.set(p, n);
      n += p.byteLength;
    }
  }
  try {
    return oneShot(hash, SCRATCH.subarray(0, n), encoding);
  } finally {
    SCRATCH.fill(0, 0, n);
  }
}

const wipe = (n: number): undefined => {
  SCRATCH.fill(0, 0, n);
  return undefined;
};

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
