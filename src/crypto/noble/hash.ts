/**
 * Digest, HMAC (RFC 2104) and HKDF (RFC 5869) over `@noble/hashes`, for every
 * {@link HashName}: SHA-1, SHA-2 (224/256/384/512) and SHA-3 (FIPS 202).
 *
 * Also used by the node backend for HKDF with an `info` longer than the
 * 1024 bytes node:crypto's `hkdfSync` accepts.
 *
 * @module
 */
import { hkdf } from '@noble/hashes/hkdf.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha1 } from '@noble/hashes/legacy.js';
import { sha224, sha256, sha384, sha512 } from '@noble/hashes/sha2.js';
import { sha3_224, sha3_256, sha3_384, sha3_512 } from '@noble/hashes/sha3.js';
import type { CHash } from '@noble/hashes/utils.js';
import type { HashName } from '../backend.js';
import { assertBytes, checkHkdf, hashLength } from './params.js';

/** The noble implementation of each hash name. @internal */
export const NOBLE_HASHES: Readonly<Record<HashName, CHash>> = {
  sha1,
  sha224,
  sha256,
  sha384,
  sha512,
  'sha3-224': sha3_224,
  'sha3-256': sha3_256,
  'sha3-384': sha3_384,
  'sha3-512': sha3_512,
};

/**
 * Message digest.
 * @throws RangeError for an unknown hash; TypeError for non-byte data.
 * @internal
 */
export function nobleDigest(hash: HashName, data: Uint8Array): Uint8Array {
  hashLength(hash);
  assertBytes(data, 'digest: data');
  return NOBLE_HASHES[hash](data);
}

/**
 * HMAC with any key length (long keys are hashed, as RFC 2104 says).
 * @throws RangeError for an unknown hash; TypeError for non-byte inputs.
 * @internal
 */
export function nobleHmac(hash: HashName, key: Uint8Array, data: Uint8Array): Uint8Array {
  hashLength(hash);
  assertBytes(key, 'hmac: key');
  assertBytes(data, 'hmac: data');
  return hmac(NOBLE_HASHES[hash], key, data);
}

/**
 * HKDF extract-and-expand; an empty salt means HashLen zero bytes (RFC 5869
 * §2.2), which is what an empty HMAC key is equivalent to.
 * @throws RangeError for an unknown hash or `length` > 255·HashLen.
 * @internal
 */
export function nobleHkdf(
  hash: HashName,
  ikm: Uint8Array,
  salt: Uint8Array,
  info: Uint8Array,
  length: number,
): Uint8Array {
  checkHkdf(hash, ikm, salt, info, length);
  return hkdf(NOBLE_HASHES[hash], ikm, salt, info, length);
}
