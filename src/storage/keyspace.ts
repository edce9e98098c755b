/**
 * Where each kind of entry lives in storage. One place, so adapters, the
 * barrier and migrations see one layout.
 *
 * - `transit/policy/<name>`: a key's document (configuration + hot versions);
 * - `transit/archive/<name>/<uid>/<version:10>`: archived versions of one
 *   incarnation of a key (a re-created name gets a new uid, so stale entries
 *   of a deleted key can never be read);
 * - `transit/purge/<uid>`: an incarnation being deleted (the value is the
 *   key's name) whose archive entries are still to be deleted: written
 *   before its document goes, removed once its archive is gone, so that a
 *   storage failure in between leaves a note, not orphaned key material
 *   ({@link purgeKeyspace});
 * - `transit/config/keys`, `transit/config/cache`: global settings.
 *
 * Leases (src/leases):
 * - `sys/leases/entry/<lease id>`: one lease (JSON); the source of truth;
 * - `sys/leases/expiry/<ms:13>/<lease id>`: the due index (empty values), listed
 *   in time order: the next action (expiry or revocation retry) of each pending lease;
 * - `sys/leases/irrevocable/<expire ms:13>/<lease id>`: irrevocable leases, in
 *   the order `listIrrevocable` returns them;
 * - `sys/leases/token/<token key>/<lease id>`: the leases issued with a token,
 *   by the token's key (its salted hash in a node; `LeaseManagerOptions.tokenKey`),
 *   so that revoking the token revokes them;
 * - lock `sys/leases/leader`: the instance that expires leases.
 * @module
 */

/** @internal */
export const keyspace = {
  policyPrefix: 'transit/policy/',
  policy: (name: string): string => `transit/policy/${name}`,
  archivePrefix: (name: string, uid: string): string => `transit/archive/${name}/${uid}/`,
  archive: (name: string, uid: string, version: number): string =>
    `transit/archive/${name}/${uid}/${String(version).padStart(10, '0')}`,
  archiveRoot: 'transit/archive/',
  keysConfig: 'transit/config/keys',
  cacheConfig: 'transit/config/cache',
  // Leases (src/leases): entry, due index, irrevocable index, token index, leader lock.
  leaseEntryPrefix: 'sys/leases/entry/',
  leaseEntry: (id: string): string => `sys/leases/entry/${id}`,
  leaseDuePrefix: 'sys/leases/expiry/',
  leaseDue: (ms: number, id: string): string => `sys/leases/expiry/${ms13(ms)}/${id}`,
  leaseIrrevocablePrefix: 'sys/leases/irrevocable/',
  leaseIrrevocable: (ms: number, id: string): string => `sys/leases/irrevocable/${ms13(ms)}/${id}`,
  leaseTokenPrefix: (key: string): string => `sys/leases/token/${key}/`,
  leaseToken: (key: string, id: string): string => `sys/leases/token/${key}/${id}`,
  leaseLeaderLock: 'sys/leases/leader',
} as const;

/**
 * The pending purges of deleted incarnations (`transit/purge/<uid>`), apart
 * from {@link keyspace} so that a build that never deletes a key leaves them out.
 * @internal
 */
export const purgeKeyspace = {
  prefix: 'transit/purge/',
  entry: (uid: string): string => `transit/purge/${uid}`,
} as const;

/**
 * The name, uid and version of an archive entry's storage key
 * (`transit/archive/<name>/<uid>/<version:10>`; a name may hold `/`), or
 * `undefined` for any other key.
 * @internal
 */
export function parseArchiveKey(
  key: string,
): { name: string; uid: string; version: number } | undefined {
  if (!key.startsWith(keyspace.archiveRoot)) return undefined;
  const last = key.lastIndexOf('/');
  const before = key.lastIndexOf('/', last - 1);
  if (before < keyspace.archiveRoot.length) return undefined;
  const digits = key.slice(last + 1);
  if (!/^[0-9]{10}$/.test(digits)) return undefined;
  return {
    name: key.slice(keyspace.archiveRoot.length, before),
    uid: key.slice(before + 1, last),
    version: Number(digits),
  };
}

/**
 * The time a key holds for `ms`: whole milliseconds, clamped to 13 digits. A
 * time read back from a key equals `keyMs` of the time it was written with.
 * @internal
 */
export function keyMs(ms: number): number {
  return Math.min(Math.max(Math.trunc(ms), 0), 9_999_999_999_999);
}

/** A time in ms as 13 digits (clamped), so keys sort in time order up to the year 2286. */
function ms13(ms: number): string {
  return String(keyMs(ms)).padStart(13, '0');
}
