/**
 * AEAD seal/open over node:crypto (OpenSSL): `aes-128-gcm`, `aes-256-gcm` and
 * `chacha20-poly1305`, all with a 16-byte tag appended (`ciphertext ‖ tag`).
 *
 * XChaCha20-Poly1305: node:crypto (OpenSSL 3) has no XChaCha20, so this
 * backend delegates it to noble's `xchacha20poly1305` (`../noble/aead.ts`).
 * Results are identical by construction and checked by the cross-backend test.
 *
 * Hot path: one output allocation per seal, not zero-filled (the update
 * output is copied once into `ciphertext ‖ tag`); open returns OpenSSL's
 * output buffer zero-copy.
 *
 * @module
 */
import { Buffer } from 'node:buffer';
import {
  type CipherChaCha20Poly1305,
  type CipherGCM,
  createCipheriv,
  createDecipheriv,
  type DecipherChaCha20Poly1305,
  type DecipherGCM,
} from 'node:crypto';
import { type AeadAlgorithm, AeadAuthError, type TextEncodingName } from '../backend.js';
import { nobleAeadOpen, nobleAeadSeal } from '../noble/aead.js';
import {
  assertBytes,
  assertRoom,
  checkAead,
  checkSealed,
  checkTextEncoding,
  TAG_LENGTH,
} from '../noble/params.js';
import { aeadOpenText, aeadSealText } from '../text.js';
import { ownedBytes } from './bytes.js';

/** The algorithms OpenSSL runs for us. */
type NodeAead = Exclude<AeadAlgorithm, 'xchacha20-poly1305'>;

const OPTIONS = { authTagLength: TAG_LENGTH } as const;

/** From this output size on, seal skips the zero-fill of its output buffer. */
const UNFILLED_FROM = 4096;

/** An OpenSSL encryptor; `checkAead` has already pinned the key length. */
function encryptor(
  alg: NodeAead,
  key: Uint8Array,
  nonce: Uint8Array,
): CipherGCM | CipherChaCha20Poly1305 {
  if (alg === 'chacha20-poly1305') return createCipheriv(alg, key, nonce, OPTIONS);
  return createCipheriv(key.length === 16 ? 'aes-128-gcm' : 'aes-256-gcm', key, nonce, OPTIONS);
}

/** An OpenSSL decryptor; `checkAead` has already pinned the key length. */
function decryptor(
  alg: NodeAead,
  key: Uint8Array,
  nonce: Uint8Array,
): DecipherGCM | DecipherChaCha20Poly1305 {
  if (alg === 'chacha20-poly1305') return createDecipheriv(alg, key, nonce, OPTIONS);
  return createDecipheriv(key.length === 16 ? 'aes-128-gcm' : 'aes-256-gcm', key, nonce, OPTIONS);
}

/**
 * Encrypts and authenticates `plaintext`; returns `ciphertext ‖ tag(16)`.
 * @throws RangeError / TypeError for bad parameters (see `../noble/params.ts`).
 * @internal
 */
export function nodeAeadSeal(
  alg: AeadAlgorithm,
  key: Uint8Array,
  nonce: Uint8Array,
  plaintext: Uint8Array,
  aad?: Uint8Array,
): Uint8Array {
  if (alg === 'xchacha20-poly1305') return nobleAeadSeal(alg, key, nonce, plaintext, aad);
  checkAead(alg, key, nonce, aad);
  assertBytes(plaintext, alg, 'plaintext');
  const cipher = encryptor(alg, key, nonce);
  if (aad !== undefined && aad.length > 0) {
    cipher.setAAD(aad, { plaintextLength: plaintext.length });
  }
  // Large outputs are not zero-filled (sealTo writes every byte, or throws);
  // small ones are cheaper as plain typed arrays.
  const n = plaintext.length + TAG_LENGTH;
  const out = n >= UNFILLED_FROM ? ownedBytes(Buffer.allocUnsafeSlow(n)) : new Uint8Array(n);
  sealTo(alg, cipher, plaintext, out, 0);
  return out;
}

/**
 * `nonce ‖ ciphertext ‖ tag(16)` as hex or base64: OpenSSL's output joined
 * once (in Node's buffer pool: the bytes are the ciphertext, public, and only
 * the text leaves) and encoded, where {@link nodeAeadSeal} would make a typed
 * array (off V8's heap past 64 bytes) and the caller encode it.
 * @throws as `nodeAeadSeal`; RangeError for another encoding.
 * @internal
 */
export function nodeAeadSealText(
  alg: AeadAlgorithm,
  key: Uint8Array,
  nonce: Uint8Array,
  plaintext: Uint8Array,
  aad: Uint8Array | undefined,
  encoding: TextEncodingName,
): string {
  checkTextEncoding(encoding);
  // XChaCha20 runs on noble: its bytes encoded by the neutral helper.
  if (alg === 'xchacha20-poly1305') {
    return aeadSealText(NOBLE_SEAL, alg, key, nonce, plaintext, aad, encoding);
  }
  checkAead(alg, key, nonce, aad);
  assertBytes(plaintext, alg, 'plaintext');
  const cipher = encryptor(alg, key, nonce);
  if (aad !== undefined && aad.length > 0) {
    cipher.setAAD(aad, { plaintextLength: plaintext.length });
  }
  const body = cipher.update(plaintext);
  const rest = cipher.final();
  if (body.length + rest.length !== plaintext.length) throw new Error(`${alg}: short output`);
  const parts = [nonce, body, rest, cipher.getAuthTag()];
  return Buffer.concat(parts, nonce.length + plaintext.length + TAG_LENGTH).toString(encoding);
}

/** Run `cipher` over `plaintext` into `out` at `offset` as `ciphertext ‖ tag`. */
function sealTo(
  alg: AeadAlgorithm,
  cipher: CipherGCM | CipherChaCha20Poly1305,
  plaintext: Uint8Array,
  out: Uint8Array,
  offset: number,
): void {
  const body = cipher.update(plaintext);
  // GCM and ChaCha20-Poly1305 are stream modes: final() yields no bytes.
  const rest = cipher.final();
  if (body.length + rest.length !== plaintext.length) throw new Error(`${alg}: short output`);
  out.set(body, offset);
  if (rest.length > 0) out.set(rest, offset + body.length);
  out.set(cipher.getAuthTag(), offset + plaintext.length);
}

/**
 * Encrypts `plaintext` into `out` at `offset` as `ciphertext ‖ tag(16)` (no
 * associated data); returns the bytes written. One copy of OpenSSL's output,
 * as {@link nodeAeadSeal}, but no allocation of the sealed result.
 * @throws RangeError / TypeError for bad parameters or an `out` too small.
 * @internal
 */
export function nodeAeadSealInto(
  alg: AeadAlgorithm,
  key: Uint8Array,
  nonce: Uint8Array,
  plaintext: Uint8Array,
  out: Uint8Array,
  offset: number,
): number {
  const n = plaintext.length + TAG_LENGTH;
  assertRoom(alg, out, offset, n);
  if (alg === 'xchacha20-poly1305') {
    out.set(nobleAeadSeal(alg, key, nonce, plaintext), offset);
    return n;
  }
  checkAead(alg, key, nonce, undefined);
  assertBytes(plaintext, alg, 'plaintext');
  sealTo(alg, encryptor(alg, key, nonce), plaintext, out, offset);
  return n;
}

/**
 * Encrypts `plaintext` (no associated data) into `[ciphertext, tag(16)]`:
 * OpenSSL's own output buffers, no copy.
 * @throws RangeError / TypeError for bad parameters.
 * @internal
 */
export function nodeAeadSealParts(
  alg: AeadAlgorithm,
  key: Uint8Array,
  nonce: Uint8Array,
  plaintext: Uint8Array,
): [ciphertext: Uint8Array, tag: Uint8Array] {
  if (alg === 'xchacha20-poly1305') {
    const sealed = nobleAeadSeal(alg, key, nonce, plaintext);
    const n = sealed.length - TAG_LENGTH;
    return [sealed.subarray(0, n), sealed.subarray(n)];
  }
  checkAead(alg, key, nonce, undefined);
  assertBytes(plaintext, alg, 'plaintext');
  const cipher = encryptor(alg, key, nonce);
  const body = cipher.update(plaintext);
  // GCM and ChaCha20-Poly1305 are stream modes: final() yields no bytes.
  if (cipher.final().length !== 0 || body.length !== plaintext.length) {
    throw new Error(`${alg}: short output`);
  }
  return [body, cipher.getAuthTag()];
}

/**
 * Verifies and decrypts `ciphertext ‖ tag(16)`. No plaintext is returned (and
 * the partial output is wiped) unless the tag verifies.
 * @throws AeadAuthError when the tag does not verify; RangeError / TypeError
 *   for bad parameters.
 * @internal
 */
export function nodeAeadOpen(
  alg: AeadAlgorithm,
  key: Uint8Array,
  nonce: Uint8Array,
  sealed: Uint8Array,
  aad?: Uint8Array,
): Uint8Array {
  if (alg === 'xchacha20-poly1305') return nobleAeadOpen(alg, key, nonce, sealed, aad);
  return ownedBytes(openNode(alg, key, nonce, sealed, aad));
}

/**
 * {@link nodeAeadOpen} as hex or base64: OpenSSL's output buffer is encoded
 * as it is (no view, no copy) and wiped once encoded.
 * @throws as `nodeAeadOpen`; RangeError for another encoding.
 * @internal
 */
export function nodeAeadOpenText(
  alg: AeadAlgorithm,
  key: Uint8Array,
  nonce: Uint8Array,
  sealed: Uint8Array,
  aad: Uint8Array | undefined,
  encoding: TextEncodingName,
): string {
  checkTextEncoding(encoding);
  // XChaCha20 runs on noble: its bytes encoded and wiped by the neutral helper.
  if (alg === 'xchacha20-poly1305') {
    return aeadOpenText(NOBLE_OPEN, alg, key, nonce, sealed, aad, encoding);
  }
  const body = openNode(alg, key, nonce, sealed, aad);
  try {
    return body.toString(encoding);
  } finally {
    body.fill(0);
  }
}

/** noble's seal and open, for the one algorithm this backend delegates to it. */
const NOBLE_SEAL = { aeadSeal: nobleAeadSeal };
const NOBLE_OPEN = { aeadOpen: nobleAeadOpen };

/** Open with OpenSSL: its output buffer, once the tag has verified. */
function openNode(
  alg: NodeAead,
  key: Uint8Array,
  nonce: Uint8Array,
  sealed: Uint8Array,
  aad: Uint8Array | undefined,
): Buffer {
  checkAead(alg, key, nonce, aad);
  checkSealed(alg, sealed);
  const ctLength = sealed.length - TAG_LENGTH;
  const decipher = decryptor(alg, key, nonce);
  decipher.setAuthTag(sealed.subarray(ctLength));
  if (aad !== undefined && aad.length > 0) decipher.setAAD(aad, { plaintextLength: ctLength });
  const body = decipher.update(sealed.subarray(0, ctLength));
  try {
    decipher.final();
  } catch {
    // OpenSSL's only failure left after validation: "unable to authenticate data".
    body.fill(0);
    throw new AeadAuthError();
  }
  return body;
}
