/**
 * Renewing a token (`auth/token/renew-self`, `renew`), as Vault's token
 * store: the new TTL is the increment asked for (or the TTL the last renewal
 * granted, at first the creation TTL), capped
 * by the max TTL from creation (the store's, or the token's
 * `explicit_max_ttl` when lower), with Vault's capping warning. A periodic
 * token's new TTL is its period, whatever the increment, bounded by
 * `explicit_max_ttl` only (./token-period.ts). Without a
 * lease manager (which expires a parent's tree), a child renews no further
 * than its parent's expiry, and not at all once its parent is gone, and a
 * renewal that shortens a token shortens its descendants with it
 * (./token-cap.ts); with one,
 * the token's lease is renewed with it (a revoked or expired lease refuses).
 * A token that never expires is refused, as in Vault.
 *
 * The store reads the entry from storage and refuses one that is not the
 * token's own; {@link renewOnce} is one attempt on what it read, written with
 * compare-and-set (the store reads again and retries when it lost).
 * @module
 */
import type { Clock } from '../clock.js';
import { utf8 } from '../encoding.js';
import { invalidRequest, TransitError } from '../errors.js';
import { cappedWarning } from '../leases/lease.js';
import type { LeaseManager } from '../leases/lease-manager.js';
import { parseDurationSeconds } from '../request.js';
import { withWarnings } from '../result-meta.js';
import type { StorageAdapter } from '../storage/adapter.js';
import { capTree } from './token-cap.js';
import type { FoundToken, TokenEntries } from './token-entries.js';
import {
  authOf,
  CAS_RETRIES,
  denied,
  K,
  ROOT_PATH,
  type StoredToken,
  type TokenAuth,
} from './token-entry.js';
import { isPeriodic, periodRenewal, renewPeriodLease } from './token-period.js';

/** What renewing needs of a token store. @internal */
export interface RenewContext {
  readonly storage: StorageAdapter;
  readonly entries: TokenEntries;
  readonly clock: Clock;
  readonly leases: LeaseManager | undefined;
  /** The store's max TTL, in seconds. */
  readonly maxTtl: number;
  /** After a lost compare-and-set: a random, growing pause (../util/contention.ts). */
  readonly pause: (attempt: number) => Promise<void>;
}

/**
 * Renew the token with `hash` (`token` is its value, or `''` when it came by
 * accessor) by `increment`: read from storage, renew with a compare-and-set,
 * retried with a pause when another writer won.
 * @throws TransitError `invalid_request` `token not found` when it is gone
 *   (its last use, or revoked meanwhile), or as {@link renewOnce};
 *   `conflict` after {@link CAS_RETRIES} lost attempts.
 * @internal
 */
export async function renewToken(
  ctx: RenewContext,
  token: string,
  hash: string,
  increment: number | string | undefined,
): Promise<TokenAuth> {
  const inc = parseDurationSeconds(increment, 'increment');
  for (let i = 0; i < CAS_RETRIES; i++) {
    // Read storage: the compare-and-set below needs the stored bytes.
    const found = await ctx.entries.read(hash, true);
    // Gone since it authenticated this request (its last use, or revoked
    // meanwhile): Vault's renew finds no token to renew.
    if (!found?.own) throw invalidRequest('token not found');
    const renewed = await renewOnce(ctx, token, hash, found, inc);
    if (renewed !== undefined) return renewed;
    await ctx.pause(i);
  }
  throw new TransitError('conflict', 'too many concurrent renewals of one token; retry');
}

/**
 * One attempt at renewing `token` by `inc` seconds (0: the TTL last granted), on
 * `found`, its entry as just read from storage (its own, checked by the
 * caller): the `auth` block, or `undefined` when the compare-and-set lost.
 * @throws TransitError `invalid_request` when it has expired, is not renewable
 *   or is past its max TTL; `permission_denied` (without a lease manager) for a
 *   parent gone or expired; as the lease manager's renew.
 */
async function renewOnce(
  ctx: RenewContext,
  token: string,
  hash: string,
  found: FoundToken,
  inc: number,
): Promise<TokenAuth | undefined> {
  const { raw, entry } = found;
  const now = ctx.clock.now();
  if (entry.expire_ms !== 0 && entry.expire_ms <= now) throw invalidRequest('token not found');
  if (entry.expire_ms === 0) {
    // As Vault's RenewToken: the initial root token has no lease ("invalid lease
    // ID"); any other token that never expires has a lease without an expiry.
    throw invalidRequest(entry.path === ROOT_PATH ? 'invalid lease ID' : 'lease is not renewable');
  }
  if (!entry.renewable) throw invalidRequest('lease is not renewable');
  const term = isPeriodic(entry)
    ? periodTerm(entry, ctx.maxTtl, now)
    : plainTerm(entry, ctx.maxTtl, inc, now);
  let expire = term.expire;
  if (!ctx.leases && entry.parent !== '') {
    // No lease manager expires a parent's tree: a child renews up to its parent's expiry.
    // From storage: a cached copy may predate the parent's renewal on another instance.
    const found = await ctx.entries.read(entry.parent, true);
    const parent = found?.own ? found.entry : undefined;
    if (!parent || (parent.expire_ms !== 0 && parent.expire_ms <= now)) {
      throw denied('permission denied');
    }
    if (parent.expire_ms !== 0) expire = Math.min(expire, parent.expire_ms);
  }
  const warnings = term.warnings(expire);
  let fresh: string | undefined;
  if (ctx.leases && entry.lease_id !== undefined) {
    // The lease follows the token; a revoked or expired lease refuses renewal.
    const seconds = Math.ceil((expire - now) / 1000);
    if (isPeriodic(entry)) {
      fresh = await renewPeriodLease(ctx.leases, { ...entry, lease_id: entry.lease_id }, seconds);
    } else await ctx.leases.renew(entry.lease_id, seconds, { auth: true });
  }
  const next: StoredToken = {
    ...entry,
    expire_ms: expire,
    renewal_ttl: Math.round((expire - now) / 1000),
    last_renewal_ms: now,
    ...(fresh ? { lease_id: fresh } : {}),
  };
  const renewed = await ctx.storage.compareAndSet(K.id(hash), raw, utf8(JSON.stringify(next)));
  ctx.entries.forget(hash);
  if (fresh !== undefined && ctx.leases) {
    // The lease not kept goes; it no longer names the token's lease, so it revokes no token.
    await ctx.leases.revoke(renewed ? (entry.lease_id as string) : fresh).catch(() => undefined);
  }
  // No lease manager expires this token's tree: its descendants go no further than it.
  // After every renewal, not only one that shortened: a retry after a failed walk
  // finds the token already shortened, and a walk over children within it writes nothing.
  if (renewed && !ctx.leases) await capTree(ctx, hash, expire);
  return renewed ? withWarnings(authOf(token, next, now), warnings) : undefined;
}

/** A renewal's new expiry (epoch ms), and its warnings once the expiry is final. */
interface Term {
  expire: number;
  warnings(final: number): string[];
}

/**
 * A token's renewal: the increment (or its creation TTL), capped by the max TTL
 * from its creation (the store's, or `explicit_max_ttl` when lower).
 * @throws TransitError `invalid_request` past the max TTL.
 */
function plainTerm(entry: StoredToken, storeMax: number, inc: number, now: number): Term {
  const maxTtl = Math.min(
    storeMax,
    entry.explicit_max_ttl > 0 ? entry.explicit_max_ttl : Number.POSITIVE_INFINITY,
  );
  const maxEnd = (entry.creation_time + maxTtl) * 1000;
  if (maxEnd <= now) throw invalidRequest('past the max TTL, cannot renew');
  // As Vault's RenewToken: no increment asks for the TTL last granted (the lease's Auth.TTL).
  const want = inc > 0 ? inc : (entry.renewal_ttl ?? entry.creation_ttl);
  return {
    expire: Math.min(now + want * 1000, maxEnd),
    warnings: (final) =>
      final < now + want * 1000 ? [cappedWarning(want, Math.floor((maxEnd - now) / 1000))] : [],
  };
}

/** A periodic token's renewal (./token-period.ts), then its parent's expiry as a child's TTL is capped. */
function periodTerm(entry: StoredToken & { period: number }, storeMax: number, now: number): Term {
  const { expire, warnings } = periodRenewal(entry, storeMax, now);
  return {
    expire,
    warnings: (final) =>
      final < expire
        ? [
            ...warnings,
            `TTL of "${Math.ceil((expire - now) / 1000)}s" exceeded the parent token's remaining TTL of "${Math.floor((final - now) / 1000)}s"; TTL value is capped accordingly`,
          ]
        : warnings,
  };
}
