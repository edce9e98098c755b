/**
 * The key read body (reference §9 `formatKeyPolicy`), shared by read, create,
 * config, rotate, trim and the soft-delete calls.
 *
 * `keys` maps each version to its creation time in seconds, except for
 * asymmetric types, where each version is `{ name, public_key, creation_time
 * (RFC 3339), certificate_chain }`: ECDSA shows the stored PKIX PEM, Ed25519
 * base64 (derived keys: `""` unless a `context` is given, then the derived
 * key's), RSA a fresh PKIX PEM; both PEMs end with a newline.
 * @module
 */

import { rfc3339 } from '../clock.js';
import { chainToPem } from '../crypto/pki/pem.js';
import type { KeyTypeInfo } from '../keys/key-types.js';
import { type KeyVersion, oldestVersion, typeInfo } from '../keys/policy.js';
import type { LoadedKey } from '../keys/policy-store.js';
import { lazyField } from '../util/lazy-field.js';
import type { Engine } from './engine.js';
import type { AsymmetricKeyVersionInfo, KeyInfo } from './types.js';

/** One asymmetric version as the read body shows it. */
function publicEntry(
  info: KeyTypeInfo,
  v: KeyVersion,
  public_key: string,
): AsymmetricKeyVersionInfo {
  const zero = v.time === '' || v.time.startsWith('0001-01-01');
  return {
    name: info.publicKeyName ?? info.name,
    public_key,
    creation_time: zero ? rfc3339(v.creation_time * 1000) : v.time,
    certificate_chain: chainToPem(v.certificate_chain ?? []),
  };
}

type PublicEntry = number | AsymmetricKeyVersionInfo;

/**
 * Each version's entry in a read body without a derivation context, by
 * version object, with the key type and `derived` flag it was made for. A
 * version object never changes (set-certificate and import_version make a new
 * one), and its entry depends only on it, the type and the flag, which never
 * change for a key; so listing 1,000 versions is 1,000 lookups, not 1,000
 * public keys formatted (RSA: exported) and awaited — rotate of an asymmetric
 * key stays O(1) in its versions but for this loop. Only cached version
 * objects hold entries (a `WeakMap`).
 */
const entries = new WeakMap<KeyVersion, { type: string; derived: boolean; entry: PublicEntry }>();

/** The asymmetric read body's `keys`: each version's public key (a time where it has none). */
async function publicListing(
  e: Engine,
  key: LoadedKey,
  info: KeyTypeInfo,
  from: number,
  context: Uint8Array,
): Promise<Record<number, PublicEntry>> {
  const p = key.doc.policy;
  const keys: Record<number, PublicEntry> = {};
  const archived = e.store.archivedVersions(key);
  const reuse = context.length === 0;
  for (let v = from; v <= p.latest_version; v++) {
    const ver = key.doc.versions.get(v) ?? archived?.get(v) ?? (await e.store.version(key, v));
    const known = reuse ? entries.get(ver) : undefined;
    let entry: PublicEntry;
    if (known && known.type === p.type && known.derived === p.derived) entry = known.entry;
    else {
      const pub = info.family.readBodyPublicKey(e.backend, p, ver, context);
      entry = pub ? publicEntry(info, ver, await pub) : ver.creation_time;
      if (reuse) entries.set(ver, { type: p.type, derived: p.derived, entry });
    }
    // Each reply gets its own entry objects (the caller may change them).
    keys[v] = typeof entry === 'number' ? entry : { ...entry };
  }
  return keys;
}

/**
 * Build the read body of a key; `context` derives the public keys of a
 * derived Ed25519 key (ignored otherwise).
 * @internal
 */
export async function keyInfo(
  e: Engine,
  key: LoadedKey,
  context: Uint8Array = new Uint8Array(0),
): Promise<KeyInfo> {
  const p = key.doc.policy;
  const info = typeInfo(p);
  const from = Math.max(oldestVersion(p), p.min_decryption_version);
  const keys = info.family.asymmetric
    ? await publicListing(e, key, info, from, context)
    : await e.creationTimes.listing(e.store, key, from, p.latest_version);
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
    keys: keys as KeyInfo['keys'],
  };
  // A kept listing is copied when `keys` is first read (./creation-times.ts).
  if (typeof keys === 'function') lazyField(body, 'keys', keys);
  if (p.imported) body.imported_key_allow_rotation = p.allow_imported_key_rotation;
  if (p.key_size > 0) body.key_size = p.key_size;
  // Vault Enterprise shows an ML-DSA key's parameter set beside its type.
  if (info.mlDsaLevel !== undefined) body.parameter_set = String(info.mlDsaLevel);
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
