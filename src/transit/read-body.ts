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

import { notFound } from '../errors.js';
import { oldestVersion, typeInfo } from '../keys/policy.js';
import { CHANGE_RETRIES, isKeyChanged, type LoadedKey } from '../keys/policy-store.js';
import { lazy } from '../util/lazy.js';
import { lazyField } from '../util/lazy-field.js';
import type { Snapshot } from './creation-times.js';
import type { Engine } from './engine.js';
import { KEEP_FROM } from './kept-listings.js';
import type { KeyInfo } from './types.js';
import { fillCreationTimes } from './version-times.js';

/** The key-pair listing, loaded with the first key pair's read body (the edge build leaves it out). */
const publicListings = lazy(() => import('./public-listing.js'));
/** The kept creation times, loaded with the first key of {@link KEEP_FROM} versions or more. */
const keptTimes = lazy(() => import('./creation-times.js'));

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
  for (let attempt = 0, current = key; ; attempt++) {
    try {
      return await bodyOf(e, current, context);
    } catch (err) {
      // Another instance trimmed, deleted or replaced the key while its versions
      // were listed: the body of the key as it now is (a rotate or config that
      // committed is not reported as failed).
      if (!isKeyChanged(err) || attempt >= CHANGE_RETRIES) throw err;
      const now = await e.store.get(current.doc.policy.name);
      if (!now) throw notFound(`no key named ${current.doc.policy.name}`);
      current = now;
    }
  }
}

/** {@link keyInfo} of `key` as read. */
async function bodyOf(e: Engine, key: LoadedKey, context: Uint8Array): Promise<KeyInfo> {
  const p = key.doc.policy;
  const info = typeInfo(p);
  const from = Math.max(oldestVersion(p), p.min_decryption_version);
  const keys = info.family.asymmetric
    ? await (await publicListings()).publicListing(e, key, info, from, context)
    : await creationTimes(e, key, from, p.latest_version);
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
  // A kept listing is copied when `keys` is first read (./creation-times.ts, ./public-listing.ts).
  if (typeof keys === 'function') lazyField(body, 'keys', keys as () => KeyInfo['keys']);
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

/**
 * A symmetric key's `keys`: built here when short, kept and extended per key
 * otherwise (./creation-times.ts), so that rotate does not grow with the
 * number of versions.
 */
async function creationTimes(
  e: Engine,
  key: LoadedKey,
  from: number,
  to: number,
): Promise<Record<number, number> | Snapshot> {
  if (to - from + 1 >= KEEP_FROM) return (await keptTimes()).keptCreationTimes(e, key, from, to);
  const times: Record<number, number> = {};
  await fillCreationTimes(e.store, key, times, from, to);
  return times;
}
