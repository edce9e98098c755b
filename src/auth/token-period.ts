/**
 * Vault's periodic tokens (`period` on `auth/token/create`, root or `sudo`
 * only): a token whose TTL is its period, at creation and again at every
 * renewal, whatever `ttl` or `increment` was asked for. It has no max TTL
 * but its `explicit_max_ttl`: the store's max TTL caps each period (with
 * Vault's warning), never the token's lifetime, so a periodic token lives as
 * long as it is renewed within its period. As Vault's `framework.CalculateTTL`
 * (sdk/framework/lease.go) with a period, which `handleCreateCommon` and
 * `ExpirationManager.RenewToken` both call.
 *
 * With a lease manager, the token's lease is renewed with it; the lease
 * manager counts its own max TTL from the lease's issue, so when a renewal
 * reaches it, a new lease takes over from the old one
 * ({@link renewPeriodLease}), which then no longer revokes the token
 * (./token-revoke.ts `bindLeases`).
 * @module
 */
import { invalidRequest, isTransitError } from '../errors.js';
import { cappedWarning, humanDuration } from '../leases/lease.js';
import type { LeaseManager } from '../leases/lease-manager.js';
import { durationSeconds, goDuration, parseDurationSeconds } from '../request.js';
import { weakString } from '../weak-decode.js';
import { leasePathOf, type StoredToken, tokenLease } from './token-entry.js';

/** The lease manager's refusal once a lease's max TTL has passed (Vault's text). */
const PAST_MAX = 'past the max TTL, cannot renew';

/**
 * A duration field of a token create request (`ttl`, `explicit_max_ttl`,
 * `period`, or `lease`, the old name of `ttl`) in whole seconds, as Vault's
 * `handleCreateCommon` parses it: a duration string or seconds, a positive
 * value under a second is one (0 would mean the default, or no limit).
 * @throws TransitError `invalid_request`: `<field> must be positive` (Vault's
 *   text for a negative value), or the duration's own refusal.
 * @internal
 */
export function createDuration(
  value: unknown,
  field: 'ttl' | 'explicit_max_ttl' | 'period' | 'lease',
): number {
  if (field === 'lease') checkLease(value);
  const seconds = durationSeconds(value, 'one');
  if (typeof seconds === 'number') return seconds;
  if (seconds.kind === 'negative') throw invalidRequest(`${field} must be positive`);
  return parseDurationSeconds(value, field, 'one'); // its refusal, with its text
}

/**
 * Vault reads `lease` (the older name of `ttl`) as a string with Go's
 * `time.ParseDuration`, where `ttl` takes `ParseDurationSecond`: a number or
 * a string without a unit (`3600`, `"3600"`) and days (`"1d"`) are refused.
 */
function checkLease(value: unknown): void {
  if (value === undefined || value === null || value === '') return;
  const text = weakString(value);
  if (text === undefined || typeof goDuration(text) !== 'number') {
    throw invalidRequest(`invalid duration for lease: ${JSON.stringify(value)}`);
  }
}

/** Whether a stored token is periodic (an entry written before periods has none). @internal */
export const isPeriodic = (entry: StoredToken): entry is StoredToken & { period: number } =>
  typeof entry.period === 'number' && entry.period > 0;

/**
 * A periodic token's TTL in seconds, at creation (`now` in the creation
 * second) or at a renewal, with Vault's warnings (`framework.CalculateTTL`):
 * the period, capped by the store's max TTL and `explicit_max_ttl`; then never
 * past `explicit_max_ttl` from the creation time.
 * @throws TransitError `invalid_request` `past the max TTL, cannot renew` once
 *   `explicit_max_ttl` has passed.
 * @internal
 */
export function periodTtl(
  period: number,
  limits: { maxTtl: number; explicitMax: number; creationTime: number },
  nowMs: number,
): { ttl: number; warnings: string[] } {
  const { maxTtl, explicitMax, creationTime } = limits;
  const max = explicitMax > 0 && explicitMax < maxTtl ? explicitMax : maxTtl;
  const warnings: string[] = [];
  let ttl = period;
  if (ttl > max) {
    warnings.push(
      `period of "${humanDuration(ttl)}" exceeded the effective max_ttl of "${humanDuration(max)}"; period value is capped accordingly`,
    );
    ttl = max;
  }
  if (explicitMax > 0) {
    const left = creationTime + explicitMax - Math.floor(nowMs / 1000);
    if (left <= 0) throw invalidRequest(PAST_MAX);
    if (ttl > left) {
      warnings.push(cappedWarning(ttl, left));
      ttl = left;
    }
  }
  return { ttl, warnings };
}

/**
 * A periodic token's new expiry (epoch ms) at a renewal, with Vault's
 * warnings: the period again from now (the increment is not honoured), never
 * past `explicit_max_ttl` from its creation.
 * @throws TransitError as {@link periodTtl}.
 * @internal
 */
export function periodRenewal(
  entry: StoredToken & { period: number },
  maxTtl: number,
  nowMs: number,
): { expire: number; warnings: string[] } {
  const explicitMax = entry.explicit_max_ttl;
  const { ttl, warnings } = periodTtl(
    entry.period,
    { maxTtl, explicitMax, creationTime: entry.creation_time },
    nowMs,
  );
  const end = explicitMax > 0 ? (entry.creation_time + explicitMax) * 1000 : Infinity;
  return { expire: Math.min(nowMs + ttl * 1000, end), warnings };
}

/**
 * Renew a periodic token's lease by `seconds`. When the lease manager's max
 * TTL (counted from the lease's issue) keeps the lease short of that, a new
 * lease for the token takes over: its id is returned, and the caller stores
 * it in the entry, then revokes the lease not kept. `undefined`: the lease
 * was renewed in full, or a new one would be no longer.
 * @throws TransitError as the lease manager's `renew` (a revoked or expired lease refuses) and `issue`.
 * @internal
 */
export async function renewPeriodLease(
  leases: LeaseManager,
  entry: StoredToken & { lease_id: string },
  seconds: number,
): Promise<string | undefined> {
  let granted = 0;
  try {
    granted = (await leases.renew(entry.lease_id, seconds, { auth: true })).lease_duration;
    if (granted >= seconds) return undefined;
  } catch (e) {
    if (!isTransitError(e, 'invalid_request') || e.message !== PAST_MAX) throw e;
  }
  // The same lease as at creation (token-issue.ts): a periodic token's max is its explicit max.
  const fresh = await leases.issue(
    tokenLease(
      entry.accessor,
      seconds,
      entry.explicit_max_ttl,
      entry.renewable,
      leasePathOf(entry),
    ),
  );
  if (fresh.lease_duration > granted) return fresh.lease_id;
  // The lease manager's max TTL is below the period: no lease lasts longer; keep the old one.
  await leases.revoke(fresh.lease_id).catch(() => undefined);
  return undefined;
}
