/**
 * The storage contract.
 *
 * Bytes in, bytes out. Small on purpose: a new engine (PostgreSQL, DynamoDB,
 * etcd) is an afternoon. The required core is {@link StorageAdapter}; leader
 * duties and multi-instance cache invalidation use the named capabilities
 * {@link StorageLock} and {@link StorageWatch}. Every adapter passes the shared
 * conformance suite, which `transitkit/testing` exports for your own adapters.
 *
 * Keys are non-empty strings of Unicode text; `/` is an ordinary character
 * (used by convention as a separator). Ordering is by UTF-16 code unit, as
 * JavaScript's default string comparison.
 *
 * @module
 */

import { invalidRequest } from '../errors.js';

/**
 * Options of {@link StorageAdapter.list}.
 * @public
 */
export interface ListOptions {
  /** Return only keys strictly greater than `prefix + after`. The key need not exist. */
  after?: string;
  /** At most this many keys; 0 or absent means all. */
  limit?: number;
}

/**
 * The required storage core.
 * @public
 */
export interface StorageAdapter {
  /** The value at `key`, or `undefined`. */
  get(key: string): Promise<Uint8Array | undefined>;
  /** Store `value` at `key` (replacing). Durable when the promise resolves. */
  put(key: string, value: Uint8Array): Promise<void>;
  /** Remove `key`; removing a missing key is not an error. */
  delete(key: string): Promise<void>;
  /**
   * Keys that start with `prefix`, sorted ascending, returned **without** the
   * prefix. Cost is proportional to the page, not to the number of keys.
   */
  list(prefix: string, options?: ListOptions): Promise<string[]>;
  /**
   * Atomically replace the value at `key` with `next` only if it currently
   * equals `expected` (`undefined` = absent). `next === undefined` deletes.
   * Returns true when the swap happened. Atomic across processes sharing the store.
   */
  compareAndSet(
    key: string,
    expected: Uint8Array | undefined,
    next: Uint8Array | undefined,
  ): Promise<boolean>;
  /** Release resources (connections, file locks). Idempotent. */
  close?(): Promise<void>;
}

/**
 * A held lease-based lock. @public
 */
export interface LockHandle {
  /** Extend the lock's lease; false when it was lost (expired and taken). */
  refresh(ttlMs: number): Promise<boolean>;
  /** Release the lock if still held. */
  release(): Promise<void>;
}

/**
 * Capability: lease-based named locks for leader duties.
 * @public
 */
export interface StorageLock {
  /** Try to take the lock `name` for `ttlMs`; `undefined` when another holder has it. */
  lock(name: string, ttlMs: number): Promise<LockHandle | undefined>;
}

/**
 * Capability: change notifications from other instances, for cache invalidation.
 * @public
 */
export interface StorageWatch {
  /**
   * Call `onChange(key)` when a key under `prefix` changes; returns an
   * unsubscribe function. `onChange(prefix)` (the prefix itself) means
   * anything under it may have changed, deletions included (after
   * notifications were lost, e.g. a reconnection): drop every cached entry.
   */
  watch(prefix: string, onChange: (key: string) => void): Promise<() => Promise<void>>;
}

/** True when the adapter implements {@link StorageLock}. @public */
export function hasLock(s: StorageAdapter): s is StorageAdapter & StorageLock {
  return typeof (s as Partial<StorageLock>).lock === 'function';
}

/** True when the adapter implements {@link StorageWatch}. @public */
export function hasWatch(s: StorageAdapter): s is StorageAdapter & StorageWatch {
  return typeof (s as Partial<StorageWatch>).watch === 'function';
}

/** The methods every {@link StorageAdapter} has. */
const REQUIRED = ['get', 'put', 'delete', 'list', 'compareAndSet'] as const;

/** The first required method `s` lacks ('' for an adapter; undefined for a non-object). */
function missingMethod(s: unknown): string | undefined {
  if (typeof s !== 'object' || s === null) return undefined;
  const a = s as Record<string, unknown>;
  return REQUIRED.find((m) => typeof a[m] !== 'function') ?? '';
}

/**
 * The one check every constructor makes of a storage it is given: each
 * method of the core present, or an error that says which is not.
 * @param what - the option as the message names it (`'storage'`).
 * @param hint - appended to the message (`' (omit it for memory storage)'`).
 * @throws TransitError `invalid_request`: `'storage' must be a StorageAdapter: it has no compareAndSet`.
 * @internal
 */
export function requireStorageAdapter(
  s: unknown,
  what = "'storage'",
  hint = '',
): asserts s is StorageAdapter {
  const missing = missingMethod(s);
  if (missing === '') return;
  const detail = missing === undefined ? '' : `: it has no ${missing}`;
  throw invalidRequest(`${what} must be a StorageAdapter${hint}${detail}`);
}
