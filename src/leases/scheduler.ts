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
 * The lock itself is the node's {@link Leadership} (src/node/leadership.ts),
 * shared with auto-rotation: besides every tick, {@link Scheduler.start} has it
 * refresh the lock (leader) or try to take it (standby) every `refreshMs`, so a
 * standby takes over within about `ttlMs + refreshMs` of the leader's death,
 * however long the ticks. A scheduler that made its own leadership releases it
 * on stop; a shared one is released by its owner (the node).
 * @module
 */
import type { Leadership } from '../node/leadership.js';
import { keyspace } from '../storage/keyspace.js';
import { settledWithin } from '../util/settled-within.js';
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

/** How long `stop()` waits for the tick in flight. */
const STOP_WAIT_MS = 2_000;

/** Parse a due-index key suffix `<13 digits>/<id>`. */
function parseDueKey(suffix: string): [number, string] | undefined {
  if (suffix.length < 15 || suffix[13] !== '/') return undefined;
  const t = Number(suffix.slice(0, 13));
  return Number.isSafeInteger(t) ? [t, suffix.slice(14)] : undefined;
}

/** @internal */
export class Scheduler {
  readonly #ctx: LeaseContext;
  readonly #leadership: Leadership;
  readonly #owned: boolean;
  #ticking: Promise<TickResult> | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;

  /** `owned`: this scheduler made `leadership` and releases it on {@link Scheduler.stop}. */
  constructor(ctx: LeaseContext, leadership: Leadership, owned: boolean) {
    this.#ctx = ctx;
    this.#leadership = leadership;
    this.#owned = owned;
    // A gained lock reloads the heap (others wrote while we followed); a lost one drops it.
    leadership.onChange(() => {
      ctx.queue = undefined;
    });
  }

  /** Whether this instance held the leader lock at its last tick or lock refresh. */
  isLeader(): boolean {
    return this.#leadership.isLeader();
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
    this.#leadership.start();
    run();
  }

  /** Clear the timers (a tick or lock operation in flight finishes). */
  stopTimer(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    if (this.#owned) this.#leadership.stopTimer();
  }

  /** Stop ticking, wait for the tick in flight, give up leadership (when it is ours). */
  async stop(): Promise<void> {
    this.stopTimer();
    // Two seconds at most: a storage call that never answers must not hold a
    // seal (what the tick does after it fails on the sealed store).
    await settledWithin(this.#ticking, STOP_WAIT_MS);
    this.#ctx.queue = undefined;
    if (this.#owned) await this.#leadership.stop();
  }

  async #tick(): Promise<TickResult> {
    const result: TickResult = { leader: false, revoked: 0, retried: 0, irrevocable: 0 };
    if (!(await this.#leadership.ensure())) return result;
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
      ctx.expiryLag?.((ctx.clock.now() - t) / 1000);
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
      if (!(await this.#leadership.stillLeader())) return result;
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
      if (!(await this.#leadership.stillLeader())) return result;
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
      if (!(await this.#leadership.stillLeader()) || ctx.queue !== queue) return;
    }
  }
}
