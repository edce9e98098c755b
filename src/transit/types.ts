/**
 * Request and response shapes of the transit library API. Field names are the
 * documented snake_case names of the HTTP API (one vocabulary for both),
 * so the HTTP adapter passes bodies through. Binary inputs take a standard
 * base64 string or a `Uint8Array`; outputs are what the API returns.
 * @module
 */
import type { BinaryInput } from '../encoding.js';
import type { KeyType } from '../keys/key-types.js';
import type { BackupInfo } from '../keys/policy.js';

export * from './signature-types.js';

/** A duration: seconds as a number, or a string such as `"1h"`, `"90m"`, `"30d"`. @public */
export type Duration = number | string;

/** Options of {@link Transit.createKey}. @public */
export interface CreateKeyRequest {
  /** Key type; default `aes256-gcm96`. */
  type?: KeyType | (string & {});
  /** With `type: 'ml-dsa'` (Vault Enterprise's spelling): `44`, `65` or `87`. */
  parameter_set?: '44' | '65' | '87' | (string & {});
  /** Require a `context` on every operation and derive a key from it. */
  derived?: boolean;
  /** Deterministic encryption per context and plaintext; requires `derived`. */
  convergent_encryption?: boolean;
  /** Allow export of the key versions (irreversible). */
  exportable?: boolean;
  /** Allow plaintext backup (irreversible). */
  allow_plaintext_backup?: boolean;
  /** HMAC key size in bytes, 32..512 (type `hmac` only; default 32). */
  key_size?: number;
  /** Automatic rotation period; 0 disables; at least one hour. */
  auto_rotate_period?: Duration;
}

/** Options of {@link Transit.updateKeyConfig}. @public */
export interface KeyConfigRequest {
  min_decryption_version?: number;
  min_encryption_version?: number;
  deletion_allowed?: boolean;
  exportable?: boolean;
  allow_plaintext_backup?: boolean;
  auto_rotate_period?: Duration;
}

/** The body of a key read (and of create, config, rotate, trim, soft-delete). @public */
export interface KeyInfo {
  name: string;
  type: KeyType;
  derived: boolean;
  deletion_allowed: boolean;
  exportable: boolean;
  allow_plaintext_backup: boolean;
  min_available_version: number;
  min_decryption_version: number;
  min_encryption_version: number;
  latest_version: number;
  supports_encryption: boolean;
  supports_decryption: boolean;
  supports_derivation: boolean;
  supports_signing: boolean;
  /** Seconds. */
  auto_rotate_period: number;
  /** Vault's field name for the imported flag. */
  imported_key: boolean;
  /** The spec's field name for the imported flag (same value as `imported_key`). */
  imported: boolean;
  imported_key_allow_rotation?: boolean;
  soft_deleted: boolean;
  /**
   * Version → creation time (Unix seconds); for asymmetric types, version →
   * its public key ({@link AsymmetricKeyVersionInfo}).
   */
  keys: Record<string, number> | Record<string, AsymmetricKeyVersionInfo>;
  key_size?: number;
  /** ML-DSA keys: the parameter set (`44`, `65` or `87`), as Vault Enterprise shows it. */
  parameter_set?: string;
  kdf?: 'hkdf_sha256' | 'hmac-sha256-counter';
  kdf_mode?: 'hmac-sha256-counter';
  convergent_encryption?: boolean;
  convergent_encryption_version?: number;
  backup_info?: BackupInfo;
  restore_info?: BackupInfo;
}

/** One version of an asymmetric key in {@link KeyInfo.keys}. @public */
export interface AsymmetricKeyVersionInfo {
  /** `P-256`, `P-384`, `P-521`, `ed25519`, `rsa-2048`, `rsa-3072`, `rsa-4096` or `mldsa-44/65/87`. */
  name: string;
  /**
   * ECDSA, RSA and ML-DSA: PKIX `PUBLIC KEY` PEM (trailing newline); Ed25519: base64 of
   * the 32-byte key (`""` for a derived key read without `context`).
   */
  public_key: string;
  /** RFC 3339 creation time. */
  creation_time: string;
  /** PEM certificates set with `setCertificate`, joined by `\n`; `""` when none. */
  certificate_chain: string;
}

/** Options of {@link Transit.readKey}. @public */
export interface ReadKeyRequest {
  /** Derivation context: shows a derived Ed25519 key's per-context public keys. */
  context?: BinaryInput;
}

/** Options of {@link Transit.listKeys}. @public */
export interface ListKeysRequest {
  /** List names strictly after this one (need not exist). */
  after?: string;
  /** At most this many names; 0 = all. */
  limit?: number;
}

/** One encrypt item. @public */
export interface EncryptItem {
  plaintext?: BinaryInput;
  context?: BinaryInput;
  associated_data?: BinaryInput;
  /** Only for legacy convergent v1 keys. */
  nonce?: BinaryInput;
  key_version?: number;
  reference?: string;
}

/** Options of `Transit.encrypt`. @public */
export interface EncryptRequest extends EncryptItem {
  batch_input?: EncryptItem[];
  /** Type of a key created by upsert. */
  type?: KeyType | (string & {});
  /** Convergent encryption for a key created by upsert. */
  convergent_encryption?: boolean | string;
  /** HTTP only: status when some (not all) batch items fail. */
  partial_failure_response_code?: number;
}

/** Per-call options of `Transit.encrypt`. @public */
export interface EncryptOptions {
  /** Create a missing key (upsert). Default true, unless the global `disable_upsert` is set. */
  upsert?: boolean;
}

/** A single encrypt/rewrap result. @public */
export interface CiphertextResult {
  ciphertext: string;
  key_version: number;
}

/** One encrypt/rewrap batch result item. @public */
export interface CiphertextBatchItem {
  ciphertext?: string;
  key_version?: number;
  error?: string;
  reference: string;
}

/** A batch response. @public */
export interface BatchResult<T> {
  batch_results: T[];
}

/** One decrypt item. @public */
export interface DecryptItem {
  ciphertext?: string;
  context?: BinaryInput;
  associated_data?: BinaryInput;
  nonce?: BinaryInput;
  reference?: string;
}

/** Options of `Transit.decrypt`. @public */
export interface DecryptRequest extends DecryptItem {
  batch_input?: DecryptItem[];
  partial_failure_response_code?: number;
}

/** One decrypt batch result item (`plaintext` is `''` on error). @public */
export interface DecryptBatchItem {
  plaintext: string;
  error?: string;
  reference: string;
}

/** One rewrap item. @public */
export interface RewrapItem extends DecryptItem {
  key_version?: number;
}

/** Options of `Transit.rewrap`. @public */
export interface RewrapRequest extends RewrapItem {
  batch_input?: RewrapItem[];
  partial_failure_response_code?: number;
}

/** Options of {@link Transit.generateDataKey}. @public */
export interface DataKeyRequest {
  context?: BinaryInput;
  associated_data?: BinaryInput;
  nonce?: BinaryInput;
  /** 128, 256 (default) or 512. */
  bits?: number;
  key_version?: number;
}

/** Result of {@link Transit.generateDataKey}. @public */
export interface DataKeyResult {
  ciphertext: string;
  key_version: number;
  /** Base64 data key; only for the `plaintext` kind. */
  plaintext?: string;
}

/** One HMAC item. @public */
export interface HmacItem {
  input?: BinaryInput;
  reference?: string;
}

/** Options of `Transit.hmac`. @public */
export interface HmacRequest extends HmacItem {
  /** sha2-224/256/384/512, sha3-224/256/384/512; default sha2-256. */
  algorithm?: string;
  key_version?: number;
  batch_input?: HmacItem[];
}

/** One HMAC batch result item. @public */
export interface HmacBatchItem {
  hmac?: string;
  error?: string;
  reference: string;
}

/** What `Transit.exportKey` exports. @public */
export type ExportKeyType =
  | 'encryption-key'
  | 'signing-key'
  | 'hmac-key'
  | 'public-key'
  | 'certificate-chain';

/** Options of `Transit.exportKey`. @public */
export interface ExportKeyOptions {
  /**
   * `''` (default): Vault's native strings; `raw`: base64 raw key (symmetric,
   * HMAC, Ed25519); `der`: base64 PKCS#8 / PKIX; `pem`: PEM PKCS#8 / PKIX.
   */
  format?: '' | 'raw' | 'der' | 'pem' | (string & {});
}

/** Result of `Transit.exportKey`. @public */
export interface ExportKeyResult {
  name: string;
  type: KeyType;
  /** Version → exported string. */
  keys: Record<string, string>;
}

/** Options of `Transit.signCsr`. @public */
export interface SignCsrRequest {
  /** Key version to sign with: a number or `latest` (default). */
  version?: number | 'latest';
  /** PEM `CERTIFICATE REQUEST` template; its subject and attributes are kept, its key replaced. */
  csr?: string;
}

/** Result of `Transit.signCsr`. @public */
export interface SignCsrResult {
  name: string;
  type: KeyType;
  /** PEM `CERTIFICATE REQUEST` signed by the key version. */
  csr: string;
}

/** Options of `Transit.setCertificate`. @public */
export interface SetCertificateRequest {
  /** Key version the chain belongs to: a number or `latest` (default). */
  version?: number | 'latest';
  /** PEM certificates, end entity first. */
  certificate_chain: string;
}

/** Result of `Transit.setCertificate`. @public */
export interface SetCertificateResult {
  name: string;
  type: KeyType;
  certificate_chain: string;
}

/** Options of {@link Transit.hash}. @public */
export interface HashRequest {
  input?: BinaryInput;
  algorithm?: string;
  format?: 'hex' | 'base64';
}

/** Options of {@link Transit.randomBytes}. @public */
export interface RandomRequest {
  bytes?: number;
  format?: 'hex' | 'base64';
  /** `platform` (default); `seal` and `all` also read the platform CSPRNG (`seal` with Vault's warning). */
  source?: 'platform' | 'seal' | 'all';
}

/** Global key settings. @public */
export interface KeysConfig {
  disable_upsert: boolean;
}

/** Policy cache settings. @public */
export interface CacheConfig {
  size: number;
}

/** Options of `Transit.restoreKey`. @public */
export interface RestoreRequest {
  /** The backup blob (base64), as `backupKey` or Vault's `GET /transit/backup/:name` returns it. */
  backup: string;
  /** Restore under this name instead of the one in the blob. */
  name?: string;
  /** Replace an existing key of the same name. */
  force?: boolean;
}
