/**
 * Writing archived key versions (./archive-store.ts) so that a writer whose
 * view of the key is behind storage loses nothing, and deleting them.
 *
 * A version is archived by writing its entry *before* the document that
 * drops it from the hot window is compare-and-set, and storage has no
 * transaction across the two. So the entry writes are themselves guarded:
 *
 * - a version leaving the hot window is written only where its entry is
 *   absent or already holds the same bytes. Other bytes there are either
 *   the leftover of an attempt that never committed (then the document in
 *   storage is still the writer's, and the entry is replaced) or another
 *   instance's archive of it, rewritten since (a certificate set, a private
 *   half imported): then the writer's view is behind, nothing is written,
 *   and the caller reloads and tries again. Before this guard, a rotate on a
 *   view a moment old overwrote such a rewrite, and the certificate was lost;
 * - a rewrite of an archived version (set-certificate, import_version) is
 *   compare-and-set against the bytes the version it rewrote was read from,
 *   so two instances rewriting one version never lose either change; if the
 *   document then does not commit, the rewrite is put back the same way
 *   (`ArchiveStore.undoRewrites`);
 * - entries an attempt wrote whose document did not commit are deleted when
 *   the key has since gone, been replaced or been trimmed past them
 *   ({@link dropUncommitted}), so that no key material outlives
 *   its key.
 * @module
 */
import type { StorageAdapter } from '../storage/adapter.js';
import { keyspace } from '../storage/keyspace.js';
import { sameBytes } from '../util/same-bytes.js';
import type { ArchiveStore, WriteView } from './archive-store.js';
import { type KeyPolicy, type KeyVersion, oldestVersion } from './policy.js';
import { encodeVersion } from './policy-codec.js';
import type { Mutation } from './policy-store.js';

/**
 * Write the entries of `cold` (versions below the hot window of `policy`),
 * pushing each version written to `written`; false when `view` proved
 * behind storage (nothing more is written).
 * @internal
 */
export async function archive(
  store: ArchiveStore,
  policy: KeyPolicy,
  uid: string,
  cold: ReadonlyMap<number, KeyVersion>,
  written: number[],
  view: WriteView | undefined,
  base: ReadonlyMap<number, KeyVersion> | undefined,
): Promise<boolean> {
  const { storage } = store;
  for (const [n, v] of cold) {
    const bytes = encodeVersion(v);
    const path = keyspace.archive(policy.name, uid, n);
    const from = view && !view.hot.has(n) ? base?.get(n) : undefined;
    if (!view) await storage.put(path, bytes);
    else if (from) {
      const expected = store.sources.get(from) ?? encodeVersion(from);
      if (!(await storage.compareAndSet(path, expected, bytes))) {
        // Rewritten meanwhile: the next attempt reads it afresh.
        store.changed(policy.name, uid, n);
        return false;
      }
    } else if (!(await leave(store, policy.name, view, path, bytes))) return false;
    written.push(n);
    store.sources.set(v, bytes);
    // Keep the cache in step: a version can be rewritten (set-certificate).
    store.cache.set(policy.name, uid, n, v);
  }
  return true;
}

/** Archive a version leaving the hot window of `view`; false when `view` is behind. */
async function leave(
  store: ArchiveStore,
  name: string,
  view: WriteView,
  path: string,
  bytes: Uint8Array,
): Promise<boolean> {
  const { storage } = store;
  if (await storage.compareAndSet(path, undefined, bytes)) return true;
  const there = await storage.get(path);
  if (there && sameBytes(there, bytes)) return true;
  // Other bytes: a leftover of an attempt that never committed, if the
  // document is still the one this view read; otherwise another instance
  // archived it (and may have rewritten it) since.
  const doc = await storage.get(keyspace.policy(name));
  if (!doc || !sameBytes(doc, view.raw)) return false;
  return storage.compareAndSet(path, there, bytes);
}

/** {@link ArchiveStore.dropUncommitted}, once it has entries to look at. @internal */
export async function dropUncommitted(
  store: ArchiveStore,
  uid: string,
  written: readonly number[],
  now: { uid: string; policy: KeyPolicy } | undefined,
  name: string,
): Promise<void> {
  const floor = now?.uid === uid ? oldestVersion(now.policy) : Number.POSITIVE_INFINITY;
  await dropVersions(
    store,
    name,
    uid,
    written.filter((n) => n < floor),
  );
}

/** {@link ArchiveStore.dropTrimmed}, once a trim removed versions. @internal */
export async function dropTrimmed(
  store: ArchiveStore,
  uid: string,
  before: KeyPolicy,
  after: KeyPolicy,
): Promise<void> {
  const from = oldestVersion(before);
  const to = oldestVersion(after);
  await dropVersions(
    store,
    after.name,
    uid,
    Array.from({ length: to - from }, (_, i) => from + i),
  );
}

/** Delete the entries of `versions` of one incarnation. */
async function dropVersions(
  store: ArchiveStore,
  name: string,
  uid: string,
  versions: readonly number[],
): Promise<void> {
  for (const v of versions) {
    store.cache.delete(name, uid, v);
    await store.storage.delete(keyspace.archive(name, uid, v));
  }
}

/** Delete every archived entry of one incarnation. @internal */
export async function deleteIncarnation(
  store: ArchiveStore,
  name: string,
  uid: string,
): Promise<void> {
  const prefix = keyspace.archivePrefix(name, uid);
  store.cache.deleteKey(name, uid);
  for (;;) {
    const page = await store.storage.list(prefix, { limit: 1000 });
    if (page.length === 0) return;
    for (const k of page) await store.storage.delete(prefix + k);
  }
}

/**
 * Delete the entries of one incarnation below `oldest` (its oldest available
 * version) that a trim left behind: the trim's document committed, then
 * deleting the trimmed entries failed part-way. A trim that moves nothing
 * (its retry) still runs this. Versions below `oldest` never come back
 * (`min_available_version` cannot be lowered), so nothing live is touched.
 * Entries list in version order, so only the lowest page is read.
 * @internal
 */
export async function sweepTrimmed(
  storage: StorageAdapter,
  name: string,
  uid: string,
  oldest: number,
): Promise<void> {
  const prefix = keyspace.archivePrefix(name, uid);
  for (;;) {
    const page = await storage.list(prefix, { limit: 100 });
    const below = page.filter((k) => Number(k) < oldest);
    for (const k of below) await storage.delete(prefix + k);
    if (below.length < page.length || page.length < 100) return;
  }
}

/** {@link ArchiveStore.undoRewrites}, once there may be something to put back. @internal */
export async function undoRewrites(
  store: ArchiveStore,
  name: string,
  uid: string,
  m: Mutation,
  written: readonly number[],
): Promise<void> {
  for (const n of written) {
    const was = m.base?.get(n);
    const now = m.add?.get(n);
    const after = now && store.sources.get(now);
    if (!was || !after) continue; // not a rewrite of an archived version
    const before = store.sources.get(was) ?? encodeVersion(was);
    await store.storage.compareAndSet(keyspace.archive(name, uid, n), after, before);
    store.changed(name, uid, n);
  }
}
