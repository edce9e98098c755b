/**
 * The key read body (reference §9 `formatKeyPolicy`), shared by read, create,
 * config, rotate, trim and the soft-delete calls.
 * @module
 */

import { oldestVersion, typeInfo } from '../keys/policy.js';
import type { LoadedKey } from '../keys/policy-store.js';
import type { Engine } from './engine.js';
import type { KeyInfo } from './types.js';

/** Build the read body of a key. @internal */
export async function keyInfo(e: Engine, key: LoadedKey): Promise<KeyInfo> {
  const p = key.doc.policy;
  const info = typeInfo(p);
  const keys: Record<string, number> = {};
  for (let v = Math.max(oldestVersion(p), p.min_decryption_version); v <= p.latest_version; v++) {
    keys[String(v)] = (await e.store.version(key, v)).creation_time;
  }
  const body: KeyInfo = {
    name: p.name,
    type: p.type,
    derived: p.derived,
    deletion_allowed: p.deletion_allowed,
    exportable: p.exportable,
    allow_plaintext_backup: p.allow_plaintext_backup,
    min_available_version: p.min_available_version,
    min_decryption_version: p.min_decryption_version,
    min_encryption_version: p.min_encryption_version,
    latest_version: p.latest_version,
    supports_encryption: info.supportsEncryption,
    supports_decryption: info.supportsDecryption,
    supports_derivation: info.supportsDerivation,
    supports_signing: info.supportsSigning,
    auto_rotate_period: p.auto_rotate_period,
    imported_key: p.imported,
    imported: p.imported,
    soft_deleted: p.soft_deleted,
    keys,
  };
  if (p.imported) body.imported_key_allow_rotation = p.allow_imported_key_rotation;
  if (p.key_size > 0) body.key_size = p.key_size;
  if (p.derived) {
    if (p.kdf === 1) body.kdf = 'hkdf_sha256';
    else {
      body.kdf = 'hmac-sha256-counter';
      body.kdf_mode = 'hmac-sha256-counter';
    }
    body.convergent_encryption = p.convergent_encryption;
    if (p.convergent_encryption) body.convergent_encryption_version = p.convergent_version;
  }
  if (p.backup_info) body.backup_info = { ...p.backup_info };
  if (p.restore_info) body.restore_info = { ...p.restore_info };
  return body;
}
