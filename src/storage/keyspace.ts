/**
 * Where each kind of entry lives in storage. One place, so adapters, the
 * barrier and migrations see one layout.
 *
 * - `transit/policy/<name>`: a key's document (configuration + hot versions);
 * - `transit/archive/<name>/<uid>/<version:10>`: archived versions of one
 *   incarnation of a key (a re-created name gets a new uid, so stale entries
 *   of a deleted key can never be read);
 * - `transit/config/keys`, `transit/config/cache`: global settings.
 * @module
 */

/** @internal */
export const keyspace = {
  policyPrefix: 'transit/policy/',
  policy: (name: string): string => `transit/policy/${name}`,
  archivePrefix: (name: string, uid: string): string => `transit/archive/${name}/${uid}/`,
  archive: (name: string, uid: string, version: number): string =>
    `transit/archive/${name}/${uid}/${String(version).padStart(10, '0')}`,
  keysConfig: 'transit/config/keys',
  cacheConfig: 'transit/config/cache',
} as const;
