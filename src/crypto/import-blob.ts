/**
 * Vault's BYOK blob (reference §7), the format of `import`, `import_version`
 * and `byok-export`:
 *
 * ```
 * blob = RSA-OAEP(H, MGF1(H), label "")(ephemeral AES-256 key)   // modulus-sized; 512 bytes for the wrapping key
 *      ‖ AES-KWP(ephemeral key, key material)                    // RFC 5649
 * ```
 *
 * with H one of SHA1, SHA224, SHA256 (default), SHA384, SHA512, named as
 * Vault names them (case-insensitive). Unwrapping answers every RSA failure
 * (wrong key, wrong hash, tampering) with one message, so the caller learns
 * nothing about the padding; the ephemeral key is zeroed after use.
 * Backend-agnostic: RSA goes through the {@link CryptoBackend}, KWP through
 * `./keywrap.ts`.
 * @module
 */
import { invalidRequest } from '../errors.js';
import type { OaepHash, RsaPrivateKey, RsaPublicKey } from './asymmetric-backend.js';
import type { CryptoBackend } from './backend.js';
import { keyUnwrapPad, keyWrapPad } from './keywrap.js';

/** Length of the RSA-wrapped ephemeral key in an import blob (a 4096-bit wrapping key). @internal */
export const WRAPPED_KEY_BYTES = 512;

/** Length of the ephemeral AES key. */
const EPHEMERAL_BYTES = 32;

const HASHES: Readonly<Record<string, OaepHash>> = {
  SHA1: 'sha1',
  SHA224: 'sha224',
  SHA256: 'sha256',
  SHA384: 'sha384',
  SHA512: 'sha512',
};

/**
 * The OAEP hash of a Vault `hash_function` / `hash` value (default SHA256).
 * @throws TransitError `invalid_request` `unknown hash function: <h>`.
 * @internal
 */
export function importHash(value: unknown): OaepHash {
  if (value === undefined || value === null || value === '') return 'sha256';
  if (typeof value !== 'string') throw invalidRequest('hash function must be a string');
  const h = HASHES[value.toUpperCase()];
  if (!h) throw invalidRequest(`unknown hash function: ${value}`);
  return h;
}

/**
 * Wrap `material` for the holder of `publicKey` (byok-export, and tests).
 * @throws RangeError when the material is outside KWP's 16..8192 bytes.
 * @internal
 */
export async function wrapImportBlob(
  b: CryptoBackend,
  publicKey: RsaPublicKey,
  hash: OaepHash,
  material: Uint8Array,
): Promise<Uint8Array> {
  const ephemeral = b.randomBytes(EPHEMERAL_BYTES);
  try {
    const wrappedKey = await b.rsaOaepEncrypt(publicKey, hash, ephemeral);
    const wrapped = keyWrapPad(ephemeral, material);
    const out = new Uint8Array(wrappedKey.length + wrapped.length);
    out.set(wrappedKey, 0);
    out.set(wrapped, wrappedKey.length);
    return out;
  } finally {
    ephemeral.fill(0);
  }
}

/**
 * Unwrap an import blob with the wrapping key: the key material.
 * @throws TransitError `invalid_request` for a short blob, any RSA-OAEP
 * failure (one message), an ephemeral key that is not 256-bit, or material
 * that does not authenticate.
 * @internal
 */
export async function unwrapImportBlob(
  b: CryptoBackend,
  privateKey: RsaPrivateKey,
  hash: OaepHash,
  blob: Uint8Array,
): Promise<Uint8Array> {
  if (blob.length <= WRAPPED_KEY_BYTES) throw invalidRequest('provided ciphertext is too short');
  let ephemeral: Uint8Array;
  try {
    ephemeral = await b.rsaOaepDecrypt(privateKey, hash, blob.subarray(0, WRAPPED_KEY_BYTES));
  } catch {
    throw invalidRequest(
      'failed to decrypt the wrapped ephemeral key: wrong wrapping key, hash_function or ciphertext',
    );
  }
  try {
    if (ephemeral.length !== EPHEMERAL_BYTES) {
      throw invalidRequest('expected ephemeral AES key to be 256-bit');
    }
    return keyUnwrapPad(ephemeral, blob.subarray(WRAPPED_KEY_BYTES));
  } finally {
    ephemeral.fill(0);
  }
}
