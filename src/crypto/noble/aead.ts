/**
 * AEAD seal/open over `@noble/ciphers`: AES-GCM (128/256), ChaCha20-Poly1305
 * (RFC 8439) and XChaCha20-Poly1305 (draft-irtf-cfrg-xchacha).
 *
 * Output is `ciphertext ‖ tag(16)`, as noble produces it. Parameters are
 * checked up front (`params.ts`) because noble is more permissive than our
 * contract: it accepts AES-192 keys and GCM nonces of 8+ bytes.
 *
 * Also used by the node backend for XChaCha20-Poly1305, which node:crypto lacks.
 *
 * @module
 */
import { gcm } from '@noble/ciphers/aes.js';
import { chacha20poly1305, xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import { type AeadAlgorithm, AeadAuthError } from '../backend.js';
import { assertBytes, assertRoom, checkAead, checkSealed } from './params.js';

/** One noble cipher constructor per algorithm (same call shape for all three). */
const CIPHERS = {
  'aes-gcm': gcm,
  'chacha20-poly1305': chacha20poly1305,
  'xchacha20-poly1305': xchacha20poly1305,
} as const satisfies Record<AeadAlgorithm, unknown>;

/**
 * Encrypts and authenticates `plaintext`; returns `ciphertext ‖ tag(16)`.
 * @throws RangeError / TypeError for bad parameters (see `params.ts`).
 * @internal
 */
export function nobleAeadSeal(
  alg: AeadAlgorithm,
  key: Uint8Array,
  nonce: Uint8Array,
  plaintext: Uint8Array,
  aad?: Uint8Array,
): Uint8Array {
  checkAead(alg, key, nonce, aad);
  assertBytes(plaintext, alg, 'plaintext');
  return CIPHERS[alg](key, nonce, aad).encrypt(plaintext);
}

/**
 * Encrypts `plaintext` into `out` at `offset` (no associated data); returns
 * the bytes written. noble's AES-GCM has no output argument, so this copies
 * its result (negligible next to the cipher itself in pure JS).
 * @throws RangeError / TypeError for bad parameters or an `out` too small.
 * @internal
 */
export function nobleAeadSealInto(
  alg: AeadAlgorithm,
  key: Uint8Array,
  nonce: Uint8Array,
  plaintext: Uint8Array,
  out: Uint8Array,
  offset: number,
): number {
  const sealed = nobleAeadSeal(alg, key, nonce, plaintext);
  assertRoom(alg, out, offset, sealed.length);
  out.set(sealed, offset);
  return sealed.length;
}

/**
 * Verifies and decrypts `ciphertext ‖ tag(16)`.
 * @throws AeadAuthError when the tag does not verify; RangeError / TypeError
 *   for bad parameters.
 * @internal
 */
export function nobleAeadOpen(
  alg: AeadAlgorithm,
  key: Uint8Array,
  nonce: Uint8Array,
  sealed: Uint8Array,
  aad?: Uint8Array,
): Uint8Array {
  checkAead(alg, key, nonce, aad);
  checkSealed(alg, sealed);
  const cipher = CIPHERS[alg](key, nonce, aad);
  try {
    return cipher.decrypt(sealed);
  } catch (e) {
    // Parameters were validated above, so noble's remaining failure is the
    // tag check (a plain Error, "invalid tag"). Argument errors still pass
    // through unchanged rather than being disguised as an auth failure.
    if (e instanceof TypeError || e instanceof RangeError) throw e;
    throw new AeadAuthError();
  }
}
