/**
 * The rules of `auth/token/create`, as a pure function over the parent token
 * and the request (no I/O), so the store only adds randomness and storage:
 *
 * - policies default to the parent's; a non-root parent may only hand out a
 *   subset of its own (`default` aside); `root` among them makes a root token;
 *   `default` is attached unless `no_default_policy`;
 * - orphans (`no_parent`) need a root parent; a limited-use parent cannot
 *   create children;
 * - the TTL defaults to the store's default (a root token may have none) and
 *   is capped by the store's max TTL and `explicit_max_ttl`, with Vault's
 *   warning.
 * @module
 */
import { invalidRequest } from '../errors.js';
import { optBool, optInt, parseDurationSeconds } from '../request.js';
import {
  denied,
  metaOf,
  policyList,
  type StoredToken,
  type TokenContext,
  type TokenCreateRequest,
} from './token-entry.js';

/** What a create request resolves to. @internal */
export interface TokenPlan {
  policies: string[];
  orphan: boolean;
  /** Seconds; 0 = no expiry (root only). */
  ttl: number;
  /** The effective max TTL in seconds (store max, or `explicit_max_ttl` when lower). */
  cap: number;
  explicitMax: number;
  numUses: number;
  renewable: boolean;
  displayName: string;
  meta: Record<string, string> | null;
  warnings: string[];
}

/**
 * Resolve a create request against its parent.
 * @throws TransitError `permission_denied` for policies or orphans the parent may not grant;
 * `invalid_request` for bad fields.
 * @internal
 */
export function planToken(
  parent: TokenContext,
  parentEntry: StoredToken,
  req: TokenCreateRequest,
  limits: { defaultTtl: number; maxTtl: number },
): TokenPlan {
  if (parentEntry.num_uses > 0 && !parent.isRoot) {
    throw invalidRequest('restricted use token cannot generate child tokens');
  }
  let policies = policyList(req.policies);
  const noDefault = optBool(req.no_default_policy, 'no_default_policy') ?? false;
  // As Vault's token store: `default` is one more policy a child gets only
  // from a parent that holds it (or from root); without it a token would
  // widen its children past itself.
  const parentHasDefault = parentEntry.policies.includes('default');
  let addDefault = !noDefault && (parent.isRoot || parentHasDefault);
  if (policies.length === 0) {
    policies = [...parentEntry.policies];
    addDefault = false;
  } else if (!parent.isRoot) {
    for (const p of policies) {
      if (!parentEntry.policies.includes(p))
        throw denied('child policies must be subset of parent');
    }
  }
  const orphan = optBool(req.no_parent, 'no_parent') ?? false;
  if (orphan && !parent.isRoot) {
    throw denied('root or sudo privileges required to create orphan token');
  }
  const isRoot = policies.includes('root');
  if (isRoot) policies = ['root'];
  else {
    if (addDefault) policies = [...new Set([...policies, 'default'])];
    if (noDefault) policies = policies.filter((p) => p !== 'default');
  }
  policies.sort();

  const warnings: string[] = [];
  const explicitMax = parseDurationSeconds(req.explicit_max_ttl, 'explicit_max_ttl');
  let ttl = parseDurationSeconds(req.ttl, 'ttl');
  if (ttl === 0 && !isRoot) ttl = limits.defaultTtl;
  const cap = Math.min(limits.maxTtl, explicitMax > 0 ? explicitMax : Number.POSITIVE_INFINITY);
  if (ttl > cap && !(isRoot && explicitMax === 0)) {
    warnings.push(
      `TTL of "${ttl}s" exceeded the effective max_ttl of "${cap}s"; TTL value is capped accordingly`,
    );
    ttl = cap;
  }
  const numUses = optInt(req.num_uses, 'num_uses') ?? 0;
  if (numUses < 0) throw invalidRequest('number of uses cannot be negative');
  const display = req.display_name === undefined ? '' : String(req.display_name);
  return {
    policies,
    orphan,
    ttl,
    cap,
    explicitMax,
    numUses,
    renewable: optBool(req.renewable, 'renewable') ?? true,
    displayName: display === '' ? 'token' : `token-${display}`,
    meta: metaOf(req.meta),
    warnings,
  };
}

/**
 * A child's TTL where no lease manager expires a parent's tree: never past
 * the parent's expiry (with Vault's capping warning), so a child cannot
 * outlive its parent. An orphan, or a parent without expiry, caps nothing.
 * @internal
 */
export function capAtParent(plan: TokenPlan, parent: StoredToken, now: number): number {
  if (plan.orphan || parent.expire_ms === 0) return plan.ttl;
  const left = Math.max(1, Math.floor((parent.expire_ms - now) / 1000));
  if (plan.ttl !== 0 && plan.ttl <= left) return plan.ttl;
  plan.warnings.push(
    `TTL of "${plan.ttl}s" exceeded the parent token's remaining TTL of "${left}s"; TTL value is capped accordingly`,
  );
  return left;
}
