/**
 * Cache coherence across engines that share storage (README, "Many
 * instances, one authority"): when the adapter offers `watch`, a change to a
 * key's document drops that key from this engine's cache, a change to an
 * archived version's entry drops that version (see
 * `PolicyStore.invalidateArchived`), and a change to a global setting reloads
 * the settings. Without `watch`, an engine assumes it is the only writer (its
 * own writes keep its cache current; compare-and-set still protects
 * concurrent writes).
 *
 * A settings reload that fails keeps the cache size (upsert reads its setting
 * from storage, failing closed, config.ts `upsertDisabled`) and is retried
 * every {@link RETRY_MS} until one succeeds or the engine closes. A notification of the watched prefix itself
 * means "anything may have changed": every cached key is dropped and the
 * settings reloaded.
 * @module
 */
import { hasWatch } from '../storage/adapter.js';
import { keyspace, parseArchiveKey } from '../storage/keyspace.js';
import { loadSettings } from './config.js';
import type { Engine } from './engine.js';

const PREFIX = 'transit/';
/** Delay between retries of a failed settings reload. @internal */
export const RETRY_MS = 1_000;

/** Subscribe the engine's caches to storage changes; returns the unsubscribe function. @internal */
export async function watchForChanges(e: Engine): Promise<(() => Promise<void>) | undefined> {
  const storage = e.storage;
  if (!hasWatch(storage)) return undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;
  const reload = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (closed) return;
    loadSettings(e).catch(() => {
      if (closed || timer !== undefined) return;
      timer = setTimeout(reload, RETRY_MS);
      (timer as { unref?: () => void }).unref?.();
    });
  };
  const unwatch = await storage.watch(PREFIX, (key) => {
    if (key.startsWith(keyspace.policyPrefix)) {
      e.store.invalidate(key.slice(keyspace.policyPrefix.length));
    } else if (key.startsWith(keyspace.archiveRoot)) {
      const entry = parseArchiveKey(key);
      // Anything else under the archive is no entry of this layout: nothing is cached for it.
      if (entry) e.store.invalidateArchived(entry.name, entry.uid, entry.version);
    } else if (key === keyspace.keysConfig || key === keyspace.cacheConfig) {
      reload();
    } else if (key === PREFIX) {
      e.store.invalidate();
      reload();
    }
  });
  // Anything written between the first load and the subscription went unheard.
  e.store.invalidate();
  try {
    await loadSettings(e);
  } catch (err) {
    closed = true;
    await unwatch();
    throw err;
  }
  return async () => {
    closed = true;
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    await unwatch();
  };
}
