/**
 * Expiry: one scheduler on the injected clock, no timer per lease.
 *
 * A tick, on the leader only:
 * 1. takes or refreshes the leader lock `sys/leases/leader` when the storage
 *    has the lock capability (without it, every instance is its own leader);
 * 2. loads the heap from the storage due index the first time it leads
 *    (one paginated pass, yielding between pages of {@link LOAD_PAGE}); from
 *    then on its own writes keep the heap current;
 * 3. pops due pairs from the heap in slices of `sliceSize`, revokes them with
 *    bounded concurrency, and yields to the event loop between slices;
 * 4. sweeps the head of the storage due index (`list(prefix, { limit })`,
 *    O(page)) for due keys the heap does not know: leases written by other
 *    instances, revocations they queued, claims left by a crashed process.
 *
 * Losing the lock drops the heap (it would go stale); taking it again reloads.
 * So does a heap that is mostly stale pairs (renewed or revoked leases).
 *
 * Leadership upkeep: besides every tick, {@link Scheduler.start} refreshes the
 * lock (leader) or tries to take it (standby) every `refreshMs`, so a standby
 * takes over within about `ttlMs + refreshMs` of the leader's death, however
 * long the ticks. Lock operations run one at a time (a shared promise): two
 * concurrent takes would leak the first handle. A leader that cannot reach
 * the storage for a whole TTL counts itself a standby (another may lead by now).
 * @module
 */
import type { LockHandle, StorageLock } from '../storage/adapter.js';
import { hasLock } from '../storage/adapter.js';
import { keyspace } from '../storage/keyspace.js';
import { ExpiryQueue } from './expiry-queue.js';
import { yieldToLoop } from './lease.js';
import type { LeaseContext } from './lease-store.js';
import { Pacer, runPool } from './pool.js';
import { type Attempt, processDue } from './revoke.js';
import type { TickResult } from './types.js';

/**
 * Due keys read per page when the heap is loaded. A page is parsed and pushed
 * in about a millisecond, and the loop turns after each, so even a schedule of
 * millions of leases loads without a stall.
 */
const LOAD_PAGE = 2_000;

/** Parse a due-index key suffix `<13 digits>/<id>`. */
function parseDueKey(suffix: string): [number, string] | undefined {
  if (suffix.length < 15 || suffix[13] !== '/') return undefined;
  const t = Number(suffix.slice(0, 13));
  return Number.isSafeInteger(t) ? [t, suffix.slice(14)] : undefined;
}

/** @internal */
export class Scheduler {
  readonly #ctx: LeaseContext;
  readonly #leaderTtlMs: number;
  readonly #refreshMs: number;
  #handle: LockHandle | undefined;
  #lastRefresh = 0;
  #leader = false;
  #ticking: Promise<TickResult> | undefined;
  #lockOp: Promise<boolean> | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  #upkeep: ReturnType<typeof setInterval> | undefined;

  constructor(ctx: LeaseContext, leaderTtlMs: number, refreshMs: number) {
    this.#ctx = ctx;
    this.#leaderTtlMs = leaderTtlMs;
    this.#refreshMs = refreshMs;
  }

  /** Whether this instance held the leader lock at its last tick or lock refresh. */
  isLeader(): boolean {
    return this.#leader;
  }

  /** One pass; concurrent calls share the pass in flight. */
  tick(): Promise<TickResult> {
    this.#ticking ??= this.#tick().finally(() => {
      this.#ticking = undefined;
    });
    return this.#ticking;
  }

  /** Tick now and then every `intervalMs`; keep the lock every `refreshMs` (unref'd timers). */
  start(intervalMs: number): void {
    this.stopTimer();
    const run = () => {
      this.tick().catch((e: unknown) => this.#ctx.onError(e));
    };
    this.#timer = setInterval(run, intervalMs);
    (this.#timer as { unref?: () => void }).unref?.();
    if (hasLock(this.#ctx.storage)) {
      this.#upkeep = setInterval(() => {
        this.#ensureLeader().catch((e: unknown) => this.#ctx.onError(e));
      }, this.#refreshMs);
      (this.#upkeep as { unref?: () => void }).unref?.();
    }
    run();
  }

  /** Clear the timers (a tick or lock operation in flight finishes). */
  stopTimer(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    if (this.#upkeep !== undefined) clearInterval(this.#upkeep);
    this.#timer = undefined;
    this.#upkeep = undefined;
  }

  /** Stop ticking, wait for the tick in flight, give up leadership. */
  async stop(): Promise<void> {
    this.stopTimer();
    await this.#ticking?.catch(() => undefined);
    await this.#lockOp?.catch(() => undefined);
    const handle = this.#handle;
    this.#handle = undefined;
    this.#leader = false;
    this.#ctx.queue = undefined;
    await handle?.release();
  }

  async #tick(): Promise<TickResult> {
    const result: TickResult = { leader: false, revoked: 0, retried: 0, irrevocable: 0 };
    if (!(await this.#ensureLeader())) return result;
    result.leader = true;
    const ctx = this.#ctx;
    if (ctx.queue?.needsRebuild()) ctx.queue = undefined; // mostly stale pairs: reload
    if (ctx.queue === undefined) await this.#load();
    const now = ctx.clock.now();
    const pacer = new Pacer(ctx.concurrency);
    const count = (a: Attempt) => {
      if (a.outcome === 'revoked') result.revoked++;
      else if (a.outcome === 'retry') result.retried++;
      else if (a.outcome === 'irrevocable') result.irrevocable++;
    };
    const process = async ([t, id]: [number, string]) => {
      try {
        count(await processDue(ctx, t, id));
      } catch (e) {
        ctx.onError(e);
      }
    };
    // Heap first: the due pairs this instance knows, in slices.
    for (;;) {
      const queue = ctx.queue;
      if (queue === undefined) return result; // leadership lost mid-tick
      const slice = queue.popDue(now, ctx.sliceSize);
      if (slice.length === 0) break;
      await runPool(slice, ctx.concurrency, pacer, process);
      await yieldToLoop();
      if (!(await this.#stillLeader())) return result;
    }
    // Then the head of the storage index: due keys written elsewhere.
    let after: string | undefined;
    for (;;) {
      const page = await ctx.storage.list(keyspace.leaseDuePrefix, { after, limit: ctx.sliceSize });
      const due: Array<[number, string]> = [];
      for (const suffix of page) {
        const pair = parseDueKey(suffix);
        if (pair !== undefined && pair[0] <= now) due.push(pair);
      }
      await runPool(due, ctx.concurrency, pacer, process);
      if (page.length < ctx.sliceSize || due.length < page.length) break;
      after = page[page.length - 1];
      await yieldToLoop();
      if (!(await this.#stillLeader())) return result;
    }
    return result;
  }

  /** Fill a new heap from the storage due index. */
  async #load(): Promise<void> {
    const ctx = this.#ctx;
    const queue = new ExpiryQueue();
    ctx.queue = queue; // live at once: issues during the load are pushed too
    let after: string | undefined;
    for (;;) {
      const page = await ctx.storage.list(keyspace.leaseDuePrefix, { after, limit: LOAD_PAGE });
      for (const suffix of page) {
        const pair = parseDueKey(suffix);
        if (pair !== undefined) queue.push(pair[0], pair[1]);
      }
      if (page.length < LOAD_PAGE) return;
      after = page[page.length - 1];
      await yieldToLoop();
      // A long load keeps the lock; if it was lost anyway, the heap is dropped.
      if (!(await this.#stillLeader()) || ctx.queue !== queue) return;
    }
  }

  /** Take or refresh the leader lock; one operation at a time (see header). */
  #ensureLeader(): Promise<boolean> {
    const s = this.#ctx.storage;
    if (!hasLock(s)) {
      this.#leader = true;
      return Promise.resolve(true);
    }
    this.#lockOp ??= this.#takeOrRefresh(s).finally(() => {
      this.#lockOp = undefined;
    });
    return this.#lockOp;
  }

  async #takeOrRefresh(s: StorageLock): Promise<boolean> {
    if (this.#handle !== undefined) return this.#refresh(this.#handle);
    this.#handle = await s.lock(keyspace.leaseLeaderLock, this.#leaderTtlMs);
    this.#lastRefresh = this.#ctx.clock.now();
    this.#leader = this.#handle !== undefined;
    if (this.#leader) this.#ctx.queue = undefined; // reload: others wrote while we followed
    return this.#leader;
  }

  async #refresh(handle: LockHandle): Promise<boolean> {
    let kept: boolean;
    try {
      kept = await handle.refresh(this.#leaderTtlMs);
    } catch (e) {
      // Unreachable storage: after a whole TTL without a refresh, another may lead.
      if (this.#ctx.clock.now() - this.#lastRefresh >= this.#leaderTtlMs) this.#dropLeadership();
      throw e;
    }
    if (kept) {
      this.#lastRefresh = this.#ctx.clock.now();
      return true;
    }
    this.#dropLeadership();
    return false;
  }

  #dropLeadership(): void {
    this.#handle = undefined;
    this.#leader = false;
    this.#ctx.queue = undefined;
  }

  /** Between slices: refresh the lock once a refresh interval has passed. */
  async #stillLeader(): Promise<boolean> {
    if (this.#handle === undefined) return this.#leader;
    if (this.#ctx.clock.now() - this.#lastRefresh < this.#refreshMs) return true;
    return this.#ensureLeader();
  }
}
