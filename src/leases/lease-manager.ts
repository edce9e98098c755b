/**
 * The `LeaseManager` class: short-lived secrets that expire, renew and revoke
 * reliably, as Vault's `/sys/leases`. Each method is a TSDoc
 * block and a call into the module that implements it:
 * issue-renew.ts, lookup.ts, revoke.ts, irrevocable.ts, tidy.ts, and the
 * expiry scheduler in scheduler.ts; its options are checked in
 * lease-options.ts. Storage layout: src/storage/keyspace.ts.
 * @module
 */
import { invalidRequest } from '../errors.js';
import { Leadership } from '../node/leadership.js';
import { asRequest } from '../request.js';
import { MAX_TIMER_MS, positiveInt } from '../util/options.js';
import { revokeByTokenKey, tokenKeyOf } from './by-token.js';
import { countLeases, listIrrevocable } from './irrevocable.js';
import { issueLease, renewLease } from './issue-renew.js';
import { checkPrefix, plausibleLeaseId, requireLeaseId } from './lease.js';
import { type LeaseMetrics, leaseMetrics } from './lease-metrics.js';
import { leaseOptions, syncOf } from './lease-options.js';
import type { LeaseContext } from './lease-store.js';
import { listLeases, lookupLease } from './lookup.js';
import { revokeLater, revokeSync, revokeUnder } from './revoke.js';
import { RevokerRegistry } from './revokers.js';
import { Scheduler } from './scheduler.js';
import { tidyRunner } from './tidy.js';
import type {
  IrrevocableList,
  IssueRequest,
  LeaseCount,
  LeaseDuration,
  LeaseGrant,
  LeaseList,
  LeaseLookup,
  LeaseManagerOptions,
  RevokeOptions,
  Revoker,
  TickResult,
  TidyResult,
} from './types.js';

/**
 * Leases on pluggable storage: issue, look up, list, renew, revoke (now, queued,
 * by prefix, forced), tidy, irrevocable counts — and expiry by one scheduler on
 * an injectable clock (`tick()` / `start()`), with no timer per lease.
 *
 * Register revokers before the first tick: a due lease without one becomes
 * irrevocable at once. Several instances may share one storage: only the holder
 * of the leader lock expires leases, and every change to a lease is a
 * compare-and-set, so two instances never both process it.
 *
 * @throws TransitError `invalid_request` from the constructor for a missing
 * storage or an out-of-range option.
 *
 * @example
 * ```ts
 * const dropped: string[] = [];
 * const leases = new LeaseManager({ storage: new MemoryStorage() });
 * leases.registerRevoker('database/', async (lease) => {
 *   dropped.push((lease.data as { username: string }).username); // e.g. DROP USER
 * });
 * const { lease_id } = await leases.issue({
 *   path: 'database/creds/readonly', ttl: '1h', renewable: true, data: { username: 'v-ro-1' },
 * });
 * await leases.renew(lease_id, '30m');
 * leases.start(1_000); // expire due leases every second
 * await leases.revoke(lease_id); // sync by default: dropped is ['v-ro-1'] on return
 * await leases.stop();
 * ```
 * @public
 */
export class LeaseManager {
  readonly #ctx: LeaseContext;
  readonly #scheduler: Scheduler;
  readonly #leadership: Leadership;
  readonly #metrics: LeaseMetrics;
  readonly #tidy: ReturnType<typeof tidyRunner>;

  constructor(options: LeaseManagerOptions) {
    const {
      leadership: given,
      leaderTtlMs,
      leaderRefreshMs,
      metrics,
      countIntervalMs,
      ...o
    } = leaseOptions(options);
    this.#ctx = {
      ...o,
      revokers: new RevokerRegistry(),
      queue: undefined,
      running: new Map(),
      background: new Set(),
    };
    const leadership =
      given ??
      new Leadership({
        storage: o.storage,
        clock: o.clock,
        ttlMs: leaderTtlMs,
        refreshMs: leaderRefreshMs,
        onError: o.onError,
      });
    this.#leadership = leadership;
    this.#scheduler = new Scheduler(this.#ctx, leadership, given === undefined);
    this.#tidy = tidyRunner(this.#ctx);
    // Last: the gauges are registered only once every option was accepted.
    this.#metrics = leaseMetrics(metrics, o.storage, o.clock, countIntervalMs);
    this.#ctx.expiryLag = this.#metrics.expiryLag;
  }

  /**
   * Register the revoker for lease ids starting with `prefix` (longest prefix
   * wins; the same prefix again replaces it). Returns a function that removes it.
   * @throws TransitError `invalid_request` for a non-string prefix or a non-function.
   */
  registerRevoker(prefix: string, fn: Revoker): () => void {
    return this.#ctx.revokers.register(prefix, fn);
  }

  /**
   * Hand out a lease with id `<path>/<24 base62 characters>`, stored before this
   * resolves. `ttl` 0 means `defaultTtlSeconds`; a TTL past the maximum is capped
   * (with Vault's warning in `warnings`).
   * @throws TransitError `invalid_request` for a bad path (empty segment, `.`/`..`,
   * other characters than `A-Za-z0-9_.@:+=,~-`), TTL, flag, token or data.
   */
  async issue(request: IssueRequest): Promise<LeaseGrant> {
    return issueLease(this.#ctx, request);
  }

  /**
   * Read a lease (`POST /sys/leases/lookup`).
   * @throws TransitError `invalid_request`: `lease_id must be specified`, `invalid lease`.
   */
  async lookup(lease_id: string): Promise<LeaseLookup> {
    return lookupLease(this.#ctx, lease_id);
  }

  /**
   * Ids under `prefix` (`LIST /sys/leases/lookup/:prefix`, sudo over HTTP): the
   * suffixes after `prefix/`, sub-folders ending with `/`. Empty when none.
   * @throws TransitError `invalid_request` for a malformed prefix.
   */
  async list(prefix: string): Promise<LeaseList> {
    return listLeases(this.#ctx, prefix);
  }

  /**
   * Extend a lease (`POST /sys/leases/renew`): by `increment`, or by its own TTL
   * when 0; capped by its max TTL counted from its issue time. Token leases
   * (`auth: true`) renew only with `{ auth: true }`, which the token endpoints pass.
   * @throws TransitError `invalid_request`: "lease_id must be specified", "lease not
   * found", "lease is not renewable", "lease expired", "lease is expired and has
   * failed previous revocation attempts", "tokens cannot be renewed through this
   * endpoint", "past the max TTL, cannot renew"; `conflict` under heavy contention.
   */
  async renew(
    lease_id: string,
    increment: LeaseDuration = 0,
    options: { auth?: boolean } = {},
  ): Promise<LeaseGrant> {
    return renewLease(this.#ctx, lease_id, increment, options.auth === true);
  }

  /**
   * Revoke a lease (`POST /sys/leases/revoke`). `sync` (default true, as Vault's
   * code): the revoker has run on return. `sync: false`: the revocation is stored
   * (due now) before return and done in the background; a restart finishes it.
   * An unknown lease is a no-op.
   * @throws TransitError `invalid_request` `lease_id must be specified`;
   * `invalid_request` with the revoker's error when it failed (sync; Vault's 400; the lease is retried or irrevocable).
   */
  async revoke(lease_id: string, options: RevokeOptions = {}): Promise<void> {
    const id = requireLeaseId(lease_id);
    const sync = syncOf(options);
    if (!plausibleLeaseId(id)) return; // cannot name a lease: unknown, a no-op
    if (!sync) await revokeLater(this.#ctx, [id]);
    else await revokeSync(this.#ctx, id, false);
  }

  /**
   * Revoke every lease under `prefix` (`revoke-prefix`, sudo over HTTP); an exact
   * lease id without a trailing `/` revokes that lease. `sync` as in {@link LeaseManager.revoke}.
   * @throws TransitError `invalid_request` for an empty prefix, and when revokers failed (Vault's 400).
   */
  async revokePrefix(prefix: string, options: RevokeOptions = {}): Promise<void> {
    return revokeUnder(this.#ctx, checkPrefix(prefix), syncOf(options), false);
  }

  /**
   * Revoke everything under `prefix` ignoring revoker errors (`revoke-force`, sudo):
   * each revoker is tried once and the leases are removed, irrevocable ones included.
   * @throws TransitError `invalid_request` for an empty prefix.
   */
  async revokeForce(prefix: string): Promise<void> {
    return revokeUnder(this.#ctx, checkPrefix(prefix), true, true);
  }

  /**
   * Revoke every lease issued with `token` (Vault revokes a token's leases with
   * it; a `TransitNode` does this whenever a token is revoked or expires). The
   * revocations are stored before this returns and run in the background, as
   * `revoke` with `sync: false`; a restart finishes them.
   * @throws TransitError `invalid_request` for a missing token.
   */
  async revokeByToken(token: string): Promise<void> {
    if (typeof token !== 'string' || token === '') throw invalidRequest('missing token');
    await revokeByTokenKey(this.#ctx, await tokenKeyOf(this.#ctx, token));
  }

  /**
   * Called by a `TokenStore` given this manager: its tokens' leases are indexed
   * by its salted hash (which is all it keeps of a token, so that revoking one
   * revokes its leases) and `tokenExists` asks it, unless that option was given.
   * @internal
   */
  bindTokens(tokens: {
    exists: (token: string) => Promise<boolean>;
    key: (token: string) => string | Promise<string>;
  }): void {
    this.#ctx.tokenKey = tokens.key;
    this.#ctx.tokenExists ??= tokens.exists;
  }

  /**
   * {@link LeaseManager.revokeByToken} by the token's key, for a token store
   * that keeps only hashes.
   * @internal
   */
  async revokeByTokenKey(key: string): Promise<void> {
    await revokeByTokenKey(this.#ctx, key);
  }

  /**
   * Revoke leases whose token is gone or expired, per the `tokenExists` option.
   * One pass runs at a time: a call while one runs gets that pass's result.
   * @throws TransitError `unsupported_operation` without `tokenExists`;
   * `conflict` when {@link LeaseManager.stop} ends the pass early.
   */
  async tidy(): Promise<TidyResult> {
    return this.#tidy.run();
  }

  /**
   * Start {@link LeaseManager.tidy} in the background and return at once, as
   * Vault's `sys/leases/tidy` does (one pass at a time; a failure goes to
   * `onError`; {@link LeaseManager.idle} waits for it, and `stop()` ends it
   * at its next lease, as sealing ends Vault's).
   * @throws TransitError `unsupported_operation` without `tokenExists`, at once.
   */
  startTidy(): void {
    this.#tidy.start();
  }

  /**
   * Count irrevocable leases, total and per mount (`GET /sys/leases/count`).
   * @throws TransitError `not_found` for a type other than `irrevocable` (Vault: 404).
   */
  async count(request: { type: 'irrevocable' }): Promise<LeaseCount> {
    return countLeases(this.#ctx, asRequest(request).type);
  }

  /**
   * List irrevocable leases sorted by expire time then id (`GET /sys/leases`, sudo).
   * `limit`: `''` → at most 10,000, `'none'` → all, or a positive integer; when
   * more exist, `warnings` carries Vault's text.
   * @throws TransitError `invalid_request` for another limit.
   */
  async listIrrevocable(request: { limit?: string | number } = {}): Promise<IrrevocableList> {
    return listIrrevocable(this.#ctx, 'irrevocable', asRequest(request).limit);
  }

  /**
   * One expiry pass: on the leader, revoke every lease due by now, in slices with
   * the event loop running between them. Resolves `{ leader: false }` elsewhere.
   * @throws when storage fails (the timer of {@link LeaseManager.start} reports it to `onError`).
   */
  async tick(): Promise<TickResult> {
    return this.#scheduler.tick();
  }

  /**
   * Tick now and every `intervalMs` (default 1,000) on an unref'd timer; also
   * keep the leader lock (refresh it, or try to take it) every `leaderRefreshMs`.
   */
  start(intervalMs = 1_000): void {
    this.#scheduler.start(positiveInt(intervalMs, 'intervalMs', 1_000, MAX_TIMER_MS));
  }

  /**
   * Stop the timer, stop a tidy pass at its next lease (its callers get a
   * `conflict`), wait for running work, release the leader lock, remove the
   * lease gauges.
   */
  async stop(): Promise<void> {
    this.#metrics.stop();
    this.#tidy.cancel();
    await this.#scheduler.stop();
    await this.idle();
  }

  /** Whether this instance held the leader lock at its last tick or lock refresh. */
  isLeader(): boolean {
    return this.#scheduler.isLeader();
  }

  /**
   * The leadership expiry runs under (the `leadership` option, or this
   * manager's own): give it to a `Transit` on the same storage so that
   * auto-rotation runs on the same leader.
   */
  get leadership(): Leadership {
    return this.#leadership;
  }

  /** Resolve once the background work started so far (queued revocations, a started tidy) is done. */
  async idle(): Promise<void> {
    while (this.#ctx.background.size > 0) await Promise.all(this.#ctx.background);
  }
}
