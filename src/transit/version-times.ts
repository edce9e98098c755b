/**
 * The creation times of a key's versions, looked up one by one: a symmetric
 * key's read body listing as built each time (./read-body.ts, for keys with
 * few versions) and as first built to be kept (./creation-times.ts).
 * @module
 */
import type { KeyVersion } from '../keys/policy.js';
import type { LoadedKey, PolicyStore } from '../keys/policy-store.js';

/** Add the creation times of versions `from..to` to `times`. @internal */
export async function fillCreationTimes(
  store: PolicyStore,
  key: LoadedKey,
  times: Record<number, number>,
  from: number,
  to: number,
): Promise<void> {
  // Archived versions by number, fetched once: no path built or hashed per version.
  const archived = store.archivedVersions(key);
  for (let v = from; v <= to; v++) {
    // Synchronous when cached: with 1,000 versions, one await each was most of a rotate.
    const ver: KeyVersion =
      key.doc.versions.get(v) ?? archived?.get(v) ?? (await store.version(key, v));
    times[v] = ver.creation_time;
  }
}
