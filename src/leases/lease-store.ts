/**
 * Lease persistence: the shared context of the lease modules, reading an
 * entry, and the one way an entry changes — {@link transition}, a
 * compare-and-set on the entry with the index keys kept in step.
 *
 * Ordering, and why (a lease is never lost):
 * - index keys the new state needs are written **before** the compare-and-set,
 *   and the ones it no longer needs are deleted **after** it. A crash in
 *   between leaves an extra index key, never a lease without one;
 * - an extra key (an entry that is gone, or whose `due` differs) is harmless:
 *   the scheduler drops it, but only once it is {@link ORPHAN_GRACE_MS} old, so
 *   it never deletes a key whose writer has not reached its compare-and-set yet;
 * - a lost compare-and-set leaves the keys it wrote in place for the same reason
 *   (a concurrent winner may need an identical key).
 * @module
 */
import type { Clock } from '../clock.js';
import { conflict } from '../errors.js';
import type { StorageAdapter } from '../storage/adapter.js';
import { keyspace } from '../storage/keyspace.js';
import type { ExpiryQueue } from './expiry-queue.js';
import { decodeRecord, encodeRecord, type LeaseRecord, type Snapshot } from './lease.js';
import type { RevokerRegistry } from './revokers.js';

/** Index keys whose entry is absent or elsewhere are dropped after this long. @internal */
export const ORPHAN_GRACE_MS = 60_000;

/** Everything the lease modules share (one per {@link LeaseManager}). @internal */
export interface LeaseContext {
  readonly storage: StorageAdapter;
  readonly clock: Clock;
  readonly random: (n: number) => Uint8Array;
  readonly maxTtl: number;
  readonly defaultTtl: number;
  readonly revokeTimeoutMs: number;
  readonly maxRevokeAttempts: number;
  readonly retryBaseMs: number;
  readonly sliceSize: number;
  readonly concurrency: number;
  readonly revokers: RevokerRegistry;
  /** Set by the option, or by a `TokenStore` given this manager (`bindTokens`). */
  tokenExists: ((token: string) => Promise<boolean>) | undefined;
  /** The key a token's leases are indexed under (the option, or the token store's hash). */
  tokenKey: (token: string) => string | Promise<string>;
  readonly onError: (error: unknown) => void;
  /** The heap, while this instance is the leader and has loaded it. */
  queue: ExpiryQueue | undefined;
  /** Revocations running in this process, by lease id (a second caller waits for the first). */
  readonly running: Map<string, Promise<unknown>>;
  /** Background work (queued revocations) not finished yet. */
  readonly background: Set<Promise<unknown>>;
  /** Records how late a due pair was processed (seconds); absent without metrics. */
  expiryLag?: ((seconds: number) => void) | undefined;
}

const EMPTY = new Uint8Array(0);

/** The entry of `id`, or `undefined`. @internal */
export async function readLease(ctx: LeaseContext, id: string): Promise<Snapshot | undefined> {
  const bytes = await ctx.storage.get(keyspace.leaseEntry(id));
  return bytes === undefined ? undefined : { bytes, rec: decodeRecord(bytes, id) };
}

const irrevocableKey = (rec: LeaseRecord | undefined): string | undefined =>
  rec?.irrevocable ? keyspace.leaseIrrevocable(rec.expire_time, rec.id) : undefined;
const dueKey = (rec: LeaseRecord | undefined): string | undefined =>
  rec !== undefined && rec.due > 0 ? keyspace.leaseDue(rec.due, rec.id) : undefined;
const tokenIndexKey = (rec: LeaseRecord | undefined): string | undefined =>
  rec?.token_key !== undefined ? keyspace.leaseToken(rec.token_key, rec.id) : undefined;

/**
 * Replace the entry `prev` (absent for a new lease) by `next` (absent to
 * remove it) if it is unchanged, moving its index keys. Returns the new
 * snapshot (`null` after a removal), or `undefined` when the entry changed
 * in the meantime (nothing was changed then, except harmless index keys).
 * @internal
 */
export async function transition(
  ctx: LeaseContext,
  id: string,
  prev: Snapshot | undefined,
  next: LeaseRecord | undefined,
): Promise<Snapshot | null | undefined> {
  const s = ctx.storage;
  const before = [dueKey(prev?.rec), irrevocableKey(prev?.rec), tokenIndexKey(prev?.rec)];
  const after = [dueKey(next), irrevocableKey(next), tokenIndexKey(next)];
  for (const k of after) if (k !== undefined && !before.includes(k)) await s.put(k, EMPTY);
  const bytes = next === undefined ? undefined : encodeRecord(next);
  if (!(await s.compareAndSet(keyspace.leaseEntry(id), prev?.bytes, bytes))) return undefined;
  for (const k of before) if (k !== undefined && !after.includes(k)) await s.delete(k);
  const queue = ctx.queue;
  if (queue !== undefined) {
    const prevDue = prev?.rec.due ?? 0;
    const nextDue = next?.due ?? 0;
    // A pair not due yet cannot have been popped: it stays in the heap, stale.
    if (prevDue > ctx.clock.now() && prevDue !== nextDue) queue.noteStale();
    if (nextDue > 0 && nextDue !== prevDue) queue.push(nextDue, id);
  }
  return bytes === undefined || next === undefined ? null : { bytes, rec: next };
}

/**
 * Remove a lease whose secret is revoked, whatever changed in its entry since
 * `snap` was read (the secret is gone either way).
 * @throws TransitError `conflict` if the entry keeps changing.
 * @internal
 */
export async function removeLease(ctx: LeaseContext, id: string, snap: Snapshot): Promise<void> {
  let current: Snapshot | undefined = snap;
  for (let i = 0; i < 8 && current !== undefined; i++) {
    if ((await transition(ctx, id, current, undefined)) !== undefined) return;
    current = await readLease(ctx, id);
  }
  if (current !== undefined) throw conflict(`lease "${id}" kept changing during revocation`);
}

/** Every lease id starting with `prefix`, one storage page at a time. @internal */
export async function* leaseIds(
  ctx: LeaseContext,
  prefix: string,
  pageSize = 1000,
): AsyncGenerator<string[]> {
  const base = keyspace.leaseEntryPrefix + prefix;
  let after: string | undefined;
  for (;;) {
    const page = await ctx.storage.list(base, { after, limit: pageSize });
    if (page.length > 0) yield page.map((suffix) => prefix + suffix);
    if (page.length < pageSize) return;
    after = page[page.length - 1];
  }
}
