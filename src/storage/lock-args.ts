/**
 * The one rule for a storage lock's arguments, shared by every adapter
 * (memory, file, Redis, PostgreSQL), so the same call gets the same answer:
 * - a name is a non-empty, well-formed Unicode string without NUL, as a
 *   storage key (a UTF-8 server cannot keep a lone surrogate, and PostgreSQL's
 *   text cannot hold NUL);
 * - a TTL is a finite number of ms above 0 and at most 2^31 − 1 (about 24.8
 *   days). Beyond that a server refuses it as an internal error (PostgreSQL's
 *   interval, Redis's PX overflow) and Node's timers, which keep a lock
 *   refreshed, fire every millisecond.
 * @module
 */
import { invalidRequest } from '../errors.js';
import { MAX_TIMER_MS } from '../util/options.js';

const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * Check a lock name.
 * @throws TransitError `invalid_request` for a name that is not a non-empty,
 * well-formed Unicode string without NUL.
 * @internal
 */
export function checkLockName(name: unknown): asserts name is string {
  if (typeof name !== 'string' || name.length === 0) {
    throw invalidRequest('lock name must be a non-empty string');
  }
  if (name.includes('\0') || LONE_SURROGATE.test(name)) {
    throw invalidRequest('lock name must be well-formed Unicode without NUL');
  }
}

/**
 * `ttlMs` in whole milliseconds (at least 1).
 * @throws TransitError `invalid_request` for a TTL out of range.
 * @internal
 */
export function lockTtlMs(ttlMs: unknown): number {
  if (typeof ttlMs !== 'number' || !Number.isFinite(ttlMs) || ttlMs <= 0 || ttlMs > MAX_TIMER_MS) {
    throw invalidRequest(
      `lock ttl must be a number of ms above 0 and at most ${MAX_TIMER_MS}, got ${String(ttlMs)}`,
    );
  }
  return Math.max(1, Math.ceil(ttlMs));
}
