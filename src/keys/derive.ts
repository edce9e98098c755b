/**
 * Per-request key derivation and convergent nonces (reference §2, §3).
 *
 * - `kdf: 1` (HKDF-SHA256, empty salt, context as info) for every key made here;
 * - `kdf: 0` (the legacy HMAC-SHA256 counter KDF) so that restored old keys
 *   still decrypt; it always yields 256 bits, as Vault's does;
 * - convergent v3: HKDF output `encKey ‖ hmacKey`, nonce = HMAC-SHA256(hmacKey, plaintext);
 *   v2: nonce = HMAC-SHA256(context, plaintext); v1: caller-supplied nonce.
 * @module
 */
import type { CryptoBackend } from '../crypto/backend.js';
import { counterKdfSha256, hkdfSha256 } from '../crypto/kdf.js';
import { invalidRequest } from '../errors.js';
import type { KeyPolicy } from './policy.js';

/** Vault's message for a derived key used without a context. @internal */
export const MISSING_CONTEXT =
  "missing 'context' for key derivation; the key was created using a derived key, which means additional, per-request information must be included in order to perform operations with the key";

/** Derived material for one request: the encryption key and, for convergent v3, the nonce key. @internal */
export interface DerivedKey {
  key: Uint8Array;
  nonceKey?: Uint8Array;
}

/**
 * The key to use for `versionKey` under `context` (non-derived keys ignore context).
 * @internal
 */
export function deriveKey(
  backend: CryptoBackend,
  p: KeyPolicy,
  versionKey: Uint8Array,
  keyBytes: number,
  context: Uint8Array,
  convergentVersion: number,
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
    const okm = hkdfSha256(backend, versionKey, context, keyBytes + 32);
    return { key: okm.subarray(0, keyBytes), nonceKey: okm.subarray(keyBytes, keyBytes + 32) };
  }
  return { key: hkdfSha256(backend, versionKey, context, keyBytes) };
}

/** The deterministic nonce of convergent v2/v3. @internal */
export function convergentNonce(
  backend: CryptoBackend,
  version: number,
  derived: DerivedKey,
  context: Uint8Array,
  plaintext: Uint8Array,
  nonceBytes: number,
): Uint8Array {
  const key = version === 3 ? derived.nonceKey : context;
  if (!key) throw invalidRequest('convergent nonce key unavailable');
  return backend.hmac('sha256', key, plaintext).subarray(0, nonceBytes);
}
