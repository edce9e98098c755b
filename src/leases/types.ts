/**
 * The public shapes of the lease manager: its options, the requests it takes
 * and the results it returns. Field names are the snake_case JSON of Vault's
 * `/sys/leases` API, so the HTTP adapter passes
 * them through unchanged.
 * @module
 */

import type { Clock } from '../clock.js';
import type { Metrics } from '../metrics/types.js';
import type { Leadership } from '../node/leadership.js';
import type { StorageAdapter } from '../storage/adapter.js';

/** A duration: whole seconds, or a Vault duration string (`"90s"`, `"1h"`, `"7d"`). @public */
export type LeaseDuration = number | string;

/**
 * Options of the {@link LeaseManager} constructor.
 * @public
 */
export interface LeaseManagerOptions {
  /** Where leases live (entries, the due index, the irrevocable index). Required. */
  storage: StorageAdapter;
  /** Time source for expiry, renewal and retries (tests pass a fake clock). Default: the wall clock. */
  clock?: Clock;
  /** CSPRNG for lease ids and retry jitter: `n` random bytes. Default: `crypto.getRandomValues`. */
  random?: (n: number) => Uint8Array;
  /** The system maximum lease TTL in seconds. Default 32 days (Vault's `max_lease_ttl`). */
  maxTtlSeconds?: number;
  /** The TTL of a lease issued with `ttl` 0, in seconds. Default: `maxTtlSeconds`. */
  defaultTtlSeconds?: number;
  /** How long a revoker may run before the attempt counts as failed (real ms). Default 30,000. */
  revokeTimeoutMs?: number;
  /** Failed revocation attempts before a lease becomes irrevocable. Default 6 (Vault). */
  maxRevokeAttempts?: number;
  /** Base of the retry backoff `2^attempt × base ± 50%`, in ms. Default 10,000 (Vault). */
  retryBaseMs?: number;
  /** Due leases taken per slice of a tick; the event loop runs between slices. Default 256. */
  sliceSize?: number;
  /** Revocations run concurrently within a slice. Default 16. */
  concurrency?: number;
  /**
   * Time of the leader lock (storage clock, ms): how long the leader keeps it
   * without refreshing, so how long expiry can stall after the leader dies
   * (SIGKILL, power loss) before a standby takes over. Default 10,000, which
   * with the default refresh gives a failover within about 11 s (≤ 15 s, the
   * TTL of Consul's sessions behind Vault's HA lock).
   */
  leaderTtlMs?: number;
  /**
   * How often, while {@link LeaseManager.start} runs, the leader refreshes the
   * leader lock and a standby tries to take it (ms), besides every `tick()`.
   * Must be at most half of `leaderTtlMs`, so a refresh can fail once without
   * losing the lock. Default: a quarter of `leaderTtlMs` (2,500).
   */
  leaderRefreshMs?: number;
  /**
   * The node's leadership, shared with other background duties (a `Transit`'s
   * auto-rotation): expiry then runs where they do. Its `ttlMs` and `refreshMs`
   * replace `leaderTtlMs` and `leaderRefreshMs`, and its owner releases it
   * ({@link LeaseManager.stop} does not). Default: a leadership of this manager's own.
   */
  leadership?: Leadership;
  /**
   * True when `token` exists and has not expired: `tidy()` revokes the leases
   * whose token is not, and `issue` refuses (and revokes) a lease whose token is
   * gone once it is stored. Without it, `tidy()` is refused. Default: none, or
   * the `TokenStore` given this manager.
   */
  tokenExists?: (token: string) => Promise<boolean>;
  /**
   * The key a token's leases are indexed under (`sys/leases/token/<key>/`), for
   * {@link LeaseManager.revokeByToken}: at most 128 of `A-Z a-z 0-9 _ . = + -`,
   * one per token. Storage key names are not encrypted, so never the token
   * itself. Default: hex SHA-256 of the token. A `TokenStore` given this
   * manager replaces it with its salted hash (what it revokes tokens by), and
   * answers `tokenExists` unless that option is set.
   */
  tokenKey?: (token: string) => string | Promise<string>;
  /** Called with failures of background work (timer ticks, queued revocations). Default: ignore. */
  onError?: (error: unknown) => void;
  /**
   * Where to record `transitkit_leases_active`, `transitkit_leases_irrevocable`
   * (counted from the storage indexes at scrape time, reused for
   * `leaseCountIntervalMs`) and `transitkit_lease_expiry_lag_seconds`.
   * {@link LeaseManager.stop} removes the gauges. Default: none.
   */
  metrics?: Metrics;
  /** How long a lease count is reused between scrapes (ms). Default 10,000. */
  leaseCountIntervalMs?: number;
}

/**
 * Request of {@link LeaseManager.issue}.
 * @public
 */
export interface IssueRequest {
  /** The request path the lease belongs to (`database/creds/readonly`); the id starts with it. */
  path: string;
  /** The lease's TTL; 0 or absent means `defaultTtlSeconds`. Capped by the maximum TTL. */
  ttl?: LeaseDuration;
  /** This lease's own maximum TTL (from its issue time); 0 or absent: the system maximum. */
  max_ttl?: LeaseDuration;
  /** Whether `renew` may extend it. */
  renewable: boolean;
  /**
   * The client token that owns the lease: revoking the token
   * ({@link LeaseManager.revokeByToken}, or any token revocation in a
   * `TransitNode`) revokes the lease, and `tidy` revokes it once the token is
   * gone. With `tokenExists`, a token that no longer exists right after the
   * lease is stored gets the lease revoked and the issue refused.
   */
  token?: string;
  /** True for a lease that stands for an auth token: renewed through the token endpoints only. */
  auth?: boolean;
  /** Anything JSON-serialisable the revoker needs (a username to drop, an API key id…). */
  data?: unknown;
}

/**
 * A lease handed out or renewed: the top-level fields of Vault's response envelope.
 * @public
 */
export interface LeaseGrant {
  /** `<path>/<24 base62 characters>`. */
  lease_id: string;
  renewable: boolean;
  /** Seconds until expiry. */
  lease_duration: number;
  /** Present when the TTL was capped (Vault's `TTL of "…" exceeded the effective max_ttl…`). */
  warnings?: string[];
}

/**
 * Result of {@link LeaseManager.lookup} (`POST /sys/leases/lookup`).
 * @public
 */
export interface LeaseLookup {
  id: string;
  /** RFC 3339 with fraction. */
  issue_time: string;
  /** RFC 3339 with fraction; null when the lease has no expiry. */
  expire_time: string | null;
  /** RFC 3339 with fraction; null until the first renewal. */
  last_renewal: string | null;
  path: string;
  /** Whether `renew` would currently be accepted (false when expired or irrevocable). */
  renewable: boolean;
  /** Whole seconds left (never negative). */
  ttl: number;
}

/**
 * What a revoker receives: the lease being revoked.
 * @public
 */
export interface RevokableLease {
  lease_id: string;
  path: string;
  /** The `data` given at issue. */
  data: unknown;
  token: string | undefined;
  auth: boolean;
  issue_time: string;
  expire_time: string;
  /** Revocation attempts so far, this one included. */
  attempt: number;
}

/**
 * A function that revokes the secret behind a lease (drops the database user,
 * deletes the API key…). It must be idempotent: after a crash it may run again.
 * Throw to fail the attempt (retried with backoff); throw an error with
 * `unrecoverable: true`, or a `TransitError` `invalid_request` /
 * `unsupported_operation`, to make the lease irrevocable at once. The
 * `signal` aborts when the attempt times out.
 * @public
 */
export type Revoker = (
  lease: RevokableLease,
  context: { signal: AbortSignal },
) => Promise<void> | void;

/** Options of {@link LeaseManager.revoke} and {@link LeaseManager.revokePrefix}. @public */
export interface RevokeOptions {
  /**
   * true (default, as Vault's code): the revoker has run when the call returns.
   * false: the revocation is stored as due now and done in the background.
   */
  sync?: boolean;
}

/** Result of {@link LeaseManager.list}: id suffixes, sub-folders ending with `/`. @public */
export interface LeaseList {
  keys: string[];
}

/** Result of {@link LeaseManager.count} (`GET /sys/leases/count`). @public */
export interface LeaseCount {
  lease_count: number;
  /** Per mount (the first path segment with its `/`). */
  counts: Record<string, number>;
}

/** One entry of {@link LeaseManager.listIrrevocable}. @public */
export interface IrrevocableLease {
  lease_id: string;
  mount_id: string;
  /** Why revocation failed (`out of retries: …` after the last attempt). */
  error: string;
}

/** Result of {@link LeaseManager.listIrrevocable} (`GET /sys/leases`). @public */
export interface IrrevocableList {
  /** The number of leases returned (as Vault). */
  lease_count: number;
  /** Sorted by expire time, then lease id. */
  leases: IrrevocableLease[];
  /** Present when more irrevocable leases exist than the limit. */
  warnings?: string[];
}

/** Result of {@link LeaseManager.tidy}. @public */
export interface TidyResult {
  /** Leases bound to a token that were checked. */
  checked: number;
  /** Leases revoked because their token is gone or expired. */
  revoked: number;
  /** Leases whose revocation failed (they are retried in the background). */
  failed: number;
}

/** Result of one {@link LeaseManager.tick}. @public */
export interface TickResult {
  /** Whether this instance held the leader lock (only the leader expires leases). */
  leader: boolean;
  /** Leases revoked in this tick. */
  revoked: number;
  /** Failed attempts scheduled for a retry. */
  retried: number;
  /** Leases that became irrevocable. */
  irrevocable: number;
}
