/**
 * Request and response shapes of key mobility: BYOK import, import_version,
 * the wrapping key and byok-export (spec "Key management"; reference §7).
 * Field names are the HTTP API's, as in `./types.ts`.
 * @module
 */
import type { BinaryInput } from '../encoding.js';
import type { KeyType } from '../keys/key-types.js';
import type { Duration } from './types.js';

/** RSA-OAEP hash of an import blob (MGF1 uses the same hash); case-insensitive. @public */
export type ImportHashFunction = 'SHA1' | 'SHA224' | 'SHA256' | 'SHA384' | 'SHA512';

/**
 * Options of {@link Transit.importKey}.
 *
 * @example
 * ```ts
 * const { public_key } = await transit.getWrappingKey();
 * // ciphertext = base64(RSA-OAEP-SHA256(public_key, aesKey) ‖ AES-KWP(aesKey, material))
 * await transit.importKey('imported', { type: 'aes256-gcm96', ciphertext });
 * ```
 * @public
 */
export interface ImportKeyRequest {
  /** Key type, any but `hmac`; default `aes256-gcm96` (as Vault's import). */
  type?: KeyType | (string & {});
  /** With `type: 'ml-dsa'` (Vault Enterprise's spelling): `44`, `65` or `87`. */
  parameter_set?: '44' | '65' | '87' | (string & {});
  /**
   * Import blob: RSA-OAEP(`hash_function`) of a fresh AES-256 key under the
   * wrapping key (512 bytes) ‖ AES-KWP of the material (raw symmetric key, or
   * PKCS#8 private key). Exactly one of `ciphertext` and `public_key`.
   */
  ciphertext?: BinaryInput;
  /** OAEP hash of `ciphertext`; default `SHA256`. */
  hash_function?: ImportHashFunction | (string & {});
  /** PKIX `PUBLIC KEY` PEM: a public-only key (verify and encrypt only). */
  public_key?: string;
  /** Allow `rotateKey` (after which import_version no longer applies). */
  allow_rotation?: boolean;
  /** Derive per-context keys (symmetric and Ed25519 types); requires `context`. */
  derived?: boolean;
  /** Required when `derived` is true. */
  context?: BinaryInput;
  /** Allow export (irreversible). */
  exportable?: boolean;
  /** Allow plaintext backup (irreversible). */
  allow_plaintext_backup?: boolean;
  /** Automatic rotation period (needs `allow_rotation`); at least one hour. */
  auto_rotate_period?: Duration;
}

/** Options of {@link Transit.importKeyVersion}. @public */
export interface ImportKeyVersionRequest {
  /** Import blob, as for {@link ImportKeyRequest.ciphertext}. */
  ciphertext?: BinaryInput;
  /** OAEP hash of `ciphertext`; default `SHA256`. */
  hash_function?: ImportHashFunction | (string & {});
  /** PKIX `PUBLIC KEY` PEM of a new public-only version. */
  public_key?: string;
  /** Fill the private key of this public-only version (the key pair must match). */
  version?: number;
}

/** Result of {@link Transit.getWrappingKey}. @public */
export interface WrappingKeyResult {
  /** PKIX `PUBLIC KEY` PEM of the 4096-bit RSA wrapping key, with a trailing newline. */
  public_key: string;
}

/** Options of {@link Transit.byokExport}. @public */
export interface ByokExportOptions {
  /** Omitted: every version; `latest`; or a version number (`N` or `vN`). */
  version?: number | string;
  /** RSA-OAEP hash of the blobs; default `SHA256`. */
  hash?: ImportHashFunction | (string & {});
}

/** Result of {@link Transit.byokExport}. @public */
export interface ByokExportResult {
  /** The source key's name. */
  name: string;
  /** The source key's type. */
  type: KeyType;
  /** Version → import blob (base64), ready for `importKey` / `importKeyVersion`. */
  keys: Record<string, string>;
}
