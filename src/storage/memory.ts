/**
 * `MemoryStorage`: the in-process storage adapter (tests, examples, single
 * instance apps, browsers).
 *
 * It implements the whole storage contract ({@link StorageAdapter}): the core, the
 * {@link StorageLock} capability (leases read the injected {@link Clock}, so tests
 * expire them with a fake clock) and {@link StorageWatch} (subscribers of the
 * *same* instance are told about writes, in a microtask after the write).
 *
 * Shape, and why:
 * - Values live in a `Map`; a B+tree of the keys ({@link SortedKeys},
 *   sorted-keys.ts) keeps `put`/`delete` at O(log n) and a `list` page at
 *   O(log n + page), so a store of millions of keys fills at a steady rate.
 * - Empty values (index keys such as the lease due index) share one stored
 *   empty array: nothing can mutate a zero-length array, and `get` copies anyway.
 * - Bytes are copied on the way in (synchronously, when `put` is called) and on
 *   the way out, so no caller can mutate what is stored.
 * - Every method body runs without an `await`, so `compareAndSet` is atomic with
 *   respect to every other call on the instance for free.
 * - No `node:*` import: this module must run in a browser.
 *
 * It lives in the core (not under `adapters/`) because it is the default store:
 * `new Transit()` without a storage option uses it. Its checks and lock table
 * come from the storage kit (kit.ts), which the other adapters share.
 *
 * @module
 */
import { type Clock, systemClock } from '../clock.js';
import { invalidRequest } from '../errors.js';
import type {
  ListOptions,
  LockHandle,
  StorageAdapter,
  StorageLock,
  StorageWatch,
} from './adapter.js';
import { checkBytes, checkKey, checkListArgs, LeaseTable, SortedKeys, sameValue } from './kit.js';

/** Options of {@link MemoryStorage}. @public */
export interface MemoryStorageOptions {
  /** Time source for lock leases (default: the system clock). */
  clock?: Clock;
}

interface Subscriber {
  readonly prefix: string;
  readonly onChange: (key: string) => void;
}

/**
 * A complete storage adapter held in memory.
 *
 * @throws `TransitError` `invalid_request` for an empty key, a key containing NUL
 * or a lone UTF-16 surrogate, a value that is not a `Uint8Array`, bad list options,
 * or a bad lock name / TTL.
 *
 * @example
 * ```ts
 * const storage = new MemoryStorage();
 * await storage.put('policy/k1', new Uint8Array([1, 2, 3]));
 * await storage.list('policy/'); // ['k1']
 * ```
 * @public
 */
export class MemoryStorage implements StorageAdapter, StorageLock, StorageWatch {
  readonly #values = new Map<string, Uint8Array>();
  readonly #keys = new SortedKeys();
  readonly #leases: LeaseTable;
  readonly #subscribers = new Set<Subscriber>();

  /** Create an empty store. */
  constructor(options: MemoryStorageOptions = {}) {
    this.#leases = new LeaseTable(options.clock ?? systemClock);
  }

  /** The value at `key` (a fresh copy), or `undefined`. */
  async get(key: string): Promise<Uint8Array | undefined> {
    checkKey(key);
    const v = this.#values.get(key);
    return v === undefined ? undefined : new Uint8Array(v);
  }

  /** Store a copy of `value` at `key`. */
  async put(key: string, value: Uint8Array): Promise<void> {
    checkKey(key);
    this.#set(key, storedCopy(value));
  }

  /** Remove `key`; a missing key is fine. */
  async delete(key: string): Promise<void> {
    checkKey(key);
    this.#remove(key);
  }

  /** Keys under `prefix`, sorted, without the prefix; O(log n + page). */
  async list(prefix: string, options?: ListOptions): Promise<string[]> {
    const { after, limit } = checkListArgs(prefix, options);
    return this.#keys.page(prefix, after, limit);
  }

  /** Swap `expected` for `next` atomically (`undefined` = absent / delete). */
  async compareAndSet(
    key: string,
    expected: Uint8Array | undefined,
    next: Uint8Array | undefined,
  ): Promise<boolean> {
    checkKey(key);
    if (expected !== undefined) checkBytes(expected, 'expected');
    const nextCopy = next === undefined ? undefined : storedCopy(next, 'next');
    const current = this.#values.get(key);
    if (!sameValue(current, expected)) return false;
    if (nextCopy === undefined) this.#remove(key);
    else this.#set(key, nextCopy);
    return true;
  }

  /** Take the lease `name` for `ttlMs`, or `undefined` while someone else holds it. */
  async lock(name: string, ttlMs: number): Promise<LockHandle | undefined> {
    return this.#leases.acquire(name, ttlMs);
  }

  /**
   * Call `onChange(key)` in a microtask after each put, delete of an existing key,
   * or successful compareAndSet under `prefix`. A throwing listener is ignored
   * (it cannot break the write or other listeners).
   */
  async watch(prefix: string, onChange: (key: string) => void): Promise<() => Promise<void>> {
    if (typeof prefix !== 'string') throw invalidRequest('watch prefix must be a string');
    if (typeof onChange !== 'function') throw invalidRequest('watch onChange must be a function');
    const sub: Subscriber = { prefix, onChange };
    this.#subscribers.add(sub);
    return async () => {
      this.#subscribers.delete(sub);
    };
  }

  /** Drop every watcher and lease. Stored data stays readable. Idempotent. */
  async close(): Promise<void> {
    this.#subscribers.clear();
    this.#leases.clear();
  }

  #set(key: string, value: Uint8Array): void {
    if (!this.#values.has(key)) this.#keys.insert(key);
    this.#values.set(key, value);
    this.#notify(key);
  }

  #remove(key: string): void {
    if (!this.#values.delete(key)) return;
    this.#keys.remove(key);
    this.#notify(key);
  }

  #notify(key: string): void {
    for (const sub of this.#subscribers) {
      if (!key.startsWith(sub.prefix)) continue;
      queueMicrotask(() => {
        if (!this.#subscribers.has(sub)) return; // unsubscribed in the meantime
        try {
          sub.onChange(key);
        } catch {
          // A listener's failure is its own; the write already happened.
        }
      });
    }
  }
}

/** The one stored empty value (nothing can change a zero-length array). */
const EMPTY = new Uint8Array(0);

/** What MemoryStorage keeps for `v`: a copy, or the shared {@link EMPTY}. */
function storedCopy(v: unknown, what = 'value'): Uint8Array {
  checkBytes(v, what);
  return v.length === 0 ? EMPTY : new Uint8Array(v);
}
