/**
 * Vault's backup blob (reference §6): `base64(json.Encoder(KeyData) )` with
 * `KeyData{ policy, archived_keys }`, field for field as Vault 1.14 writes it,
 * so a backup made here restores into Vault/OpenBao and the reverse.
 *
 * Writing: Vault's type numbering (xchacha20 as 11 without `key_size`, the
 * OpenBao form that the same rule reads back), nanosecond durations, the Go
 * field names `Imported`/`AllowImportedKeyRotation`, the archive with its
 * index-0 placeholder when never trimmed; each version's `KeyEntry`, with the
 * asymmetric material, is `./vault-backup-entry.ts`. Reading: both type dialects (told
 * apart by `key_size`, §0.1), missing fields defaulted, and Vault's
 * upgrade-on-load rules (§15) applied.
 * @module
 */
import { encodeBase64, tryDecodeBase64, utf8 } from '../encoding.js';
import { invalidRequest } from '../errors.js';
import { MAX_DURATION_SECONDS } from '../request.js';
import { type Ed25519Public, INVALID_BACKUP } from './families/family.js';
import {
  bigField,
  boolField,
  bytesField,
  GoMap,
  GoObject,
  GoStruct,
  goJsonEncode,
  goJsonParse,
  intField,
  objectField,
  stringField,
} from './go-json.js';
import { familyReady, type KeyTypeInfo, keyTypeRows } from './key-types.js';
import { checkKeyName } from './names.js';
import { type BackupInfo, type KeyPolicy, type KeyVersion, MAX_VERSION } from './policy.js';
import { decodeEntry, encodeEntry } from './vault-backup-entry.js';

/** A key as a backup carries it. @internal */
export interface BackupKey {
  policy: KeyPolicy;
  versions: Map<number, KeyVersion>;
}

const ZERO_TIME = '0001-01-01T00:00:00Z';
const WHAT = INVALID_BACKUP;

const info = (i: BackupInfo | null) =>
  i
    ? new GoStruct([
        ['time', i.time],
        ['version', i.version],
      ])
    : null;

/**
 * Encode a key as Vault's backup blob (base64).
 * @internal
 */
export function encodeVaultBackup(k: BackupKey, type: KeyTypeInfo): string {
  const p = k.policy;
  const oldest = Math.max(1, p.min_available_version);
  const version = (n: number): KeyVersion => {
    const v = k.versions.get(n);
    if (!v) throw invalidRequest(`key version ${n} is missing`);
    return v;
  };
  const keys: [string, GoStruct][] = [];
  for (let n = Math.max(oldest, p.min_decryption_version); n <= p.latest_version; n++) {
    keys.push([String(n), encodeEntry(version(n), type)]);
  }
  const archive: GoStruct[] = p.min_available_version === 0 ? [encodeEntry(undefined, type)] : [];
  for (let n = oldest; n <= p.latest_version; n++) archive.push(encodeEntry(version(n), type));
  const fields: [string, unknown][] = [['name', p.name]];
  if (p.key_size > 0) fields.push(['key_size', p.key_size]);
  fields.push(
    ['keys', new GoMap(keys)],
    ['derived', p.derived],
    ['kdf', p.kdf],
    ['convergent_encryption', p.convergent_encryption],
    ['exportable', p.exportable],
    ['min_decryption_version', p.min_decryption_version],
    ['min_encryption_version', p.min_encryption_version],
    ['latest_version', p.latest_version],
    ['archive_version', p.latest_version],
    ['archive_min_version', p.min_available_version],
    ['min_available_version', p.min_available_version],
    ['deletion_allowed', p.deletion_allowed],
    ['convergent_version', p.convergent_version],
    ['type', type.vaultId],
    ['backup_info', info(p.backup_info)],
    ['restore_info', info(p.restore_info)],
    ['allow_plaintext_backup', p.allow_plaintext_backup],
    ['version_template', ''],
    ['storage_prefix', ''],
    ['auto_rotate_period', BigInt(p.auto_rotate_period) * 1_000_000_000n],
    ['Imported', p.imported],
    ['AllowImportedKeyRotation', p.allow_imported_key_rotation],
    ['soft_deleted', p.soft_deleted],
  );
  const json = goJsonEncode(
    new GoStruct([
      ['policy', new GoStruct(fields)],
      ['archived_keys', new GoStruct([['keys', archive]])],
    ]),
  );
  return encodeBase64(utf8(json));
}

function infoField(o: GoObject, name: string): BackupInfo | null {
  const i = objectField(o, name, WHAT);
  if (!i) return null;
  return { time: stringField(i, 'time', WHAT), version: intField(i, 'version', WHAT) };
}

/**
 * The key type of a Vault type integer, reading both dialects (§0.1): 11 is
 * Vault's hmac when `key_size` is set and OpenBao's xchacha20 otherwise; 10 is
 * OpenBao's hmac (with `key_size`) or Vault's managed key (not portable).
 * The key-sized family (hmac) is the one row that carries `key_size`.
 */
function typeFromVaultId(id: number, hasKeySize: boolean): KeyTypeInfo {
  const rows = keyTypeRows();
  // Key-pair rows are never key-sized; their family may not be loaded yet (issue 22).
  const keySized = (r: KeyTypeInfo): boolean => !r.asymmetric && r.family.keySized;
  const sized = rows.find(keySized);
  if (hasKeySize && (id === 10 || id === 11) && sized) return sized;
  const row = rows.find((r) => r.vaultId === id && !keySized(r));
  if (row) return row;
  if (id === 10) throw invalidRequest(`${WHAT}: managed keys (type 10) cannot be restored`);
  throw invalidRequest(`${WHAT}: unsupported key type ${id}`);
}

/** What decoding needs from the crypto backend. @internal */
export interface BackupCrypto {
  /** Fills a missing HMAC key (Vault's upgrade rule). */
  random: (n: number) => Uint8Array;
  /** Checks an Ed25519 seed against its stored public key. */
  ed25519Public: Ed25519Public;
}

/**
 * A backup blob's JSON: base64, then strict UTF-8, then Go's JSON (with its
 * case-insensitive field names); `top` is the whole object, `po` its policy.
 * @throws TransitError `invalid_request` for a blob that is not a backup.
 */
function readBackupJson(blob: unknown): { top: GoObject; po: GoObject } {
  if (typeof blob !== 'string' || blob === '') throw invalidRequest("'backup' must be supplied");
  const raw = tryDecodeBase64(blob);
  if (!raw) throw invalidRequest(`${WHAT}: not base64`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch {
    throw invalidRequest(`${WHAT}: not UTF-8 JSON`);
  }
  const root = goJsonParse(text, WHAT);
  if (typeof root !== 'object' || root === null || Array.isArray(root)) {
    throw invalidRequest(`${WHAT}: not a JSON object`);
  }
  const top = new GoObject(root as Record<string, unknown>);
  const po = objectField(top, 'policy', WHAT);
  if (!po) throw invalidRequest(`${WHAT}: no policy`);
  return { top, po };
}

/**
 * The name a restore without one writes: the blob's key name, read as
 * {@link decodeVaultBackup} reads it and checked by {@link restoreName}, without
 * decoding any key material (the HTTP adapter authorises on it before the
 * restore runs).
 * @throws TransitError `invalid_request` for a blob that is not a backup or names no valid key.
 * @internal
 */
export function backupKeyName(blob: unknown): string {
  return restoreName(undefined, stringField(readBackupJson(blob).po, 'name', WHAT));
}

/**
 * Decode a Vault (or OpenBao, or transitkit) backup blob of any key type.
 * @throws TransitError `invalid_request` for anything malformed or inconsistent.
 * @internal
 */
export async function decodeVaultBackup(blob: unknown, c: BackupCrypto): Promise<BackupKey> {
  const { top, po } = readBackupJson(blob);

  const keySize = intField(po, 'key_size', WHAT);
  const type = typeFromVaultId(intField(po, 'type', WHAT), keySize > 0);
  const ready = familyReady(type);
  if (ready) await ready;
  const versions = new Map<number, KeyVersion>();
  const entries: [number, GoObject][] = [];
  const put = (n: number, o: GoObject) => entries.push([n, o]);

  const minAvailable = intField(po, 'min_available_version', WHAT);
  const archived = objectField(top, 'archived_keys', WHAT)?.get('keys');
  if (archived !== undefined && archived !== null) {
    if (!Array.isArray(archived))
      throw invalidRequest(`${WHAT}: archived_keys.keys must be an array`);
    archived.forEach((item, i) => {
      if (typeof item !== 'object' || item === null)
        throw invalidRequest(`${WHAT}: archive entry ${i}`);
      const n = minAvailable === 0 ? i : minAvailable + i;
      if (n >= 1) put(n, new GoObject(item as Record<string, unknown>));
    });
  }
  const keysObj = objectField(po, 'keys', WHAT);
  for (const k of keysObj?.keys() ?? []) {
    if (!/^[0-9]{1,9}$/.test(k)) throw invalidRequest(`${WHAT}: key version ${JSON.stringify(k)}`);
    const o = objectField(keysObj as GoObject, k, WHAT);
    if (o) put(Number(k), o);
  }
  for (const [n, o] of entries) {
    const v = await decodeEntry(o, type, c.ed25519Public);
    if (v) versions.set(n, v);
  }
  // Upgrade rule: a pre-0.3 policy kept its only key in `policy.key`.
  const legacy = bytesField(po, 'key', WHAT);
  if (legacy && !versions.has(1)) {
    versions.set(1, {
      key: legacy,
      hmac_key: new Uint8Array(0),
      time: ZERO_TIME,
      creation_time: 0,
      convergent_version: 0,
    });
  }

  let latest = intField(po, 'latest_version', WHAT);
  if (latest === 0) latest = versions.size;
  if (latest < 1) throw invalidRequest(`${WHAT}: the key has no versions`);
  if (latest > MAX_VERSION) {
    throw invalidRequest(`${WHAT}: latest_version is above ${MAX_VERSION}, the highest supported`);
  }
  let minDec = intField(po, 'min_decryption_version', WHAT);
  if (minDec === 0) minDec = 1;
  const minEnc = intField(po, 'min_encryption_version', WHAT);
  if (
    minAvailable < 0 ||
    minAvailable > minDec ||
    minDec > latest ||
    minEnc < 0 ||
    minEnc > latest ||
    // As Vault's handleArchiving: a set minimum encryption version is not below decryption's.
    (minEnc > 0 && minEnc < minDec)
  ) {
    throw invalidRequest(`${WHAT}: inconsistent version bounds`);
  }
  const oldest = Math.max(1, minAvailable);
  for (let n = oldest; n <= latest; n++) {
    const v = versions.get(n);
    if (!v) throw invalidRequest(`${WHAT}: key version ${n} is missing`);
    // Sizes and material per family (hmac: `hmac_key` is the key).
    const checked = type.family.restoreVersion(type, v, keySize, n);
    if (checked.hmac_key.length === 0 && n === latest) {
      versions.set(n, { ...checked, hmac_key: c.random(32) });
    } else if (checked !== v) versions.set(n, checked);
  }
  for (const n of [...versions.keys()]) if (n < oldest || n > latest) versions.delete(n);

  const derived = boolField(po, 'derived', WHAT);
  const convergent = boolField(po, 'convergent_encryption', WHAT);
  const kdf = intField(po, 'kdf', WHAT);
  if (kdf !== 0 && kdf !== 1) throw invalidRequest(`${WHAT}: unknown kdf ${kdf}`);
  if (convergent && !derived)
    throw invalidRequest(`${WHAT}: convergent encryption without derivation`);
  if ((derived && !type.supportsDerivation) || (convergent && !type.supportsEncryption)) {
    throw invalidRequest(`${WHAT}: ${type.name} keys cannot be derived or convergent`);
  }
  let convergentVersion = intField(po, 'convergent_version', WHAT);
  if (convergent && convergentVersion === 0) convergentVersion = 1;
  // Nanoseconds (Go's time.Duration): past 2^53 from about 104 days on, so read exactly.
  const periodNs = bigField(po, 'auto_rotate_period', WHAT) ?? 0n;
  const period = Number(periodNs / 1_000_000_000n);
  if (period < 0 || period > MAX_DURATION_SECONDS)
    throw invalidRequest(`${WHAT}: auto_rotate_period`);

  const name = stringField(po, 'name', WHAT);
  const policy: KeyPolicy = {
    name,
    type: type.name,
    derived,
    kdf: kdf as 0 | 1,
    convergent_encryption: convergent,
    convergent_version: convergentVersion,
    exportable: boolField(po, 'exportable', WHAT),
    allow_plaintext_backup: boolField(po, 'allow_plaintext_backup', WHAT),
    deletion_allowed: boolField(po, 'deletion_allowed', WHAT),
    min_decryption_version: minDec,
    min_encryption_version: minEnc,
    min_available_version: minAvailable,
    latest_version: latest,
    auto_rotate_period: period,
    key_size: type.family.keySized ? keySize : 0,
    imported: boolField(po, 'Imported', WHAT),
    allow_imported_key_rotation: boolField(po, 'AllowImportedKeyRotation', WHAT),
    soft_deleted: boolField(po, 'soft_deleted', WHAT),
    backup_info: infoField(po, 'backup_info'),
    restore_info: infoField(po, 'restore_info'),
  };
  return { policy, versions };
}

/** Check a restore target name (Vault refuses only `/`; we also apply the key-name rules). @internal */
export function restoreName(value: unknown, fromBackup: string): string {
  const name = value === undefined || value === null || value === '' ? fromBackup : value;
  if (typeof name !== 'string') throw invalidRequest("'name' must be a string");
  if (name.includes('/')) throw invalidRequest('key names cannot be paths');
  return checkKeyName(name);
}
