/**
 * AES key wrap with padding (RFC 5649 / NIST SP 800-38F KWP), the second
 * layer of Vault's BYOK import blob (reference §7): the key material is
 * wrapped under an ephemeral AES-256 key that is itself RSA-OAEP-encrypted.
 *
 * Not a hot path, so one implementation serves every runtime: noble's
 * `aeskwp`. Tests cross-check it with node:crypto's `id-aes256-wrap-pad`, the
 * `openssl` CLI and the Wycheproof KWP vectors. Like Tink (which Vault uses),
 * it refuses material shorter than 16 bytes; Vault's limit is 8192 bytes.
 * @module
 */
import { aeskwp } from '@noble/ciphers/aes.js';
import { invalidRequest } from '../errors.js';

/** Smallest and largest material Vault's import accepts, in bytes. @internal */
export const KWP_LIMITS = { min: 16, max: 8192 } as const;

function checkKek(kek: Uint8Array): void {
  if (kek.length !== 16 && kek.length !== 32) {
    throw new RangeError('key wrap: the wrapping key must be 16 or 32 bytes');
  }
}

/**
 * Wrap `material` under `kek` (AES-128 or AES-256).
 * @throws RangeError for a bad key size or material outside 16..8192 bytes.
 * @internal
 */
export function keyWrapPad(kek: Uint8Array, material: Uint8Array): Uint8Array {
  checkKek(kek);
  if (material.length < KWP_LIMITS.min || material.length > KWP_LIMITS.max) {
    throw new RangeError(`key wrap: material must be ${KWP_LIMITS.min} to ${KWP_LIMITS.max} bytes`);
  }
  return aeskwp(kek).encrypt(material);
}

/**
 * Unwrap; any integrity failure is one `invalid_request` with no detail.
 * @throws TransitError `invalid_request` when the wrapped data does not authenticate.
 * @internal
 */
export function keyUnwrapPad(kek: Uint8Array, wrapped: Uint8Array): Uint8Array {
  checkKek(kek);
  let out: Uint8Array;
  try {
    out = aeskwp(kek).decrypt(wrapped);
  } catch {
    throw invalidRequest('failed to unwrap the key material: integrity check failed');
  }
  if (out.length < KWP_LIMITS.min || out.length > KWP_LIMITS.max) {
    throw invalidRequest(
      `unwrapped key material must be ${KWP_LIMITS.min} to ${KWP_LIMITS.max} bytes`,
    );
  }
  return out;
}
