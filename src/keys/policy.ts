/**
 * The key policy model and its pure rules (openbao `keysutil/policy.go`, split
 * by concern). No I/O here: `policy-store.ts` loads and persists, the engine
 * modules in `src/transit/` call these rules.
 *
 * A policy's versions are kept apart from its configuration
 * ({@link KeyVersion}), so that the store can keep the newest versions inline
 * and archive older ones, and encrypt/rotate stay O(1) in the version count.
 *
 * @module
 */
import { invalidRequest } from '../errors.js';
import { optBool, optInt } from '../request.js';
import type { AsymmetricMaterial } from './asymmetric/material.js';
import { type KeyType, type KeyTypeInfo, keyType } from './key-types.js';

/**
 * One key version's material. Immutable once created.
 * @internal
 */
export interface KeyVersion {
  /**
   * Raw key: the AEAD key, the HMAC secret for type `hmac`, Go's 64-byte
   * `seed ‖ pub` for Ed25519 (empty when public-only); empty for ECDSA and RSA.
   */
  readonly key: Uint8Array;
  /** The version's independent HMAC secret (equals `key` for type `hmac`). */
  readonly hmac_key: Uint8Array;
  /** Creation time, Unix seconds. */
  readonly creation_time: number;
  /** Creation time, RFC 3339 with fraction (kept verbatim from backups). */
  readonly time: string;
  /** Convergent scheme of this version (0 = not convergent, 1/2 legacy, 3 current). */
  readonly convergent_version: number;
  /** Parsed asymmetric material (ECDSA, Ed25519, RSA types only). */
  readonly asymmetric?: AsymmetricMaterial;
  /** DER certificates stored by set-certificate, end entity first. */
  readonly certificate_chain?: readonly Uint8Array[];
}

/** Time and version of the last backup or restore. @public */
export interface BackupInfo {
  time: string;
  version: number;
}

/**
 * A key's configuration (everything but the versions' material).
 * @internal
 */
export interface KeyPolicy {
  name: string;
  type: KeyType;
  derived: boolean;
  /** 0 = legacy HMAC-SHA256 counter KDF, 1 = HKDF-SHA256. */
  kdf: 0 | 1;
  convergent_encryption: boolean;
  /** Policy-level convergent version (-1 on current keys: per-version values apply). */
  convergent_version: number;
  exportable: boolean;
  allow_plaintext_backup: boolean;
  deletion_allowed: boolean;
  min_decryption_version: number;
  min_encryption_version: number;
  min_available_version: number;
  latest_version: number;
  /** Seconds; 0 disables. */
  auto_rotate_period: number;
  /** HMAC key size in bytes (type `hmac` only; else 0). */
  key_size: number;
  imported: boolean;
  allow_imported_key_rotation: boolean;
  soft_deleted: boolean;
  backup_info: BackupInfo | null;
  restore_info: BackupInfo | null;
}

/** The convergent scheme new keys use (reference §3). @internal */
export const CURRENT_CONVERGENT_VERSION = 3;

/** Resolved type info of a policy. @internal */
export const typeInfo = (p: KeyPolicy): KeyTypeInfo => keyType(p.type);

/** Effective convergent scheme of a version (reference §3 `convergentVersion`). @internal */
export function convergentVersionOf(p: KeyPolicy, v: KeyVersion): number {
  if (!p.convergent_encryption) return 0;
  if (v.convergent_version > 0) return v.convergent_version;
  return p.convergent_version > 0 ? p.convergent_version : 1;
}

/** The oldest version that still exists. @internal */
export const oldestVersion = (p: KeyPolicy): number => Math.max(1, p.min_available_version);

/** Default maximum of live versions per key (versions from min_available_version up). @internal */
export const DEFAULT_MAX_KEY_VERSIONS = 100_000;

/** Live versions of a key: from its oldest still stored to its latest. @internal */
export const liveVersions = (p: KeyPolicy): number =>
  p.latest_version === 0 ? 0 : p.latest_version - oldestVersion(p) + 1;

/**
 * The highest version number a key can reach (Go's int32 maximum): far past
 * any rotation schedule, and low enough that every loop over versions and
 * every archive entry name (10 digits) stays exact. A restored backup above
 * it is refused.
 * @internal
 */
export const MAX_VERSION = 2_147_483_647;

/**
 * Refuse to add a version to a key that already holds `max` live versions, so
 * that one key's storage and read cost stay bounded; trimming frees room. A
 * key at {@link MAX_VERSION} takes no more.
 * @throws TransitError `invalid_request`.
 * @internal
 */
export function assertVersionRoom(p: KeyPolicy, max: number): void {
  if (p.latest_version >= MAX_VERSION) {
    throw invalidRequest(`key ${p.name} is at version ${MAX_VERSION}, the highest a key can reach`);
  }
  const live = liveVersions(p);
  if (live >= max) {
    throw invalidRequest(
      `key ${p.name} already has ${live} versions, the maximum per key is ${max}: raise min_decryption_version and min_encryption_version, then trim old versions before adding another`,
    );
  }
}

/** Refuse operations on a soft-deleted key. @internal */
export function assertNotSoftDeleted(p: KeyPolicy): void {
  if (p.soft_deleted) throw invalidRequest('refusing to use soft-deleted key');
}

/**
 * Resolve the version to encrypt/sign/HMAC with (`key_version`; 0 = latest).
 * @internal
 */
export function encryptionVersion(p: KeyPolicy, requested: number | undefined): number {
  const v = requested ?? 0;
  if (v < 0) throw invalidRequest('requested version for encryption is negative');
  if (v === 0) return p.latest_version;
  if (v > p.latest_version) {
    throw invalidRequest('requested version for encryption is higher than the latest key version');
  }
  if (p.min_encryption_version > 0 && v < p.min_encryption_version) {
    throw invalidRequest(
      'requested version for encryption is less than the minimum encryption key version',
    );
  }
  if (v < p.min_decryption_version || v < oldestVersion(p)) {
    throw invalidRequest('requested version for encryption is no longer available');
  }
  return v;
}

/**
 * Check a version taken from a ciphertext / HMAC / signature for decrypt or verify.
 * `what` names the value for messages (`ciphertext`, `HMAC`, `signature`).
 * @internal
 */
export function decryptionVersion(p: KeyPolicy, v: number, what: string): number {
  const ver = v === 0 ? 1 : v; // Vault treats v0 as v1
  if (ver > p.latest_version) throw invalidRequest(`invalid ${what}: version is too new`);
  if (ver < p.min_decryption_version || ver < oldestVersion(p)) {
    throw invalidRequest('ciphertext or signature version is disallowed by policy (too old)');
  }
  return ver;
}

/**
 * Apply `POST keys/:name/config` to a copy of the policy (reference §15).
 * @returns the new policy and Vault's warnings.
 * @internal
 */
export function applyConfig(
  p: KeyPolicy,
  req: Record<string, unknown>,
  parsePeriod: (v: unknown) => number,
): { policy: KeyPolicy; warnings: string[] } {
  const next: KeyPolicy = { ...p };
  const warnings: string[] = [];

  const minDec = optInt(req.min_decryption_version, 'min_decryption_version');
  if (minDec !== undefined) {
    if (minDec < 0) throw invalidRequest('min decryption version cannot be negative');
    let v = minDec;
    if (v === 0) {
      v = 1;
      warnings.push('since Vault 0.3, transit key numbering starts at 1; forcing minimum to 1');
    }
    if (v > p.latest_version) {
      throw invalidRequest(
        `cannot set min decryption version of ${v}, latest key version is ${p.latest_version}`,
      );
    }
    next.min_decryption_version = v;
  }

  const minEnc = optInt(req.min_encryption_version, 'min_encryption_version');
  if (minEnc !== undefined) {
    if (minEnc < 0) throw invalidRequest('min encryption version cannot be negative');
    if (minEnc > p.latest_version) {
      throw invalidRequest(
        `cannot set min encryption version of ${minEnc}, latest key version is ${p.latest_version}`,
      );
    }
    next.min_encryption_version = minEnc;
  }

  if (
    next.min_encryption_version > 0 &&
    next.min_encryption_version < next.min_decryption_version
  ) {
    throw invalidRequest(
      `cannot set min encryption/decryption values; min encryption version of ${next.min_encryption_version} must be greater than or equal to min decryption version of ${next.min_decryption_version}`,
    );
  }
  const del = optBool(req.deletion_allowed, 'deletion_allowed');
  if (del !== undefined) next.deletion_allowed = del;

  // One-way flags: `true` turns them on; a later `false` is ignored (as Vault),
  // so clients that send every field on each update keep working.
  if (optBool(req.exportable, 'exportable')) next.exportable = true;
  if (optBool(req.allow_plaintext_backup, 'allow_plaintext_backup')) {
    next.allow_plaintext_backup = true;
  }

  if (req.auto_rotate_period !== undefined) {
    next.auto_rotate_period = parsePeriod(req.auto_rotate_period);
  }
  // Last, as Vault's path_config.go (after the period's bound), with its texts ("then" included).
  if (next.min_available_version > 0) {
    if (next.min_encryption_version < next.min_available_version) {
      throw invalidRequest('min encryption version should not be less than min available version');
    }
    if (next.min_decryption_version < next.min_available_version) {
      throw invalidRequest('min decryption version should not be less then min available version');
    }
  }
  return { policy: next, warnings };
}

/**
 * Check `POST keys/:name/trim` and return the new `min_available_version`.
 * @internal
 */
export function checkTrim(p: KeyPolicy, value: unknown): number {
  const v = optInt(value, 'min_available_version');
  if (v === undefined) throw invalidRequest('missing min_available_version');
  // Vault's order and texts (path_trim.go's switch), "minmum" included (Vault and OpenBao
  // both spell it so). A negative value is always below the current one (never negative),
  // so it is refused as decremented; "cannot be negative" is kept as in Vault.
  const refuse = (why: string) => invalidRequest(`minimum available version ${why}`);
  if (v < p.min_available_version) throw refuse('cannot be decremented');
  if (p.min_encryption_version === 0) {
    throw refuse('cannot be set when minimum encryption version is not set');
  }
  if (p.min_decryption_version === 0) {
    throw refuse('cannot be set when minimum decryption version is not set');
  }
  if (v > p.min_encryption_version) {
    throw refuse('cannot be greater than minmum encryption version');
  }
  if (v > p.min_decryption_version) {
    throw refuse('cannot be greater than minimum decryption version');
  }
  if (v < 0) throw refuse('cannot be negative');
  if (v === 0) throw refuse('should be positive');
  return v;
}
