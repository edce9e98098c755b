/**
 * A storage as another process (or a failing network) sees it: every call
 * passed to `inner`, for tests to override the one they bend — reads that
 * fail, notifications held back or lost. Not a test file.
 */
import type { ListOptions, MemoryStorage, StorageAdapter, StorageWatch } from '../../src/index.js';

export class StorageView implements StorageAdapter, StorageWatch {
  constructor(readonly inner: MemoryStorage) {}
  get(key: string): Promise<Uint8Array | undefined> {
    return this.inner.get(key);
  }
  put(key: string, value: Uint8Array): Promise<void> {
    return this.inner.put(key, value);
  }
  delete(key: string): Promise<void> {
    return this.inner.delete(key);
  }
  list(prefix: string, options?: ListOptions): Promise<string[]> {
    return this.inner.list(prefix, options);
  }
  compareAndSet(
    key: string,
    expected: Uint8Array | undefined,
    next: Uint8Array | undefined,
  ): Promise<boolean> {
    return this.inner.compareAndSet(key, expected, next);
  }
  watch(prefix: string, onChange: (key: string) => void): Promise<() => Promise<void>> {
    return this.inner.watch(prefix, onChange);
  }
}
