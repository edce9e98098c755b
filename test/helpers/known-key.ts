/**
 * Test helper: store a key with *known* material, so that known-answer
 * vectors (Vault's tests, the reference's computed values) can be checked
 * through the public engine. It writes the stored document with the engine's
 * own codec — the same bytes `createKey` would write, but with chosen keys.
 */

import type { KeyPolicy, KeyVersion } from '../../src/keys/policy.js';
import { encodeDocument } from '../../src/keys/policy-codec.js';
import type { StorageAdapter } from '../../src/storage/adapter.js';
import { keyspace } from '../../src/storage/keyspace.js';

export interface KnownVersion {
  key: Uint8Array;
  hmac_key?: Uint8Array;
  convergent_version?: number;
}

export async function putKnownKey(
  storage: StorageAdapter,
  name: string,
  versions: KnownVersion[],
  overrides: Partial<KeyPolicy> = {},
): Promise<void> {
  const policy: KeyPolicy = {
    name,
    type: 'aes256-gcm96',
    derived: false,
    kdf: 0,
    convergent_encryption: false,
    convergent_version: 0,
    exportable: false,
    allow_plaintext_backup: false,
    deletion_allowed: false,
    min_decryption_version: 1,
    min_encryption_version: 0,
    min_available_version: 0,
    latest_version: versions.length,
    auto_rotate_period: 0,
    key_size: 0,
    imported: false,
    allow_imported_key_rotation: false,
    soft_deleted: false,
    backup_info: null,
    restore_info: null,
    ...overrides,
  };
  const map = new Map<number, KeyVersion>();
  versions.forEach((v, i) => {
    map.set(i + 1, {
      key: v.key,
      hmac_key: v.hmac_key ?? v.key,
      creation_time: 1_700_000_000,
      time: '2023-11-14T22:13:20Z',
      convergent_version: v.convergent_version ?? 0,
    });
  });
  await storage.put(keyspace.policy(name), encodeDocument({ uid: 'known', policy, versions: map }));
}

export const b64 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'base64'));
export const ascii = (s: string): Uint8Array => new TextEncoder().encode(s);
export const hexBytes = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'hex'));
