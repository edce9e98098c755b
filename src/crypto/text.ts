/**
 * Digests and HMACs as text, on any backend: the backend's own text form
 * (`digestText` / `hmacText`, which node:crypto encodes inside its call) when
 * it has one, else its byte form over the concatenated parts, encoded here.
 * Token ids, audit hashes, `hash` and Vault's `vault:v1:` HMACs use these;
 * decrypt's base64 plaintext uses {@link aeadOpenText}, and encrypt's
 * ciphertext payload {@link aeadSealText}.
 * @module
 */
import { concatBytes, encodeBase64, encodeHex, utf8 } from '../encoding.js';
import type { AeadAlgorithm, CryptoBackend, HashName, TextEncodingName } from './backend.js';

/** Parts of a hashed input: bytes, or a string standing for its UTF-8. */
type Parts = readonly (Uint8Array | string)[];

/** The bytes `parts` stand for (one byte part as it is, no copy). */
function bytesOf(parts: Parts): Uint8Array {
  const [only] = parts;
  if (parts.length === 1 && only instanceof Uint8Array) return only;
  return concatBytes(...parts.map((p) => (typeof p === 'string' ? utf8(p) : p)));
}

const encode = (bytes: Uint8Array, encoding: TextEncodingName): string =>
  encoding === 'hex' ? encodeHex(bytes) : encodeBase64(bytes);

/** The digest of `parts` as hex or base64. @internal */
export function digestText(
  b: Pick<CryptoBackend, 'digest' | 'digestText'>,
  hash: HashName,
  parts: Parts,
  encoding: TextEncodingName,
): string {
  return b.digestText
    ? b.digestText(hash, parts, encoding)
    : encode(b.digest(hash, bytesOf(parts)), encoding);
}

/** The HMAC of `parts` under `key` as hex or base64. @internal */
export function hmacText(
  b: Pick<CryptoBackend, 'hmac' | 'hmacText'>,
  hash: HashName,
  key: Uint8Array,
  parts: Parts,
  encoding: TextEncodingName,
): string {
  return b.hmacText
    ? b.hmacText(hash, key, parts, encoding)
    : encode(b.hmac(hash, key, bytesOf(parts)), encoding);
}

/**
 * Open `sealed` and give the plaintext as hex or base64: the backend's
 * `aeadOpenText` when it has one, else `aeadOpen`'s bytes encoded here and
 * then wiped. Same errors as `aeadOpen`.
 * @internal
 */
export function aeadOpenText(
  b: Pick<CryptoBackend, 'aeadOpen' | 'aeadOpenText'>,
  alg: AeadAlgorithm,
  key: Uint8Array,
  nonce: Uint8Array,
  sealed: Uint8Array,
  aad: Uint8Array | undefined,
  encoding: TextEncodingName,
): string {
  if (b.aeadOpenText) return b.aeadOpenText(alg, key, nonce, sealed, aad, encoding);
  return encodeWiped(b.aeadOpen(alg, key, nonce, sealed, aad), encoding);
}

/**
 * Seal `plaintext` and give `nonce ‖ ciphertext ‖ tag` as hex or base64 (the
 * payload of a transit ciphertext): the backend's `aeadSealText` when it has
 * one, else `aeadSeal`'s bytes encoded here. Same errors as `aeadSeal`.
 * @internal
 */
export function aeadSealText(
  b: Pick<CryptoBackend, 'aeadSeal' | 'aeadSealText'>,
  alg: AeadAlgorithm,
  key: Uint8Array,
  nonce: Uint8Array,
  plaintext: Uint8Array,
  aad: Uint8Array | undefined,
  encoding: TextEncodingName,
): string {
  if (b.aeadSealText) return b.aeadSealText(alg, key, nonce, plaintext, aad, encoding);
  const sealed = b.aeadSeal(alg, key, nonce, plaintext, aad);
  // base64(nonce ‖ sealed) is base64(nonce) + base64(sealed) when the nonce is
  // whole 3-byte groups (12 and 24 bytes are): no copy of the sealed bytes.
  if (encoding === 'base64' && nonce.length % 3 === 0) {
    return encodeBase64(nonce) + encodeBase64(sealed);
  }
  return encode(concatBytes(nonce, sealed), encoding);
}

/**
 * `plain` as hex or base64, then zeroed: for a plaintext that leaves only as
 * text (nothing else may hold `plain`).
 * @internal
 */
export function encodeWiped(plain: Uint8Array, encoding: TextEncodingName): string {
  try {
    return encode(plain, encoding);
  } finally {
    plain.fill(0);
  }
}
