/**
 * A storage adapter that records the latency and the failures of every
 * operation (`get`, `put`, `delete`, `list`, `compare_and_set`, `lock`) of
 * the adapter it wraps, labelled with the adapter's kind (`inmem`, `file`,
 * `redis`, `postgresql`, or the application's own name): one wrapper for
 * every adapter instead of timing code in each. `watch` and `close` pass
 * through untimed, and the wrapper has `lock` and `watch` exactly when the
 * inner adapter has them (so capability checks see the same adapter).
 *
 * Placed below the barrier, it times what the storage does (ciphertext
 * in, ciphertext out); keys and values never become labels.
 *
 * Runtime-neutral (`performance.now()` is a global in every runtime).
 * @module
 */
import { METRICS } from '../metrics/catalog.js';
import type { CounterInstrument, HistogramInstrument, Metrics } from '../metrics/types.js';
import {
  hasLock,
  hasWatch,
  type ListOptions,
  type LockHandle,
  type StorageAdapter,
  type StorageLock,
  type StorageWatch,
} from './adapter.js';

type Op = 'get' | 'put' | 'delete' | 'list' | 'compare_and_set' | 'lock';

/**
 * What {@link instrumentStorage} returns: a storage adapter with the `lock`
 * and `watch` capabilities of the adapter it wraps (and no other member of it).
 * @public
 */
export type InstrumentedStorage<S extends StorageAdapter> = StorageAdapter &
  Pick<S, Extract<keyof S, 'lock' | 'watch'>>;

/** Label sets made once per operation, so a recording allocates nothing. */
function labelSets(adapter: string): Record<Op, { adapter: string; operation: Op }> {
  const ops: Op[] = ['get', 'put', 'delete', 'list', 'compare_and_set', 'lock'];
  return Object.fromEntries(
    ops.map((operation) => [operation, Object.freeze({ adapter, operation })]),
  ) as Record<Op, { adapter: string; operation: Op }>;
}

/**
 * Wrap `storage` so that each operation is timed into
 * `transitkit_storage_operation_duration_seconds` and each failure counted in
 * `transitkit_storage_errors_total`, labelled `adapter`.
 *
 * @example
 * ```ts
 * import { instrumentStorage, MemoryStorage, noopMetrics, Transit } from 'transitkit';
 *
 * const storage = instrumentStorage(new MemoryStorage(), noopMetrics, 'inmem');
 * const transit = new Transit({ storage });
 * ```
 * @param adapter - the adapter's kind, a label value: keep it to a fixed name.
 * @public
 */
export function instrumentStorage<S extends StorageAdapter>(
  storage: S,
  metrics: Metrics,
  adapter: string,
): InstrumentedStorage<S> {
  const duration: HistogramInstrument = metrics.histogram(METRICS.storageDuration);
  const errors: CounterInstrument = metrics.counter(METRICS.storageErrors);
  const labels = labelSets(adapter);
  const timed = async <T>(op: Op, run: () => Promise<T>): Promise<T> => {
    const start = performance.now();
    try {
      return await run();
    } catch (e) {
      errors.add(1, labels[op]);
      throw e;
    } finally {
      duration.record((performance.now() - start) / 1000, labels[op]);
    }
  };
  const out: StorageAdapter & Partial<StorageLock & StorageWatch> = {
    get: (key: string) => timed('get', () => storage.get(key)),
    put: (key: string, value: Uint8Array) => timed('put', () => storage.put(key, value)),
    delete: (key: string) => timed('delete', () => storage.delete(key)),
    list: (prefix: string, options?: ListOptions) =>
      timed('list', () => storage.list(prefix, options)),
    compareAndSet: (key, expected, next) =>
      timed('compare_and_set', () => storage.compareAndSet(key, expected, next)),
  };
  if (storage.close) out.close = () => (storage.close as () => Promise<void>).call(storage);
  if (hasLock(storage)) {
    out.lock = (name: string, ttlMs: number): Promise<LockHandle | undefined> =>
      timed('lock', () => storage.lock(name, ttlMs));
  }
  if (hasWatch(storage)) {
    out.watch = (prefix: string, onChange: (key: string) => void) =>
      storage.watch(prefix, onChange);
  }
  return out as InstrumentedStorage<S>;
}
