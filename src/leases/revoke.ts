/**
 * Revocation (`/sys/leases/revoke`, `revoke-prefix`, `revoke-force`, and expiry):
 * one attempt is claim → run the revoker → settle, each step a compare-and-set
 * on the lease entry (lease-store.ts).
 *
 * - **Claim**: the entry gets `claim` (until when the attempt may run) and one
 *   more attempt; its `due` is pulled in to the claim's end, so a process that
 *   dies mid-attempt leaves a lease the scheduler picks up again.
 * - **Settle**: success (or `force`) removes the entry; a failure schedules the
 *   next attempt at `2^attempt × 10 s ± 50%` (Vault's backoff), or marks the
 *   lease irrevocable after `maxRevokeAttempts` or an unrecoverable error
 *   (`out of retries: …`, 240 characters at most), kept and flagged.
 * - **Queued** (`sync: false`): the entry is made due now — stored before the
 *   call returns, so a restart finishes it — and processed in the background.
 * - In one process, two revocations of one lease never overlap (`running`);
 *   across processes the claim's compare-and-set decides, and an explicit
 *   revoke that finds another instance's live claim waits for its outcome
 *   instead of claiming again beside it.
 * - Background revocations of one manager share one queue and `concurrency`
 *   workers, however many batches a revoke-prefix queued.
 * @module
 */
import { conflict, invalidRequest } from '../errors.js';
import { keyMs, keyspace } from '../storage/keyspace.js';
import { errorText, type LeaseRecord, type Snapshot } from './lease.js';
import {
  type LeaseContext,
  leaseIds,
  ORPHAN_GRACE_MS,
  readLease,
  removeLease,
  transition,
} from './lease-store.js';
import { Pacer, runPool } from './pool.js';
import { runRevoker } from './revokers.js';

/** Extra time a claim lasts beyond the revoker's timeout. */
const CLAIM_SLACK_MS = 5_000;

/** What one attempt did. @internal */
export interface Attempt {
  outcome: 'revoked' | 'retry' | 'irrevocable' | 'skipped';
  error?: string;
}

const SKIPPED: Attempt = { outcome: 'skipped' };

/** Run `fn` for `id` once no other revocation of `id` runs in this process. @internal */
export async function exclusive<T>(
  ctx: LeaseContext,
  id: string,
  fn: () => Promise<T>,
): Promise<T> {
  for (let r = ctx.running.get(id); r !== undefined; r = ctx.running.get(id)) {
    await r.catch(() => undefined);
  }
  const p = fn();
  ctx.running.set(id, p);
  try {
    return await p;
  } finally {
    if (ctx.running.get(id) === p) ctx.running.delete(id);
  }
}

/** Delay before the next attempt: `2^attempts × base`, jittered by ±50%. */
function backoff(ctx: LeaseContext, attempts: number): number {
  const r = ctx.random(4);
  const jitter =
    (((r[0] ?? 0) << 24) | ((r[1] ?? 0) << 16) | ((r[2] ?? 0) << 8) | (r[3] ?? 0)) >>> 0;
  return Math.round(ctx.retryBaseMs * 2 ** attempts * (0.5 + jitter / 2 ** 32));
}

/** One attempt to revoke the lease in `snap`. Never throws for a revoker's failure. @internal */
export async function attempt(
  ctx: LeaseContext,
  id: string,
  snap: Snapshot,
  force: boolean,
): Promise<Attempt> {
  const { rec } = snap;
  const now = ctx.clock.now();
  const until = now + ctx.revokeTimeoutMs + CLAIM_SLACK_MS;
  const claimed: LeaseRecord = {
    ...rec,
    irrevocable: false,
    expire_time: Math.min(rec.expire_time, now),
    attempts: rec.attempts + 1,
    claim: until,
    due: rec.irrevocable || rec.due <= 0 ? until : Math.min(rec.due, until),
  };
  const held = await transition(ctx, id, snap, claimed);
  if (!held) return SKIPPED;
  const failure = await runRevoker(ctx.revokers, claimed, ctx.revokeTimeoutMs);
  if (failure === undefined || force) {
    await removeLease(ctx, id, held);
    return { outcome: 'revoked' };
  }
  const outOfRetries = claimed.attempts >= ctx.maxRevokeAttempts;
  // An irrevocable lease tried again (explicit revoke) stays irrevocable when it fails.
  const final = failure.unrecoverable || outOfRetries || rec.irrevocable;
  const text = failure.message === '' ? 'unknown' : failure.message;
  // The prefix tells that retries ran out; an unrecoverable failure was never retried.
  const error = errorText(
    outOfRetries && !failure.unrecoverable ? `out of retries: ${text}` : text,
  );
  const next: LeaseRecord = final
    ? { ...claimed, claim: 0, due: 0, irrevocable: true, last_error: error }
    : {
        ...claimed,
        claim: 0,
        due: ctx.clock.now() + backoff(ctx, claimed.attempts),
        last_error: error,
      };
  // A lost race here means the claim ran out and another instance took over.
  if ((await transition(ctx, id, held, next)) === undefined) return { outcome: 'skipped', error };
  return { outcome: final ? 'irrevocable' : 'retry', error };
}

/**
 * Revoke `id` now: the revoker has run when this resolves. Unknown lease: no-op.
 * @throws TransitError `invalid_request` when the revoker failed, as Vault's 400 (the lease is then
 * retried in the background, or irrevocable); `conflict` if the entry keeps changing.
 * @internal
 */
export async function revokeSync(ctx: LeaseContext, id: string, force: boolean): Promise<void> {
  await exclusive(ctx, id, async () => {
    // Real time bounds the wait for another instance's claim (a claim runs
    // out after the revoker's timeout and slack on the lease clock).
    const patience = Date.now() + ctx.revokeTimeoutMs + CLAIM_SLACK_MS + 1_000;
    for (let i = 0, pause = 10; i < 8; ) {
      const snap = await readLease(ctx, id);
      if (snap === undefined) return;
      if (snap.rec.claim > ctx.clock.now()) {
        // Another instance runs its revoker now: never run a second one beside
        // it. Wait for its outcome: gone (revoked), or settled for a retry.
        if (Date.now() > patience) {
          throw conflict(`lease "${id}" is being revoked by another instance; retry`);
        }
        await new Promise((r) => setTimeout(r, pause));
        pause = Math.min(pause * 2, 250);
        continue;
      }
      i++;
      const r = await attempt(ctx, id, snap, force);
      if (r.outcome === 'revoked') return;
      if (r.outcome !== 'skipped' || r.error !== undefined) {
        throw invalidRequest(`failed to revoke lease "${id}": ${r.error ?? 'unknown'}`);
      }
    }
    throw conflict(`lease "${id}" kept changing during revocation`);
  });
}

/**
 * Process the due-index key (`time`, `id`): revoke the lease if it is due, drop
 * the key if it is stale (after the grace period). @internal
 */
export async function processDue(ctx: LeaseContext, time: number, id: string): Promise<Attempt> {
  if (ctx.running.has(id)) return SKIPPED;
  return exclusive(ctx, id, async () => {
    const snap = await readLease(ctx, id);
    const now = ctx.clock.now();
    // As keys hold them: a clock may give fractions of a millisecond.
    if (snap === undefined || keyMs(snap.rec.due) !== keyMs(time)) {
      if (now >= time + ORPHAN_GRACE_MS) await ctx.storage.delete(keyspace.leaseDue(time, id));
      return SKIPPED;
    }
    if (snap.rec.claim > now || time > now) return SKIPPED;
    return attempt(ctx, id, snap, false);
  });
}

/**
 * Make `id` due now (durably) so the background or the leader revokes it.
 * Returns its due time, or `undefined` when the lease does not exist or a
 * revocation of it is already running.
 * @throws TransitError `conflict` if the entry keeps changing.
 * @internal
 */
export async function queueRevocation(
  ctx: LeaseContext,
  id: string,
  read?: Snapshot,
): Promise<number | undefined> {
  for (let i = 0; i < 8; i++) {
    // A caller's fresh read serves the first try (a change since then fails the
    // compare-and-set, and the next try reads again).
    const snap = i === 0 && read !== undefined ? read : await readLease(ctx, id);
    if (snap === undefined) return undefined;
    const { rec } = snap;
    const now = ctx.clock.now();
    if (rec.claim > now) return undefined;
    if (!rec.irrevocable && rec.due > 0 && rec.due <= now) return rec.due;
    const next = {
      ...rec,
      irrevocable: false,
      expire_time: Math.min(rec.expire_time, now),
      due: now,
    };
    if ((await transition(ctx, id, snap, next)) !== undefined) return now;
  }
  throw conflict(`lease "${id}" kept changing`);
}

/** Track background work; its failure goes to `onError`. @internal */
export function inBackground(ctx: LeaseContext, work: () => Promise<unknown>): void {
  const p: Promise<unknown> = work()
    .catch((e: unknown) => ctx.onError(e))
    .finally(() => ctx.background.delete(p));
  ctx.background.add(p);
}

/**
 * Queue `ids` durably, then revoke them in the background. `read` holds
 * entries the caller has just read (by id), so they are not read again.
 * @internal
 */
export async function revokeLater(
  ctx: LeaseContext,
  ids: readonly string[],
  read?: ReadonlyMap<string, Snapshot>,
): Promise<void> {
  const queued: Array<[number, string]> = [];
  await runPool(ids, ctx.concurrency, new Pacer(ctx.concurrency), async (id) => {
    const t = await queueRevocation(ctx, id, read?.get(id));
    if (t !== undefined) queued.push([t, id]);
  });
  if (queued.length > 0) inBackgroundQueue(ctx, queued);
}

/**
 * The background revocations of one lease context: batches served in order
 * by at most `concurrency` workers in all, however many batches are queued
 * (a revoke-prefix queues one per page of 1,000 leases; a pool per batch ran
 * them all at once: 20 revokers at a time for 5,000 leases at a limit of 4).
 */
interface BackgroundQueue {
  readonly batches: Array<{ items: ReadonlyArray<readonly [number, string]>; next: number }>;
  workers: number;
  readonly pacer: Pacer;
}
const backgroundQueues = new WeakMap<LeaseContext, BackgroundQueue>();

function inBackgroundQueue(
  ctx: LeaseContext,
  items: ReadonlyArray<readonly [number, string]>,
): void {
  let q = backgroundQueues.get(ctx);
  if (!q) {
    q = { batches: [], workers: 0, pacer: new Pacer(ctx.concurrency) };
    backgroundQueues.set(ctx, q);
  }
  const queue = q;
  queue.batches.push({ items, next: 0 });
  const take = (): readonly [number, string] | undefined => {
    for (let b = queue.batches[0]; b !== undefined; b = queue.batches[0]) {
      const item = b.items[b.next++];
      if (item !== undefined) return item;
      queue.batches.shift();
    }
    return undefined;
  };
  // Counted before any starts: a worker that finds nothing ends at once.
  const start = Math.min(ctx.concurrency - queue.workers, items.length);
  for (let n = 0; n < start; n++) {
    const index = queue.workers++;
    inBackground(ctx, async () => {
      try {
        for (let item = take(); item !== undefined; item = take()) {
          await queue.pacer.pace(index);
          await processDue(ctx, item[0], item[1]).catch((e: unknown) => ctx.onError(e));
        }
      } finally {
        queue.workers--;
      }
    });
  }
}

/**
 * Revoke every lease under `prefix` (`revoke-prefix`, `revoke-force`). Without a
 * trailing `/`, an exact lease id is revoked alone; otherwise `/` is appended.
 * @throws TransitError `invalid_request` for an empty prefix, and when
 * revokers failed (sync only; `force` ignores them).
 * @internal
 */
export async function revokeUnder(
  ctx: LeaseContext,
  prefix: string,
  sync: boolean,
  force: boolean,
): Promise<void> {
  if (prefix === '') throw invalidRequest('prefix must be specified');
  let base = prefix;
  if (!base.endsWith('/')) {
    if ((await readLease(ctx, base)) !== undefined) {
      if (sync || force) await revokeSync(ctx, base, force);
      else await revokeLater(ctx, [base]);
      return;
    }
    base += '/';
  }
  const failures: string[] = [];
  let total = 0;
  for await (const ids of leaseIds(ctx, base)) {
    total += ids.length;
    if (!sync && !force) {
      await revokeLater(ctx, ids);
      continue;
    }
    await runPool(ids, ctx.concurrency, new Pacer(ctx.concurrency), async (id) => {
      try {
        await revokeSync(ctx, id, force);
      } catch (e) {
        failures.push(e instanceof Error ? e.message : String(e));
      }
    });
  }
  if (failures.length > 0) {
    throw invalidRequest(
      `failed to revoke ${failures.length} of ${total} leases under "${base}": ${failures[0]}`,
    );
  }
}
