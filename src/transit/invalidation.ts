/**
 * Cache coherence across engines that share storage (design.md, "Concurrency
 * and many instances"): when the adapter offers `watch`, a change to a key's
 * document drops that key from this engine's cache, and a change to a global
 * setting reloads the settings. Without `watch`, an engine assumes it is the
 * only writer (its own writes keep its cache current; compare-and-set still
 * protects concurrent writes).
 * @module
 */
import { hasWatch } from '../storage/adapter.js';
import { keyspace } from '../storage/keyspace.js';
import { loadSettings } from './config.js';
import type { Engine } from './engine.js';

/** Subscribe the engine's caches to storage changes; returns the unsubscribe function. @internal */
export async function watchForChanges(e: Engine): Promise<(() => Promise<void>) | undefined> {
  const storage = e.storage;
  if (!hasWatch(storage)) return undefined;
  return storage.watch('transit/', (key) => {
    if (key.startsWith(keyspace.policyPrefix)) {
      e.store.invalidate(key.slice(keyspace.policyPrefix.length));
    } else if (key === keyspace.keysConfig || key === keyspace.cacheConfig) {
      // A failed reload keeps the previous settings; the next change retries.
      loadSettings(e).catch(() => undefined);
    }
  });
}
