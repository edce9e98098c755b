/**
 * The storage kit: the argument checks and helpers every storage adapter shares
 * (memory here in the core; file, Redis and PostgreSQL under `adapters/`), so
 * that all of them refuse the same keys, values and list options with the same
 * messages: {@link checkKey}, {@link checkListArgs}, {@link checkBytes},
 * {@link copyBytes}, {@link sameValue}, the process-local lock table
 * {@link LeaseTable} and the ordered key index {@link SortedKeys}.
 *
 * Not part of the public API. No `node:*` import: the memory adapter that uses
 * it must run in a browser.
 * @module
 */
import type { Clock } from '../clock.js';
import { invalidRequest } from '../errors.js';
import { sameBytes } from '../util/same-bytes.js';
import type { ListOptions, LockHandle } from './adapter.js';
import { checkLockName, lockTtlMs } from './lock-args.js';

export { SortedKeys } from './sorted-keys.js';

/** Matches a UTF-16 surrogate that is not half of a pair. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * Refuse keys no adapter can store faithfully: non-strings, `''`, NUL (PostgreSQL
 * text and C APIs cannot hold it) and lone surrogates (UTF-8 engines would turn
 * them into U+FFFD and silently alias two keys).
 * @throws `TransitError` `invalid_request`.
 * @internal
 */
export function checkKey(key: unknown): asserts key is string {
  if (typeof key !== 'string') throw invalidRequest('storage key must be a string');
  if (key.length === 0) throw invalidRequest('storage key must not be empty');
  if (key.includes('\0')) throw invalidRequest('storage key must not contain NUL (\\0)');
  if (LONE_SURROGATE.test(key)) {
    throw invalidRequest('storage key must be well-formed Unicode (it has a lone surrogate)');
  }
}

/**
 * Validate `list` arguments; returns `after` and `limit` (0 = all).
 * @throws `TransitError` `invalid_request`.
 * @internal
 */
export function checkListArgs(
  prefix: unknown,
  options: ListOptions | undefined,
): { after: string | undefined; limit: number } {
  if (typeof prefix !== 'string') throw invalidRequest('list prefix must be a string');
  const after = options?.after;
  const limit = options?.limit ?? 0;
  if (after !== undefined && typeof after !== 'string') {
    throw invalidRequest('list option "after" must be a string');
  }
  if (!Number.isSafeInteger(limit) || limit < 0) {
    throw invalidRequest(`list option "limit" must be an integer >= 0, got ${String(limit)}`);
  }
  return { after, limit };
}

/** True for a `Uint8Array` (including a Node `Buffer`), from any realm. */
function isBytes(v: unknown): v is Uint8Array {
  return (
    v instanceof Uint8Array ||
    (ArrayBuffer.isView(v) && Object.prototype.toString.call(v) === '[object Uint8Array]')
  );
}

/**
 * @throws `TransitError` `invalid_request` when `v` is not a `Uint8Array`.
 * @internal
 */
export function checkBytes(v: unknown, what: string): asserts v is Uint8Array {
  if (!isBytes(v)) throw invalidRequest(`storage ${what} must be a Uint8Array`);
}

/**
 * A plain `Uint8Array` copy of exactly the bytes of `v` (view offsets honoured).
 * @throws `TransitError` `invalid_request` when `v` is not a `Uint8Array`.
 * @internal
 */
export function copyBytes(v: unknown, what = 'value'): Uint8Array {
  checkBytes(v, what);
  return new Uint8Array(v);
}

/**
 * Equality of two optional byte strings (`undefined` = absent). Not constant-time:
 * it compares stored records, not secrets from an attacker.
 * @internal
 */
export function sameValue(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return sameBytes(a, b);
}

/**
 * Process-local lease locks read from a {@link Clock}.
 *
 * A lease is held while `clock.now() < expiresAt`. `refresh` succeeds as long as
 * nobody else has taken the lock since (an expired lease that no one claimed is
 * still this holder's); `release` never frees a lock someone else now holds.
 * @internal
 */
export class LeaseTable {
  readonly #clock: Clock;
  readonly #held = new Map<string, { expiresAt: number }>();

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /**
   * Take `name` for `ttlMs`, or `undefined` while another live lease holds it.
   * @throws `TransitError` `invalid_request` for an empty name or a TTL that is not > 0.
   */
  acquire(name: string, ttlMs: number): LockHandle | undefined {
    checkLockName(name);
    lockTtlMs(ttlMs);
    const now = this.#clock.now();
    const current = this.#held.get(name);
    if (current !== undefined && now < current.expiresAt) return undefined;
    const lease = { expiresAt: now + ttlMs };
    this.#held.set(name, lease);
    return {
      refresh: async (ttl: number) => {
        lockTtlMs(ttl);
        if (this.#held.get(name) !== lease) return false;
        lease.expiresAt = this.#clock.now() + ttl;
        return true;
      },
      release: async () => {
        if (this.#held.get(name) === lease) this.#held.delete(name);
      },
    };
  }

  /** Forget every lease (on close). */
  clear(): void {
    this.#held.clear();
  }
}
