/**
 * A view of a `MemoryStorage` whose change notifications are held until
 * `flush()`: a second instance whose change feed lags (the watch conformance
 * suite allows Redis and PostgreSQL feeds up to 5 s). Not a test file.
 */
import type { ListOptions, StorageAdapter, StorageWatch } from '../../src/storage/adapter.js';
import type { MemoryStorage } from '../../src/storage/memory.js';

export class SlowFeed implements StorageAdapter, StorageWatch {
  readonly #held: (() => void)[] = [];
  readonly #inner: MemoryStorage;

  constructor(inner: MemoryStorage) {
    this.#inner = inner;
  }

  get(k: string) {
    return this.#inner.get(k);
  }
  put(k: string, v: Uint8Array) {
    return this.#inner.put(k, v);
  }
  delete(k: string) {
    return this.#inner.delete(k);
  }
  list(p: string, o?: ListOptions) {
    return this.#inner.list(p, o);
  }
  compareAndSet(k: string, e: Uint8Array | undefined, n: Uint8Array | undefined) {
    return this.#inner.compareAndSet(k, e, n);
  }
  watch(prefix: string, onChange: (key: string) => void) {
    return this.#inner.watch(prefix, (key) => this.#held.push(() => onChange(key)));
  }

  /** Deliver the notifications held so far. */
  flush(): void {
    for (const f of this.#held.splice(0)) f();
  }
}
