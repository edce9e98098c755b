/**
 * Issuing a lease (`ExpirationManager.Register`) and renewing it
 * (`POST /sys/leases/renew`, `ExpirationManager.Renew` with
 * `framework.CalculateTTL`), reference §11.
 *
 * TTL rules, as Vault's: the cap is `min(system max, the lease's max_ttl)`
 * measured from the issue time truncated to seconds, against "now" truncated
 * to seconds; past it, renew fails; a longer TTL is cut to what is left, with
 * Vault's warning. Refusals come in Vault's order: not found, irrevocable, no
 * expiry, expired, not renewable, token lease.
 * @module
 */
import { conflict, internal, invalidRequest } from '../errors.js';
import { asRequest, parseDurationSeconds } from '../request.js';
import { tokenKeyOf } from './by-token.js';
import {
  cappedWarning,
  checkPath,
  LEASE_ID_RANDOM_LENGTH,
  type LeaseRecord,
  plausibleLeaseId,
  randomBase62,
  requireLeaseId,
} from './lease.js';
import { type LeaseContext, readLease, transition } from './lease-store.js';
import { revokeSync } from './revoke.js';
import type { IssueRequest, LeaseDuration, LeaseGrant } from './types.js';

/** Effective maximum TTL (seconds) of a lease with its own `max_ttl`. */
const effectiveMax = (ctx: LeaseContext, maxTtl: number): number =>
  maxTtl > 0 && maxTtl < ctx.maxTtl ? maxTtl : ctx.maxTtl;

function grant(rec: LeaseRecord, ttl: number, warnings: string[]): LeaseGrant {
  const out: LeaseGrant = { lease_id: rec.id, renewable: rec.renewable, lease_duration: ttl };
  if (warnings.length > 0) out.warnings = warnings;
  return out;
}

/**
 * Create and persist a lease.
 * @throws TransitError `invalid_request` for a bad path, TTL, flag, token or data.
 * @internal
 */
export async function issueLease(ctx: LeaseContext, request: IssueRequest): Promise<LeaseGrant> {
  const req = asRequest(request) as Partial<IssueRequest>;
  const path = checkPath(req.path);
  if (typeof req.renewable !== 'boolean') throw invalidRequest("'renewable' must be a boolean");
  if (req.auth !== undefined && typeof req.auth !== 'boolean') {
    throw invalidRequest("'auth' must be a boolean");
  }
  if (req.token !== undefined && (typeof req.token !== 'string' || req.token === '')) {
    throw invalidRequest("'token' must be a non-empty string");
  }
  let data: unknown;
  if (req.data !== undefined) {
    let json: string | undefined;
    try {
      json = JSON.stringify(req.data);
    } catch (e) {
      throw invalidRequest("'data' must be JSON-serialisable", e);
    }
    if (json === undefined) throw invalidRequest("'data' must be JSON-serialisable");
    data = JSON.parse(json);
  }
  // A positive TTL under a second is one second, never 0 (the default, or no cap).
  const maxTtl = parseDurationSeconds(req.max_ttl, 'max_ttl', 'one');
  const cap = effectiveMax(ctx, maxTtl);
  let ttl = parseDurationSeconds(req.ttl, 'ttl', 'one') || Math.min(ctx.defaultTtl, cap);
  const warnings: string[] = [];
  if (ttl > cap) {
    warnings.push(cappedWarning(ttl, cap));
    ttl = cap;
  }
  const token = req.token;
  const tokenKey = token === undefined ? undefined : await tokenKeyOf(ctx, token);
  for (let i = 0; i < 4; i++) {
    const now = ctx.clock.now();
    const id = `${path}/${randomBase62(ctx.random, LEASE_ID_RANDOM_LENGTH)}`;
    const rec: LeaseRecord = {
      v: 1,
      id,
      path,
      issue_time: now,
      expire_time: now + ttl * 1000,
      last_renewal: 0,
      ttl,
      max_ttl: maxTtl,
      renewable: req.renewable,
      auth: req.auth === true,
      ...(token === undefined ? {} : { token, token_key: tokenKey }),
      ...(data === undefined ? {} : { data }),
      due: now + ttl * 1000,
      attempts: 0,
      claim: 0,
      irrevocable: false,
    };
    // Created with compare-and-set from "absent": an id collision can never overwrite.
    if ((await transition(ctx, id, undefined, rec)) === undefined) continue;
    if (token !== undefined) await checkTokenAfterIssue(ctx, token, id);
    return grant(rec, ttl, warnings);
  }
  throw internal('could not allocate a unique lease id');
}

/**
 * A lease of a token revoked meanwhile is revoked here (by-token.ts): its index
 * key was written before this check, so a revocation that deleted the token
 * before the check may have listed the index before the key was there.
 * @throws TransitError `invalid_request` when the token no longer exists.
 */
async function checkTokenAfterIssue(ctx: LeaseContext, token: string, id: string): Promise<void> {
  const exists = ctx.tokenExists;
  if (exists === undefined) return;
  let failure: unknown;
  try {
    if (await exists(token)) return;
    failure = invalidRequest(
      "the lease's token does not exist or has expired; the lease was revoked",
    );
  } catch (e) {
    failure = e; // fail closed: a lease whose token could not be checked is not handed out
  }
  await revokeSync(ctx, id, false).catch(ctx.onError);
  throw failure;
}

/**
 * Extend a lease (`POST /sys/leases/renew`).
 * @throws TransitError `invalid_request` with Vault's messages: `lease_id must be
 * specified`, `lease not found`, `lease is expired and has failed previous revocation
 * attempts`, `lease is not renewable`, `lease expired`, `tokens cannot be renewed
 * through this endpoint`, `past the max TTL, cannot renew`; a bad increment.
 * `conflict` if the entry keeps changing.
 * @internal
 */
export async function renewLease(
  ctx: LeaseContext,
  leaseId: unknown,
  increment: LeaseDuration | undefined,
  allowAuth: boolean,
): Promise<LeaseGrant> {
  const id = requireLeaseId(leaseId);
  const inc = parseDurationSeconds(increment, 'increment');
  for (let i = 0; i < 8; i++) {
    const snap = plausibleLeaseId(id) ? await readLease(ctx, id) : undefined;
    if (snap === undefined) throw invalidRequest('lease not found');
    const { rec } = snap;
    const nowMs = ctx.clock.now();
    if (rec.irrevocable) {
      throw invalidRequest('lease is expired and has failed previous revocation attempts');
    }
    if (rec.expire_time === 0) throw invalidRequest('lease is not renewable');
    if (rec.expire_time <= nowMs || rec.claim > nowMs) throw invalidRequest('lease expired');
    if (!rec.renewable) throw invalidRequest('lease is not renewable');
    if (rec.auth && !allowAuth) {
      throw invalidRequest('tokens cannot be renewed through this endpoint');
    }
    // CalculateTTL: whole seconds, the cap measured from the issue time.
    const now = Math.floor(nowMs / 1000);
    let ttl = inc > 0 ? inc : rec.ttl > 0 ? rec.ttl : ctx.defaultTtl;
    const maxValid = Math.floor(rec.issue_time / 1000) + effectiveMax(ctx, rec.max_ttl) - now;
    if (maxValid <= 0) throw invalidRequest('past the max TTL, cannot renew');
    const warnings: string[] = [];
    if (ttl > maxValid) {
      warnings.push(cappedWarning(ttl, maxValid));
      ttl = maxValid;
    }
    const expire = nowMs + ttl * 1000;
    const next: LeaseRecord = { ...rec, expire_time: expire, last_renewal: nowMs, due: expire };
    if ((await transition(ctx, id, snap, next)) !== undefined) return grant(next, ttl, warnings);
  }
  throw conflict(`lease "${id}" kept changing; retry the renewal`);
}
