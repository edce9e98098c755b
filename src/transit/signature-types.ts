/**
 * Request and response shapes of `Transit.sign` and `Transit.verify` (split
 * from `./types.ts`, which re-exports them): the signing options both share,
 * the items, results and batch items of each.
 * @module
 */
import type { BinaryInput } from '../encoding.js';

/**
 * Signing options shared by `Transit.sign` and `Transit.verify` (Vault's sign and verify fields).
 * @public
 */
export interface SignatureOptions {
  /**
   * sha1, sha2-224/256/384/512, sha3-224/256/384/512 or `none` (prehashed
   * PKCS#1 v1.5 without DigestInfo); default sha2-256; ignored by ed25519.
   */
  hash_algorithm?: string;
  /** Deprecated alias of `hash_algorithm`. */
  algorithm?: string;
  /** The input is already a digest (raw bytes, base64-encoded). */
  prehashed?: boolean;
  /** RSA: `pss` (default) or `pkcs1v15`. */
  signature_algorithm?: 'pss' | 'pkcs1v15' | (string & {});
  /** ECDSA: `asn1` (DER, default) or `jws` (r ‖ s); `jws` also means URL-safe base64 for every type. */
  marshaling_algorithm?: 'asn1' | 'jws' | (string & {});
  /** RSA-PSS: `auto` (default; largest on sign), `hash`, or an integer byte count. */
  salt_length?: string | number;
  /**
   * ML-DSA only: the FIPS 204 context string (base64, at most 255 bytes;
   * default empty). Not transit's `context`, which is key derivation.
   */
  signature_context?: BinaryInput;
  /** ML-DSA only: deterministic signing (FIPS 204 `rnd` = 0) instead of hedged (default). */
  deterministic?: boolean;
}

/** One sign item. @public */
export interface SignItem {
  input?: BinaryInput;
  /** Derivation context (derived ed25519 keys). */
  context?: BinaryInput;
  reference?: string;
}

/** Options of `Transit.sign`. @public */
export interface SignRequest extends SignItem, SignatureOptions {
  /** Version to sign with; 0 or omitted = latest. */
  key_version?: number;
  batch_input?: SignItem[];
}

/** A single signature. @public */
export interface SignResult {
  /** `<prefix>:v<N>:<base64>` (URL-safe without padding for `jws`). */
  signature: string;
  key_version: number;
  /** Base64 of the derived public key (derived ed25519 only). */
  public_key?: string;
}

/** One sign batch result item (`key_version` is 0 on error). @public */
export interface SignBatchItem {
  signature?: string;
  key_version: number;
  /** Base64 of the derived public key (derived ed25519 only). */
  publickey?: string;
  error?: string;
  reference: string;
}

/** One verify item: an `hmac` or a `signature`. @public */
export interface VerifyItem {
  input?: BinaryInput;
  hmac?: string;
  signature?: string;
  context?: BinaryInput;
  reference?: string;
}

/** Options of `Transit.verify`. @public */
export interface VerifyRequest extends VerifyItem, SignatureOptions {
  batch_input?: VerifyItem[];
}

/** One verify batch result item. @public */
export interface VerifyBatchItem {
  /**
   * Whether the signature or HMAC matches. Always present on signature items;
   * absent on an HMAC item that failed with an `error` (Vault's shape).
   */
  valid?: boolean;
  error?: string;
  reference: string;
}
