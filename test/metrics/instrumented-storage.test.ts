/**
 * instrumentStorage (src/storage/instrumented.ts): the wrapped adapter still
 * passes the shared storage conformance suites (core, lock, watch), times each
 * operation by adapter and operation, counts failures and rethrows them, and
 * has `lock`/`watch` exactly when the inner adapter has them.
 */
import {
  hasLock,
  hasWatch,
  instrumentStorage,
  MemoryStorage,
  type StorageAdapter,
} from 'transitkit';
import {
  FakeClock,
  runLockConformance,
  runStorageConformance,
  runWatchConformance,
} from 'transitkit/testing';
import { describe, expect, it } from 'vitest';
import { RecordingMetrics } from './recording.js';

const DURATION = 'transitkit_storage_operation_duration_seconds';
const ERRORS = 'transitkit_storage_errors_total';
/** The exported suite registers its tests with this file's vitest. */
const harness = { describe, it, expect };

runStorageConformance(harness, 'instrumented memory', async () => {
  const clock = new FakeClock();
  const storage = instrumentStorage(new MemoryStorage({ clock }), new RecordingMetrics(), 'inmem');
  return { storage, clock };
});
runLockConformance(harness, 'instrumented memory', async () => {
  const clock = new FakeClock();
  const storage = instrumentStorage(new MemoryStorage({ clock }), new RecordingMetrics(), 'inmem');
  return { storage, clock };
});
runWatchConformance(harness, 'instrumented memory', async () => ({
  storage: instrumentStorage(new MemoryStorage(), new RecordingMetrics(), 'inmem'),
}));

describe('instrumentStorage', () => {
  it('times every operation, labelled by adapter and operation', async () => {
    const m = new RecordingMetrics();
    const s = instrumentStorage(new MemoryStorage(), m, 'inmem');
    await s.put('a', new Uint8Array([1]));
    await s.get('a');
    await s.get('b');
    await s.list('');
    await s.compareAndSet('a', new Uint8Array([1]), new Uint8Array([2]));
    await s.delete('a');
    if (!hasLock(s)) throw new Error('lock expected');
    await (await s.lock('l', 1000))?.release();
    const at = (operation: string) => m.observed(DURATION, { adapter: 'inmem', operation });
    expect(at('get')).toHaveLength(2);
    for (const op of ['put', 'list', 'compare_and_set', 'delete', 'lock']) {
      expect(at(op), op).toHaveLength(1);
    }
    for (const v of at('get')) expect(v).toBeGreaterThanOrEqual(0);
    expect(m.series(ERRORS)).toEqual([]);
  });

  it('counts a failure and rethrows it unchanged', async () => {
    const m = new RecordingMetrics();
    const boom = new Error('disk on fire');
    const failing: StorageAdapter = {
      get: async () => {
        throw boom;
      },
      put: async () => undefined,
      delete: async () => undefined,
      list: async () => [],
      compareAndSet: async () => true,
    };
    const s = instrumentStorage(failing, m, 'custom');
    await expect(s.get('x')).rejects.toBe(boom);
    await expect(s.get('y')).rejects.toBe(boom);
    expect(m.count(ERRORS, { adapter: 'custom', operation: 'get' })).toBe(2);
    expect(m.observed(DURATION, { adapter: 'custom', operation: 'get' })).toHaveLength(2);
    // No lock or watch on the inner adapter: none on the wrapper either.
    expect(hasLock(s)).toBe(false);
    expect(hasWatch(s)).toBe(false);
  });

  it('keeps the capabilities of the inner adapter and forwards close', async () => {
    let closed = 0;
    const inner = new MemoryStorage();
    Object.assign(inner, { close: async () => void closed++ });
    const s = instrumentStorage(inner, new RecordingMetrics(), 'inmem');
    expect(hasLock(s)).toBe(true);
    expect(hasWatch(s)).toBe(true);
    await s.close?.();
    expect(closed).toBe(1);
  });
});
