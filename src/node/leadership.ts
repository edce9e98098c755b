/**
 * Leadership: which instance runs the background duties (lease expiry,
 * auto-rotation) when several share one storage. One {@link Leadership} per
 * node holds the storage's leader lock `sys/leases/leader`; the lease
 * scheduler and the auto-rotation timer both consult it, so the two duties
 * always run on the same instance and nowhere else.
 *
 * - Without the lock capability every instance is its own leader.
 * - {@link Leadership.ensure} takes the lock (standby) or refreshes it
 *   (leader). Lock operations run one at a time (a shared promise): two
 *   concurrent takes would leak the first handle.
 * - {@link Leadership.start} keeps it every `refreshMs` on an unref'd timer, so
 *   a standby takes over within about `ttlMs + refreshMs` of the leader's
 *   death, however long the duties run.
 * - A leader that cannot reach the storage for a whole TTL counts itself a
 *   standby (another may lead by now).
 * - Listeners ({@link Leadership.onChange}) hear every gain and loss: the lease
 *   scheduler drops its heap then (it would go stale) and reloads on a gain.
 *
 * Runtime-neutral.
 * @module
 */
import type { Clock } from '../clock.js';
import { systemClock } from '../clock.js';
import type { LockHandle, StorageAdapter, StorageLock } from '../storage/adapter.js';
import { hasLock } from '../storage/adapter.js';
import { keyspace } from '../storage/keyspace.js';
import { brandClass } from '../util/brand.js';
import { MAX_TIMER_MS, positiveInt } from '../util/options.js';
import { settledWithin } from '../util/settled-within.js';

/** Options of {@link Leadership}. @public */
export interface LeadershipOptions {
  /** The shared storage; leadership needs its lock capability (else every instance leads). */
  storage: StorageAdapter;
  /** Time source of the refresh bookkeeping. Default: the wall clock. */
  clock?: Clock;
  /** Time of the leader lock, ms (the lease manager's `leaderTtlMs`): an integer up to 2^31 − 1. */
  ttlMs: number;
  /** How often {@link Leadership.start} refreshes or tries the lock, ms (at most half of `ttlMs`). */
  refreshMs: number;
  /** Errors of the upkeep timer (default: ignored). */
  onError?: (error: unknown) => void;
}

/**
 * The leader lock of one node, shared by every background duty.
 *
 * @example
 * ```ts
 * const leadership = new Leadership({ storage, ttlMs: 10_000, refreshMs: 2_500 });
 * const leases = new LeaseManager({ storage, leadership });
 * const transit = new Transit({ storage, leadership }); // auto-rotates only while leading
 * ```
 * @public
 */
export class Leadership {
  static {
    // Recognised from the other build (ESM/CJS) or copy of the package too.
    brandClass(Leadership, 'Leadership');
  }

  readonly #storage: StorageAdapter;
  readonly #clock: Clock;
  readonly #ttlMs: number;
  readonly #refreshMs: number;
  readonly #onError: (error: unknown) => void;
  readonly #listeners = new Set<(leader: boolean) => void>();
  #handle: LockHandle | undefined;
  #lastRefresh = 0;
  #leader = false;
  #since: number | undefined;
  #lockOp: Promise<boolean> | undefined;
  #upkeep: ReturnType<typeof setInterval> | undefined;

  /**
   * Create a standby; nothing is taken until {@link Leadership.ensure} or {@link Leadership.start}.
   * @throws TransitError `invalid_request` for a `ttlMs` or `refreshMs` out of range.
   */
  constructor(options: LeadershipOptions) {
    this.#storage = options.storage;
    this.#clock = options.clock ?? systemClock;
    // Required, and within what Node's timers keep (a longer period fires every 1 ms).
    this.#ttlMs = positiveInt(options.ttlMs ?? 0, 'ttlMs', 0, MAX_TIMER_MS);
    // At most half the TTL (as LeaseManager's leaderRefreshMs): a refresh comes before the lock runs out.
    const half = Math.max(1, Math.floor(this.#ttlMs / 2));
    this.#refreshMs = positiveInt(options.refreshMs ?? 0, 'refreshMs', 0, half);
    this.#onError = options.onError ?? (() => undefined);
  }

  /** Time of the leader lock, ms. */
  get ttlMs(): number {
    return this.#ttlMs;
  }

  /** Refresh interval of the upkeep, ms. */
  get refreshMs(): number {
    return this.#refreshMs;
  }

  /**
   * Whether the lock is shared: the storage can lock, so another instance on
   * it may lead instead of this one (Vault's `ha_enabled`). `false`: this
   * instance always leads alone.
   */
  get shared(): boolean {
    return hasLock(this.#storage);
  }

  /**
   * When this instance last became the leader (ms, its clock), while
   * {@link Leadership.isLeader}; else `undefined`.
   */
  get leaderSince(): number | undefined {
    return this.isLeader() ? this.#since : undefined;
  }

  /**
   * Whether this instance holds the leader lock: it took or refreshed it
   * within the lock's TTL. A refresh that hangs (a storage that retries for
   * longer than the TTL) does not keep it leader past that: the lock may have
   * run out and another instance taken it.
   */
  isLeader(): boolean {
    if (!this.#leader || this.#handle === undefined) return this.#leader;
    return this.#fresh(this.#ttlMs);
  }

  /**
   * Whether the last refresh is less than `ms` old. A negative age (the
   * clock was stepped back) counts as too old: how long ago is then unknown,
   * and the lock may have run out meanwhile (as the token cache treats it).
   */
  #fresh(ms: number): boolean {
    const age = this.#clock.now() - this.#lastRefresh;
    return age >= 0 && age < ms;
  }

  /** Call `listener(leader)` on every gain and loss; returns the unsubscribe. */
  onChange(listener: (leader: boolean) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Take or refresh the leader lock; whether this instance leads now. */
  ensure(): Promise<boolean> {
    const s = this.#storage;
    if (!hasLock(s)) {
      this.#set(true);
      return Promise.resolve(true);
    }
    this.#lockOp ??= this.#takeOrRefresh(s).finally(() => {
      this.#lockOp = undefined;
    });
    return this.#lockOp;
  }

  /** Between slices of work: refresh the lock once a refresh interval has passed. */
  async stillLeader(): Promise<boolean> {
    if (this.#handle === undefined) return this.#leader;
    if (this.#fresh(this.#refreshMs)) return true;
    return this.ensure();
  }

  /** Refresh (leader) or try (standby) every `refreshMs` on an unref'd timer; idempotent. */
  start(): void {
    if (this.#upkeep !== undefined || !hasLock(this.#storage)) return;
    this.#upkeep = setInterval(() => {
      this.ensure().catch((e: unknown) => this.#onError(e));
    }, this.#refreshMs);
    (this.#upkeep as { unref?: () => void }).unref?.();
  }

  /** Clear the upkeep timer (the lock is kept until {@link Leadership.stop}). */
  stopTimer(): void {
    if (this.#upkeep !== undefined) clearInterval(this.#upkeep);
    this.#upkeep = undefined;
  }

  /**
   * Stop the upkeep, wait for a lock operation in flight, release the lock.
   * Neither wait outlasts the lock's TTL: a storage that hangs must not keep
   * a seal from finishing (the lock runs out by itself).
   */
  async stop(): Promise<void> {
    this.stopTimer();
    await settledWithin(
      this.#lockOp?.catch(() => undefined),
      this.#ttlMs,
    );
    const handle = this.#handle;
    this.#handle = undefined;
    this.#set(false);
    await settledWithin(
      handle?.release().catch((e: unknown) => this.#onError(e)),
      this.#ttlMs,
    );
  }

  async #takeOrRefresh(s: StorageLock): Promise<boolean> {
    if (this.#handle !== undefined) return this.#refresh(this.#handle);
    // The TTL runs from when the server took the lock: no earlier than now.
    const asked = this.#clock.now();
    this.#handle = await s.lock(keyspace.leaseLeaderLock, this.#ttlMs);
    this.#lastRefresh = asked;
    // A reply heard after the TTL (a paused process, a slow network) may
    // describe a lock that has run out meanwhile: leader only while fresh, and
    // no gain announced (the advertisement would name this node over the real
    // leader). The handle is kept: its next refresh tells whether it holds.
    this.#set(this.#handle !== undefined && this.#fresh(this.#ttlMs));
    return this.isLeader();
  }

  async #refresh(handle: LockHandle): Promise<boolean> {
    const asked = this.#clock.now();
    let kept: boolean;
    try {
      kept = await handle.refresh(this.#ttlMs);
    } catch (e) {
      // Unreachable storage: after a whole TTL without a refresh, another may lead.
      if (!this.#fresh(this.#ttlMs)) this.#drop();
      throw e;
    }
    if (kept) {
      this.#lastRefresh = asked;
      this.#set(this.#fresh(this.#ttlMs));
      return this.isLeader();
    }
    this.#drop();
    return false;
  }

  #drop(): void {
    this.#handle = undefined;
    this.#set(false);
  }

  #set(leader: boolean): void {
    const was = this.#leader;
    this.#leader = leader;
    if (was === leader) return;
    this.#since = leader ? this.#clock.now() : undefined;
    for (const listener of this.#listeners) listener(leader);
  }
}
