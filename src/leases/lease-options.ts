/**
 * The options of a `LeaseManager`: every name it takes
 * ({@link LEASE_MANAGER_OPTIONS}), and {@link leaseOptions}, which checks
 * them in a fixed order (the first bad one is the error) and fills in the
 * defaults, Vault's where Vault has one.
 * @module
 */
import { type Clock, systemClock } from '../clock.js';
import { invalidRequest } from '../errors.js';
import { resolveMetrics } from '../metrics/noop.js';
import type { Metrics } from '../metrics/types.js';
import { Leadership } from '../node/leadership.js';
import { asRequest } from '../request.js';
import { requireStorageAdapter } from '../storage/adapter.js';
import { MAX_TIMER_MS, optionKeys, positiveInt, refuseUnknownOptions } from '../util/options.js';
import { sha256TokenKey } from './by-token.js';
import { platformRandom } from './lease.js';
import { DEFAULT_COUNT_INTERVAL_MS } from './lease-metrics.js';
import type { LeaseContext } from './lease-store.js';
import type { LeaseManagerOptions, RevokeOptions } from './types.js';

const DAY = 86_400;
/** Vault's system default and maximum lease TTL: 32 days. */
const DEFAULT_MAX_TTL = 32 * DAY;
/**
 * Default time of the leader lock: a standby takes over within about this
 * plus one refresh interval after the leader dies (issue #15: ≤ 15 s).
 */
const DEFAULT_LEADER_TTL_MS = 10_000;
/** TTLs are kept below ~100 years so every time fits the 13-digit index keys. */
const TTL_LIMIT = 100 * 365 * DAY;

/** Every option of {@link LeaseManagerOptions}. @internal */
export const LEASE_MANAGER_OPTIONS = /* @__PURE__ */ optionKeys<LeaseManagerOptions>({
  storage: true,
  clock: true,
  random: true,
  maxTtlSeconds: true,
  defaultTtlSeconds: true,
  revokeTimeoutMs: true,
  maxRevokeAttempts: true,
  retryBaseMs: true,
  sliceSize: true,
  concurrency: true,
  leaderTtlMs: true,
  leaderRefreshMs: true,
  leadership: true,
  tokenExists: true,
  tokenKey: true,
  onError: true,
  metrics: true,
  leaseCountIntervalMs: true,
});

/** Every option of {@link RevokeOptions}. */
const REVOKE_OPTIONS = /* @__PURE__ */ optionKeys<RevokeOptions>({ sync: true });

/**
 * The `sync` option of a revoke: true unless `false` (Vault's code default).
 * @throws TransitError `invalid_request` for another option (`unknown revoke option 'x'`).
 * @internal
 */
export function syncOf(options: unknown): boolean {
  const o = asRequest(options, 'options');
  refuseUnknownOptions(o, REVOKE_OPTIONS, 'revoke');
  const sync = o.sync;
  if (sync !== undefined && typeof sync !== 'boolean')
    throw invalidRequest("'sync' must be a boolean");
  return sync !== false;
}

/** The options the lease modules read, as their context holds them. */
type SharedSettings =
  | 'storage'
  | 'clock'
  | 'random'
  | 'maxTtl'
  | 'defaultTtl'
  | 'revokeTimeoutMs'
  | 'maxRevokeAttempts'
  | 'retryBaseMs'
  | 'sliceSize'
  | 'concurrency'
  | 'tokenExists'
  | 'tokenKey'
  | 'onError';

/** A manager's options, checked, with every default filled in. @internal */
export type LeaseSettings = Pick<LeaseContext, SharedSettings> & {
  /** A leadership shared with other services, or `undefined` for one of the manager's own. */
  readonly leadership: Leadership | undefined;
  readonly leaderTtlMs: number;
  readonly leaderRefreshMs: number;
  readonly metrics: Metrics;
  readonly countIntervalMs: number;
};

/**
 * Check a `LeaseManager`'s options and fill in the defaults.
 * @throws TransitError `invalid_request` for an unknown option, a missing
 *   storage or an out-of-range value (the first one, in a fixed order).
 * @internal
 */
export function leaseOptions(options: LeaseManagerOptions): LeaseSettings {
  const o = asRequest(options, 'options') as Partial<LeaseManagerOptions>;
  refuseUnknownOptions(o, LEASE_MANAGER_OPTIONS, 'LeaseManager');
  requireStorageAdapter(o.storage);
  const clock: Clock = o.clock ?? systemClock;
  if (typeof clock?.now !== 'function') throw invalidRequest("'clock' must have now()");
  const random = o.random ?? platformRandom;
  if (typeof random !== 'function') throw invalidRequest("'random' must be a function");
  const maxTtl = positiveInt(o.maxTtlSeconds, 'maxTtlSeconds', DEFAULT_MAX_TTL, TTL_LIMIT);
  const defaultTtl = positiveInt(o.defaultTtlSeconds, 'defaultTtlSeconds', maxTtl, maxTtl);
  for (const fn of ['tokenExists', 'tokenKey', 'onError'] as const) {
    if (o[fn] !== undefined && typeof o[fn] !== 'function') {
      throw invalidRequest(`'${fn}' must be a function`);
    }
  }
  if (o.leadership !== undefined && !(o.leadership instanceof Leadership)) {
    throw invalidRequest("'leadership' must be a Leadership");
  }
  const metrics = resolveMetrics(o.metrics, invalidRequest);
  const countIntervalMs = positiveInt(
    o.leaseCountIntervalMs,
    'leaseCountIntervalMs',
    DEFAULT_COUNT_INTERVAL_MS,
    MAX_TIMER_MS,
  );
  const revokeTimeoutMs = positiveInt(o.revokeTimeoutMs, 'revokeTimeoutMs', 30_000, MAX_TIMER_MS);
  const maxRevokeAttempts = positiveInt(o.maxRevokeAttempts, 'maxRevokeAttempts', 6, 30);
  const retryBaseMs = positiveInt(o.retryBaseMs, 'retryBaseMs', 10_000);
  const sliceSize = positiveInt(o.sliceSize, 'sliceSize', 256);
  const concurrency = positiveInt(o.concurrency, 'concurrency', 16);
  const leaderTtlMs = positiveInt(
    o.leaderTtlMs,
    'leaderTtlMs',
    DEFAULT_LEADER_TTL_MS,
    MAX_TIMER_MS,
  );
  const leaderRefreshMs = positiveInt(
    o.leaderRefreshMs,
    'leaderRefreshMs',
    Math.max(1, Math.floor(leaderTtlMs / 4)),
    Math.max(1, Math.floor(leaderTtlMs / 2)),
  );
  return {
    storage: o.storage,
    clock,
    random,
    maxTtl,
    defaultTtl,
    revokeTimeoutMs,
    maxRevokeAttempts,
    retryBaseMs,
    sliceSize,
    concurrency,
    tokenExists: o.tokenExists,
    tokenKey: o.tokenKey ?? sha256TokenKey,
    onError: o.onError ?? (() => undefined),
    leadership: o.leadership,
    leaderTtlMs,
    leaderRefreshMs,
    metrics,
    countIntervalMs,
  };
}
