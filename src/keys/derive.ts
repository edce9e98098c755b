/**
 * Per-request key derivation and convergent nonces (reference §2, §3).
 *
 * - `kdf: 1` (HKDF-SHA256, empty salt, context as info) for every key made here;
 * - `kdf: 0` (the legacy HMAC-SHA256 counter KDF) so that restored old keys
 *   still decrypt; it always yields 256 bits, as Vault's does;
 * - convergent v3: HKDF output `encKey ‖ hmacKey`, nonce = HMAC-SHA256(hmacKey, plaintext);
 *   v2: nonce = HMAC-SHA256(context, plaintext); v1: caller-supplied nonce.
 * - convergent v3 with a non-empty AAD (our fix, README "Differences from
 *   Vault"): Vault's nonce ignores the AAD, so one plaintext and context under
 *   two AADs would share a nonce under one key (GCM then leaks its GHASH key
 *   and forgeries follow). We extend the same HKDF stream by 32 bytes,
 *   `encKey ‖ hmacKey ‖ aadNonceKey` (HKDF is prefix-stable, so `encKey` and
 *   `hmacKey` are Vault's), and take
 *   `nonce = HMAC-SHA256(aadNonceKey, "transitkit-convergent-aad-v1" ‖ BE64(len(aad)) ‖ aad ‖ plaintext)`.
 *   A key of its own keeps these nonces apart from Vault's `HMAC(hmacKey, plaintext)`
 *   (no plaintext can be chosen to collide with them); the length prefix
 *   makes the (aad, plaintext) split unambiguous. Without AAD the output is
 *   Vault's v3 exactly. The stored `convergent_version` stays 3: decryption
 *   never depends on the nonce derivation (the nonce travels in the
 *   ciphertext), and OpenBao refuses to encrypt under any other value.
 *   A legacy v2 version refuses a non-empty AAD instead (its nonce is keyed by
 *   the context alone).
 * @module
 */
import type { CryptoBackend } from '../crypto/backend.js';
import { counterKdfSha256, hkdfSha256 } from '../crypto/kdf.js';
import { concatBytes, utf8 } from '../encoding.js';
import { invalidRequest } from '../errors.js';
import type { KeyPolicy } from './policy.js';

/** Vault's message for a derived key used without a context. @internal */
export const MISSING_CONTEXT =
  "missing 'context' for key derivation; the key was created using a derived key, which means additional, per-request information must be included in order to perform operations with the key";

/** Domain label of the AAD-bound convergent v3 nonce. */
const AAD_NONCE_LABEL = /* @__PURE__ */ utf8('transitkit-convergent-aad-v1');

/**
 * Derived material for one request: the encryption key and, for convergent
 * v3, the nonce key (and the AAD nonce key when asked for). @internal
 */
export interface DerivedKey {
  key: Uint8Array;
  nonceKey?: Uint8Array;
  aadNonceKey?: Uint8Array;
}

/**
 * The key to use for `versionKey` under `context` (non-derived keys ignore context).
 * `withAadNonceKey` (convergent v3 encryption with a non-empty AAD) also
 * derives the AAD nonce key.
 * @internal
 */
export function deriveKey(
  backend: CryptoBackend,
  p: KeyPolicy,
  versionKey: Uint8Array,
  keyBytes: number,
  context: Uint8Array,
  convergentVersion: number,
  withAadNonceKey = false,
): DerivedKey {
  if (!p.derived) return { key: versionKey };
  if (context.length === 0) throw invalidRequest(MISSING_CONTEXT);
  if (p.kdf === 0) {
    const out = counterKdfSha256(backend, versionKey, context, 256);
    if (out.length !== keyBytes)
      throw invalidRequest('could not derive enc key, length not correct');
    return { key: out };
  }
  if (convergentVersion === 3) {
    const okm = hkdfSha256(backend, versionKey, context, keyBytes + (withAadNonceKey ? 64 : 32));
    return {
      key: okm.subarray(0, keyBytes),
      nonceKey: okm.subarray(keyBytes, keyBytes + 32),
      ...(withAadNonceKey ? { aadNonceKey: okm.subarray(keyBytes + 32, keyBytes + 64) } : {}),
    };
  }
  return { key: hkdfSha256(backend, versionKey, context, keyBytes) };
}

/** Whether an encryption binds its AAD into the nonce (convergent v3, non-empty AAD). @internal */
export const bindsAad = (convergentVersion: number, aad: Uint8Array): boolean =>
  convergentVersion === 3 && aad.length > 0;

/**
 * Refuse a non-empty AAD on a legacy convergent v2 version: its nonce,
 * HMAC(context, plaintext), has no key of its own to bind the AAD with, so
 * two AADs would share a nonce. (OpenBao refuses v2 altogether; rotating
 * gives a v3 version.) v1 takes the caller's nonce, so the caller decides.
 * @throws TransitError `invalid_request`.
 * @internal
 */
export function assertAadBindable(convergentVersion: number, aad: Uint8Array): void {
  if (convergentVersion === 2 && aad.length > 0) {
    throw invalidRequest(
      "'associated_data' needs convergent encryption version 3; this key version uses version 2: rotate the key",
    );
  }
}

/**
 * The deterministic nonce of convergent v2/v3; for v3 with a non-empty `aad`,
 * the AAD-bound nonce (module docs), which needs `derived.aadNonceKey`.
 * @throws TransitError `invalid_request` for a version above 3.
 * @internal
 */
export function convergentNonce(
  backend: CryptoBackend,
  version: number,
  derived: DerivedKey,
  context: Uint8Array,
  plaintext: Uint8Array,
  nonceBytes: number,
  aad: Uint8Array = new Uint8Array(0),
): Uint8Array {
  if (bindsAad(version, aad)) {
    if (!derived.aadNonceKey) throw invalidRequest('convergent nonce key unavailable');
    const length = new Uint8Array(8);
    new DataView(length.buffer).setBigUint64(0, BigInt(aad.length));
    const msg = concatBytes(AAD_NONCE_LABEL, length, aad, plaintext);
    return backend.hmac('sha256', derived.aadNonceKey, msg).subarray(0, nonceBytes);
  }
  // As OpenBao: a version this code does not know is refused, never guessed.
  if (version > 3) throw invalidRequest(`unhandled convergent version ${version}`);
  const key = version === 3 ? derived.nonceKey : context;
  if (!key) throw invalidRequest('convergent nonce key unavailable');
  return backend.hmac('sha256', key, plaintext).subarray(0, nonceBytes);
}
