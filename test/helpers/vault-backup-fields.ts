/**
 * The field order of Vault's backup JSON (Go struct order), shared by the
 * backup compatibility tests (test/compat/vault-backup.test.ts,
 * test/keys/vault-backup-entry.test.ts).
 */

/** Vault 1.14's Policy fields, in struct order (reference §6), plus OpenBao's soft_deleted. */
export const VAULT_POLICY_FIELDS = [
  'name',
  'keys',
  'derived',
  'kdf',
  'convergent_encryption',
  'exportable',
  'min_decryption_version',
  'min_encryption_version',
  'latest_version',
  'archive_version',
  'archive_min_version',
  'min_available_version',
  'deletion_allowed',
  'convergent_version',
  'type',
  'backup_info',
  'restore_info',
  'allow_plaintext_backup',
  'version_template',
  'storage_prefix',
  'auto_rotate_period',
  'Imported',
  'AllowImportedKeyRotation',
  'soft_deleted',
];
export const VAULT_ENTRY_FIELDS = [
  'key',
  'hmac_key',
  'time',
  'ec_x',
  'ec_y',
  'ec_d',
  'rsa_key',
  'rsa_public_key',
  'public_key',
  'convergent_version',
  'creation_time',
];
