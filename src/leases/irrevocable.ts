/**
 * Irrevocable leases: `GET /sys/leases/count?type=irrevocable` and
 * `GET /sys/leases?type=irrevocable&limit=` (reference §11).
 *
 * They have their own index, `sys/leases/irrevocable/<expire ms>/<id>`, so the
 * count reads keys only, and the list comes out sorted by expire time then id
 * (Vault's order) with one entry read per lease returned. The mount of a lease
 * is its first path segment with the `/` (there are no mount accessors here).
 * @module
 */
import { invalidRequest, notFound } from '../errors.js';
import { keyspace } from '../storage/keyspace.js';
import { mountOf } from './lease.js';
import { type LeaseContext, readLease } from './lease-store.js';
import type { IrrevocableLease, IrrevocableList, LeaseCount } from './types.js';

/** Vault's `MaxIrrevocableLeasesToReturn`. @internal */
export const MAX_IRREVOCABLE_TO_RETURN = 10_000;
/** Vault's `MaxIrrevocableLeasesWarning`. @internal */
export const IRREVOCABLE_WARNING =
  'Command halted because many irrevocable leases were found. To emit the entire list, re-run the command with force set true.';

const PAGE = 1000;

/** Every irrevocable index key, in order: `[expire ms, lease id]`. */
async function* irrevocableKeys(ctx: LeaseContext): AsyncGenerator<[number, string]> {
  let after: string | undefined;
  for (;;) {
    const page = await ctx.storage.list(keyspace.leaseIrrevocablePrefix, { after, limit: PAGE });
    for (const suffix of page) {
      if (suffix[13] === '/') yield [Number(suffix.slice(0, 13)), suffix.slice(14)];
    }
    if (page.length < PAGE) return;
    after = page[page.length - 1];
  }
}

/**
 * @throws TransitError `not_found` for a type other than `irrevocable` (Vault answers 404).
 */
function checkType(type: unknown): void {
  if (type !== 'irrevocable') {
    throw notFound(`unsupported lease type ${JSON.stringify(type ?? '')}; only "irrevocable"`);
  }
}

/** @internal */
export async function countLeases(ctx: LeaseContext, type: unknown): Promise<LeaseCount> {
  checkType(type);
  const counts: Record<string, number> = {};
  let total = 0;
  for await (const [, id] of irrevocableKeys(ctx)) {
    const mount = mountOf(id);
    counts[mount] = (counts[mount] ?? 0) + 1;
    total++;
  }
  return { lease_count: total, counts };
}

/**
 * `limit`: `''`/absent → 10,000; `none` → all; a positive integer (string or number).
 * @throws TransitError `invalid_request` for any other limit.
 */
function parseLimit(limit: unknown): number {
  if (limit === undefined || limit === null || limit === '') return MAX_IRREVOCABLE_TO_RETURN;
  if (typeof limit === 'string' && limit.toLowerCase() === 'none') return Number.POSITIVE_INFINITY;
  const n =
    typeof limit === 'number' ? limit : typeof limit === 'string' ? Number(limit) : Number.NaN;
  if (typeof limit === 'string' && !/^\+?[0-9]+$/.test(limit)) {
    throw invalidRequest(`invalid limit ${JSON.stringify(limit)}: an integer >= 1 or "none"`);
  }
  if (!Number.isSafeInteger(n) || n < 1) throw invalidRequest('limit must be at least 1');
  return n;
}

/** @internal */
export async function listIrrevocable(
  ctx: LeaseContext,
  type: unknown,
  limitArg: unknown,
): Promise<IrrevocableList> {
  checkType(type);
  const limit = parseLimit(limitArg);
  const leases: IrrevocableLease[] = [];
  let more = false;
  for await (const [time, id] of irrevocableKeys(ctx)) {
    const snap = await readLease(ctx, id);
    if (snap === undefined || !snap.rec.irrevocable || snap.rec.expire_time !== time) {
      // No entry: a removal stopped between its writes (entries never become
      // irrevocable from absent, so this key cannot be in flight). An entry that
      // is not irrevocable yet may be: its key is left alone.
      if (snap === undefined) await ctx.storage.delete(keyspace.leaseIrrevocable(time, id));
      continue;
    }
    if (leases.length >= limit) {
      more = true;
      break;
    }
    leases.push({ lease_id: id, mount_id: mountOf(id), error: snap.rec.last_error ?? 'unknown' });
  }
  const out: IrrevocableList = { lease_count: leases.length, leases };
  if (more) out.warnings = [IRREVOCABLE_WARNING];
  return out;
}
