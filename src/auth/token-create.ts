/**
 * The rules of `auth/token/create`, as a pure function over the parent token
 * and the request (no I/O), so the store only adds randomness and storage:
 *
 * - policies default to the parent's; a non-root parent may only hand out a
 *   subset of its own (`default` aside) unless it has `sudo`; `root` among them
 *   makes a root token, and needs a root parent;
 *   `default` is attached unless `no_default_policy`;
 * - orphans (`no_parent`) need a root parent or `sudo`; a limited-use parent
 *   (root included) cannot create children;
 * - the TTL defaults to the store's default (a root token may have none) and
 *   is capped by the store's max TTL and `explicit_max_ttl`, with Vault's
 *   warning;
 * - `period` (root or sudo) makes a periodic token, root tokens included: its
 *   TTL is the period, whatever `ttl` says (./token-period.ts).
 * @module
 */
import { invalidRequest } from '../errors.js';
import { cappedWarning } from '../leases/lease.js';
import { optBool, optInt } from '../request.js';
import { weakStringMap, weakStrings } from '../weak-decode.js';
import { policyName } from './acl-policies.js';
import type { StoredToken, TokenContext, TokenCreateRequest } from './token-entry.js';
import { createDuration, periodTtl } from './token-period.js';

/** What a create request resolves to. @internal */
export interface TokenPlan {
  /** The token a root or sudo caller chose (Vault's `id`), not yet checked for use. */
  id?: string;
  policies: string[];
  orphan: boolean;
  /** Seconds; 0 = no expiry (root only). */
  ttl: number;
  /**
   * The max TTL of the token's lease in seconds: the store's, or `explicit_max_ttl`
   * when lower; for a periodic token `explicit_max_ttl` (0: none).
   */
  cap: number;
  explicitMax: number;
  /** Seconds; 0 = not periodic. */
  period: number;
  numUses: number;
  renewable: boolean;
  displayName: string;
  meta: Record<string, string> | null;
  warnings: string[];
}

/**
 * Vault's `id` (a chosen token): only for root or sudo, as Vault's
 * `handleCreateCommon` checks it, after the type and before the policies. Its
 * form and uniqueness are checked when it is stored (./token-issue.ts), as
 * Vault's `create` does.
 */
function customId(value: unknown, isSudo: boolean): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw invalidRequest("'id' must be a string");
  if (!isSudo) throw invalidRequest('root or sudo privileges required to specify token id');
  return value;
}

/** Vault's `displayNameSanitize`: anything but letters, digits and `-` becomes `-`. */
const DISPLAY_UNSAFE = /[^a-zA-Z0-9-]/g;

/**
 * Resolve a create request against its parent, in the order of Vault's
 * `handleCreateCommon`. `sudo`: the caller has `sudo` on the create path (a
 * root token always has): it may create orphans and hand out policies it does
 * not hold (`root` aside). `orphanPath`: the request came through
 * `auth/token/create-orphan`, which makes an orphan whatever the caller's sudo.
 * @throws TransitError `invalid_request` for a parent with limited uses, policies,
 * orphans or periods the parent may not grant, and bad fields.
 * @internal
 */
export function planToken(
  parent: TokenContext,
  parentEntry: StoredToken,
  req: TokenCreateRequest,
  limits: { defaultTtl: number; maxTtl: number },
  sudo = false,
  orphanPath = false,
): TokenPlan {
  // Root included: a limited root token would escape its limit through an unlimited child.
  if (parentEntry.num_uses > 0) {
    throw invalidRequest('restricted use token cannot generate child tokens');
  }
  const isSudo = parent.isRoot || sudo;
  // Vault's order and texts (handleCreateCommon, no role): the type, then the uses.
  const type = req.type === undefined ? '' : String(req.type);
  if (type === 'batch') throw invalidRequest('batch tokens are not supported');
  if (type !== '' && type !== 'service') throw invalidRequest("invalid 'token_type' value");
  const numUses = optInt(req.num_uses, 'num_uses') ?? 0;
  if (numUses < 0) throw invalidRequest('number of uses cannot be negative');
  // Vault's next check: an entity alias needs a token role, and there are none here.
  const alias = req.entity_alias;
  if (alias !== undefined && alias !== null && String(alias) !== '') {
    throw invalidRequest("'entity_alias' is only allowed in combination with token role");
  }
  const id = customId(req.id, isSudo);
  const asked = policyList(req.policies);
  let policies = asked.names;
  const noDefault = optBool(req.no_default_policy, 'no_default_policy') ?? false;
  // As Vault's token store: `default` is one more policy a child gets only
  // from a parent that holds it (or from root or sudo); without it a token would
  // widen its children past itself.
  const parentHasDefault = parentEntry.policies.includes('default');
  let addDefault = !noDefault && (isSudo || parentHasDefault);
  // Vault inherits for an absent or empty list only: `[""]` names no policy.
  if (!asked.given) {
    policies = [...parentEntry.policies];
    addDefault = false;
  } else if (!isSudo) {
    for (const p of policies) {
      if (!parentEntry.policies.includes(p)) {
        throw invalidRequest('child policies must be subset of parent');
      }
    }
  }
  // Sudo does not make root tokens: that would be an escalation.
  if (policies.includes('root') && !parentEntry.policies.includes('root')) {
    throw invalidRequest('root tokens may not be created without parent token being root');
  }
  const noParent = optBool(req.no_parent, 'no_parent') ?? false;
  if (noParent && !isSudo) {
    throw invalidRequest('root or sudo privileges required to create orphan token');
  }
  // `auth/token/create-orphan` makes orphans without sudo: its ACL decides (Vault).
  const orphan = noParent || orphanPath;
  const isRoot = policies.includes('root');
  if (isRoot) policies = ['root'];
  else {
    if (addDefault) policies = [...new Set([...policies, 'default'])];
    if (noDefault) policies = policies.filter((p) => p !== 'default');
  }
  policies.sort();

  const warnings: string[] = [];
  const { ttl, explicitMax, period, cap } = ttlOf(req, isSudo, isRoot, limits, warnings);
  if (ttl === 0 && parentEntry.expire_ms !== 0) {
    throw invalidRequest('expiring root tokens cannot create non-expiring root tokens');
  }
  const display = req.display_name === undefined ? '' : String(req.display_name);
  const renewable = optBool(req.renewable, 'renewable') ?? true;
  return {
    ...(id === undefined ? {} : { id }),
    policies,
    orphan,
    ttl,
    cap,
    explicitMax,
    period,
    numUses,
    // A token that never expires is not advertised as renewable (Vault).
    renewable: ttl !== 0 && renewable,
    displayName:
      display === '' ? 'token' : `token-${display}`.replace(DISPLAY_UNSAFE, '-').replace(/-$/, ''),
    meta: metaOf(req.meta),
    warnings,
  };
}

/**
 * The TTL, `explicit_max_ttl` and period of a create request, in Vault's
 * order (`explicit_max_ttl`, `period` with its sudo check, `ttl`), with
 * Vault's warnings pushed to `warnings`; and the cap of the token's lease
 * ({@link TokenPlan.cap}).
 */
function ttlOf(
  req: TokenCreateRequest,
  isSudo: boolean,
  isRoot: boolean,
  limits: { defaultTtl: number; maxTtl: number },
  warnings: string[],
): { ttl: number; explicitMax: number; period: number; cap: number } {
  // A positive TTL under a second is one second, never 0 (the default, or no cap).
  const explicitMax = createDuration(req.explicit_max_ttl, 'explicit_max_ttl');
  const period = createDuration(req.period, 'period'); // 0: not periodic
  if (period > 0 && !isSudo) {
    throw invalidRequest('root or sudo privileges required to create periodic token');
  }
  let ttl =
    req.ttl !== undefined && req.ttl !== ''
      ? createDuration(req.ttl, 'ttl')
      : createDuration(req.lease, 'lease'); // Vault's older name
  if (period > 0) {
    // Vault's CalculateTTL: the period wins over `ttl` (without a warning), capped by the
    // max TTL and `explicit_max_ttl`, which is kept as given (it alone ends the token).
    // At creation, now is the creation time: creation 0, now 0.
    const p = periodTtl(period, { maxTtl: limits.maxTtl, explicitMax, creationTime: 0 }, 0);
    warnings.push(...p.warnings);
    // A periodic token's lease is renewed past the store's max TTL (./token-period.ts).
    return { ttl: p.ttl, explicitMax, period, cap: explicitMax };
  }
  // Vault's CalculateTTL at creation (start = now): the TTL asked for, or the default, is
  // capped by the smaller of the store's max TTL and `explicit_max_ttl`, which is kept as
  // given (lookups show it; renewals cap by the same smaller value). A root token with no
  // TTL is not bounded by the store's max, so it never expires unless...
  const max = explicitMax > 0 ? Math.min(explicitMax, limits.maxTtl) : limits.maxTtl;
  if (ttl > 0 || !isRoot) {
    if (ttl === 0) ttl = limits.defaultTtl;
    if (ttl > max) {
      warnings.push(cappedWarning(ttl, max));
      ttl = max;
    }
  } else if (explicitMax > 0) {
    // ...`explicit_max_ttl` bounds it ("Root tokens are still bound by explicit max TTL").
    // Vault gives it the whole explicit max; here its lease could not outlive the store's
    // max TTL, so it is capped there too, with the same warning.
    ttl = max;
    if (explicitMax > max) warnings.push(cappedWarning(explicitMax, max));
  }
  return { ttl, explicitMax, period: 0, cap: max };
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

/**
 * The policies a create request names, as Vault's `handleCreateCommon` reads
 * them (WeakDecode into `[]string`: numbers and booleans as text, a single
 * value lifted, so `""` is `[""]`; a string is also split at commas here).
 * `given` is whether the list has any entry, before empty names are dropped:
 * Vault inherits the parent's policies only for an absent or empty list, so
 * `[""]` names no policy at all, and gets `default` alone.
 * @throws TransitError `invalid_request` for a bad list or name.
 * @internal
 */
export function policyList(value: unknown): { names: string[]; given: boolean } {
  if (value === undefined || value === null) return { names: [], given: false };
  const parts = typeof value === 'string' ? value.split(',') : weakStrings(value);
  if (!parts) throw invalidRequest("'policies' must be a list of strings");
  const names = parts.map((p) => p.trim()).filter((p) => p !== '');
  return { names: [...new Set(names.map(policyName))], given: parts.length > 0 };
}

/**
 * Token metadata, decoded as Vault's token store decodes `meta` (WeakDecode
 * into `map[string]string`): numbers as their text, booleans `"1"`/`"0"`,
 * `null` as `""`, `[]` as `{}`; or null when absent.
 * @internal
 */
export function metaOf(value: unknown): Record<string, string> | null {
  if (value === undefined || value === null) return null;
  const meta = weakStringMap(value);
  if (!meta) throw invalidRequest("'meta' must be an object of strings");
  return meta;
}
