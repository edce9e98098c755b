/**
 * The one rule for a storage lock's TTL, shared by every adapter (memory,
 * file, Redis, PostgreSQL): a finite number of ms above 0 and at most
 * 2^31 − 1 (about 24.8 days). Beyond that a server refuses it as an internal
 * error (PostgreSQL's interval, Redis's PX overflow) and Node's timers, which
 * keep a lock refreshed, fire every millisecond.
 * @module
 */
import { invalidRequest } from '../errors.js';
import { MAX_TIMER_MS } from '../util/options.js';

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
