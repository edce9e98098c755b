/**
 * Test helper: store a key with *known* material, so that known-answer
 * vectors (Vault's tests, the reference's computed values) can be checked
 * through the public engine. It writes the stored document with the engine's
 * own codec — the same bytes `createKey` would write, but with chosen keys.
 */

import type { EcCurve, RsaPrivateKey, RsaPublicKey } from '../../src/crypto/asymmetric-backend.js';
import { encodeSpki, pemEncode } from '../../src/crypto/pki/keys.js';
import type { AsymmetricMaterial } from '../../src/keys/asymmetric/material.js';
import { loadAsymmetricFamilies } from '../../src/keys/key-types.js';
import type { KeyPolicy, KeyVersion } from '../../src/keys/policy.js';
import { encodeDocument } from '../../src/keys/policy-codec.js';
import type { StorageAdapter } from '../../src/storage/adapter.js';
import { keyspace } from '../../src/storage/keyspace.js';

export interface KnownVersion {
  /** Raw key; for ECDSA/RSA leave it empty, for Ed25519 `seed ‖ pub` (or empty when public-only). */
  key: Uint8Array;
  /** Default: `key`, or 32 bytes of 0x42 when `key` is empty. */
  hmac_key?: Uint8Array;
  convergent_version?: number;
  /** Asymmetric material (the `type` override must name a matching type). */
  asymmetric?: AsymmetricMaterial;
  certificate_chain?: Uint8Array[];
}

/** ECDSA material from the stored numbers (no `d` = public-only), with Vault's PKIX PEM. */
export function ecMaterial(curve: EcCurve, x: bigint, y: bigint, d?: bigint): AsymmetricMaterial {
  const pub = { curve, x, y };
  const publicKeyPem = pemEncode(encodeSpki({ type: 'ec', key: pub }), 'PUBLIC KEY');
  if (d === undefined) return { kind: 'ec', public: pub, publicKeyPem };
  const priv = { ...pub, d };
  return { kind: 'ec', public: priv, private: priv, publicKeyPem };
}

/** RSA material from a private key, or public-only from a public key. */
export function rsaMaterial(key: RsaPrivateKey | RsaPublicKey): AsymmetricMaterial {
  return 'd' in key ? { kind: 'rsa', public: key, private: key } : { kind: 'rsa', public: key };
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
      hmac_key: v.hmac_key ?? (v.key.length > 0 ? v.key : new Uint8Array(32).fill(0x42)),
      creation_time: 1_700_000_000,
      time: '2023-11-14T22:13:20Z',
      convergent_version: v.convergent_version ?? 0,
      ...(v.asymmetric ? { asymmetric: v.asymmetric } : {}),
      ...(v.certificate_chain ? { certificate_chain: v.certificate_chain } : {}),
    });
  });
  // Written as the engine would: a key-pair version's codec is its (lazily loaded) family's.
  if (versions.some((v) => v.asymmetric)) await loadAsymmetricFamilies();
  await storage.put(keyspace.policy(name), encodeDocument({ uid: 'known', policy, versions: map }));
}

export const b64 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'base64'));
export const ascii = (s: string): Uint8Array => new TextEncoder().encode(s);
export const hexBytes = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'hex'));
