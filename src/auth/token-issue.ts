/**
 * Issuing tokens, as Vault's token store: root tokens (dev mode's chosen id,
 * the bootstrap step) and children of an authenticated token
 * (`auth/token/create`, `create-orphan`). The rules are ./token-create.ts's
 * (pure); this adds the randomness, the token's lease and storage.
 *
 * Storing: the accessor and the link under the parent (holding the child's
 * accessor) first, then the entry with compare-and-set (a new token never
 * overwrites one, nor one being revoked), so a token authenticates only once
 * its links exist. The parent is read from storage (not the cache) before the
 * child is made and again after it is stored: a parent revoked meanwhile may
 * have listed its children before this one's link existed, so the child
 * revokes itself (./token-revoke.ts lists children again once the parent is
 * gone).
 * @module
 */
import type { Clock } from '../clock.js';
import { utf8 } from '../encoding.js';
import { invalidRequest, isTransitError, TransitError } from '../errors.js';
import { withWarnings } from '../result-meta.js';
import { capEntry } from './token-cap.js';
import { capAtParent, planToken } from './token-create.js';
import {
  authOf,
  checkCustomTokenId,
  checkRootTokenId,
  denied,
  K,
  ROOT_PATH,
  type StoredToken,
  TOKEN_LEASE_PATH,
  TOKEN_ORPHAN_PATH,
  type TokenAuth,
  type TokenContext,
  type TokenCreateRequest,
  tokenLease,
} from './token-entry.js';
import { type RevokeContext, revokeTree } from './token-revoke.js';
import type { TokenSalt } from './token-salt.js';

/**
 * What issuing tokens needs of a token store: what revocation needs (a child
 * whose parent went meanwhile revokes itself), and more.
 * @internal
 */
export interface IssueContext extends RevokeContext {
  readonly clock: Clock;
  readonly salt: TokenSalt;
  /** The store's default TTL, in seconds. */
  readonly defaultTtl: number;
  /** The store's max TTL, in seconds. */
  readonly maxTtl: number;
  /**
   * The entry of `hash` if it is a live token (its own, unexpired), read from
   * storage when `fresh`: the store's own check.
   */
  liveEntry(hash: string, fresh: boolean): Promise<StoredToken | undefined>;
  /** After a lost compare-and-set: a random, growing pause (../util/contention.ts). */
  readonly pause: (attempt: number) => Promise<void>;
}

/** Vault's refusal of a chosen id that a token already has. */
const duplicateId = () => invalidRequest('cannot create a token with a duplicate ID');

/**
 * Store a new token: its accessor and parent link first, then the entry
 * (compare-and-set: never over another), as Vault's `storeCommon` writes the
 * indexes before the primary entry. A token authenticates only once every
 * link exists, so a create cut short — a failed write, a seal between two
 * writes, a crash — leaves no live token outside its parent's tree, only
 * indexes that name nothing (an accessor reads as not found; a revocation
 * drops a dangling link). The accessor is taken back when the failure is
 * known; the link stays (see {@link dropAccessor}).
 */
async function storeEntry(ctx: IssueContext, entry: StoredToken): Promise<void> {
  const raw = utf8(JSON.stringify(entry));
  const link = entry.parent === '' ? undefined : K.child(entry.parent, entry.hash);
  let stored: boolean;
  try {
    await ctx.storage.put(K.accessor(entry.accessor), utf8(entry.hash));
    // The link holds the child's accessor: whose link it is, when a chosen id is re-created.
    if (link !== undefined) await ctx.storage.put(link, utf8(entry.accessor));
    stored = await ctx.storage.compareAndSet(K.id(entry.hash), undefined, raw);
  } catch (e) {
    // The entry may have been written before the failure (a lost reply): taken
    // back first, and the accessor only once the entry is known not ours, so a
    // token that exists is never left without it. The compare-and-set answers
    // `true` (ours, taken back) or `false` (not there, or another's); a
    // failure leaves it unknown.
    const back = await ctx.storage.compareAndSet(K.id(entry.hash), raw, undefined).then(
      (removed) => (removed ? 'removed' : 'changed or absent'),
      () => 'unknown',
    );
    ctx.entries.forget(entry.hash);
    if (back === 'removed') await dropAccessor(ctx, entry);
    else if (back !== 'unknown') await settleUnknownEntry(ctx, entry);
    throw e;
  }
  ctx.entries.forget(entry.hash);
  if (!stored) {
    await dropAccessor(ctx, entry);
    throw new TransitError('conflict', 'token already exists');
  }
}

/**
 * After a failed create whose take-back found the entry changed or absent:
 * if the entry there is this create's (its accessor; a use of a limited-use
 * chosen id changed it), the token was made although the caller is told it
 * was not: it is revoked (its links with it). Otherwise the accessor goes.
 * A read or revocation that fails leaves everything (stale indexes are harmless).
 */
async function settleUnknownEntry(ctx: IssueContext, entry: StoredToken): Promise<void> {
  try {
    const found = await ctx.entries.read(entry.hash, true, true);
    if (found?.entry.accessor === entry.accessor) await revokeTree(ctx, entry.hash);
    else await dropAccessor(ctx, entry);
  } catch {
    // left as it is
  }
}

/**
 * Best effort: delete the accessor a create that did not store its entry
 * wrote (its own: random). Its parent link stays: it names only the parent
 * and the hash, which a create of the same chosen id may share, and a check
 * of who holds the hash could be overtaken. A stale link is harmless: the
 * walkers of a parent's children (revocation, orphaning, capping) act only
 * on a child whose entry names that parent, and drop a stale link.
 */
async function dropAccessor(ctx: IssueContext, entry: StoredToken): Promise<void> {
  await ctx.storage.delete(K.accessor(entry.accessor)).catch(() => undefined);
}

/**
 * Create a root token (policies `["root"]`, no expiry); `id` becomes the token
 * when given, and an existing one is kept.
 * @throws TransitError `invalid_request` for an unusable `id`.
 * @internal
 */
export async function issueRoot(ctx: IssueContext, id: string | undefined): Promise<string> {
  const token = id ?? `hvs.${ctx.salt.random(32)}`;
  checkRootTokenId(token);
  const hash = await ctx.salt.hash(token);
  if (await ctx.entries.read(hash)) return token;
  const now = ctx.clock.now();
  await storeEntry(ctx, {
    v: 1,
    hash,
    accessor: ctx.salt.random(24),
    policies: ['root'],
    parent: '',
    path: ROOT_PATH,
    display_name: 'root',
    meta: null,
    creation_time: Math.floor(now / 1000),
    creation_ttl: 0,
    expire_ms: 0,
    explicit_max_ttl: 0,
    num_uses: 0,
    renewable: false,
  });
  await ctx.storage.put(K.root, utf8('1'));
  return token;
}

/**
 * Create a child token of `parent` (or an orphan), with its lease when the
 * store has a lease manager.
 * @throws TransitError as {@link planToken}; `permission_denied` for a parent gone.
 * @internal
 */
export async function issueChild(
  ctx: IssueContext,
  parent: TokenContext,
  req: TokenCreateRequest,
  options: { sudo?: boolean; orphan?: boolean },
): Promise<TokenAuth> {
  // A fresh read: another instance may have revoked the parent a moment ago.
  const parentEntry = await ctx.liveEntry(parent.hash, true);
  if (!parentEntry) throw denied('permission denied');
  const plan = planToken(
    parent,
    parentEntry,
    req,
    { defaultTtl: ctx.defaultTtl, maxTtl: ctx.maxTtl },
    options.sudo === true,
    options.orphan === true,
  );
  const { renewable } = plan;
  const now = ctx.clock.now();
  const ttl = ctx.leases ? plan.ttl : capAtParent(plan, parentEntry, now);
  const token = plan.id ?? `hvs.${ctx.salt.random(32)}`;
  const hash = await ctx.salt.hash(token);
  if (plan.id !== undefined) {
    // Vault's `create`: a chosen id's form, then no token may have it already.
    checkCustomTokenId(plan.id);
    // One being revoked counts (as Vault's pending revocation): its links are not gone yet.
    if (await ctx.entries.read(hash, true, true)) throw duplicateId();
  }
  const accessor = ctx.salt.random(24);
  // The path it is made on, as Vault's `handleCreateCommon`: its lease's too.
  const path = options.orphan === true ? TOKEN_ORPHAN_PATH : TOKEN_LEASE_PATH;
  const lease =
    ctx.leases && ttl > 0
      ? await ctx.leases.issue(tokenLease(accessor, ttl, plan.cap, renewable, path))
      : undefined;
  const entry: StoredToken = {
    v: 1,
    hash,
    accessor,
    policies: plan.policies,
    parent: plan.orphan ? '' : parent.hash,
    path,
    display_name: plan.displayName,
    meta: plan.meta,
    creation_time: Math.floor(now / 1000),
    creation_ttl: ttl,
    expire_ms: ttl === 0 ? 0 : now + ttl * 1000,
    explicit_max_ttl: plan.explicitMax,
    num_uses: plan.numUses,
    renewable,
    ...(lease ? { lease_id: lease.lease_id } : {}),
    // Only a periodic token's entry has one: other entries keep their earlier form.
    ...(plan.period > 0 ? { period: plan.period } : {}),
  };
  try {
    await storeEntry(ctx, entry);
  } catch (e) {
    // Not stored (another request took a chosen id first, or storage failed): the
    // lease issued for this token goes with it.
    if (lease && ctx.leases) await ctx.leases.revoke(lease.lease_id).catch(() => undefined);
    throw plan.id !== undefined && isTransitError(e, 'conflict') ? duplicateId() : e;
  }
  if (plan.orphan) return withWarnings(authOf(token, entry, now), plan.warnings);
  const parentNow = await ctx.liveEntry(parent.hash, true);
  if (!parentNow) {
    // The parent was revoked while this child was being stored: its revocation may have
    // listed the parent's children before the child's link existed, so the child goes
    // here (./token-revoke.ts: a revocation lists children again after the parent is gone).
    await revokeTree(ctx, entry.hash);
    throw denied('permission denied');
  }
  if (!ctx.leases && parentNow.expire_ms !== 0 && parentNow.expire_ms < entry.expire_ms) {
    // The parent's renewal shortened it meanwhile, and may have listed its children
    // before this link existed (./token-cap.ts): the child caps itself.
    const capped = await capEntry(ctx, entry.hash, parentNow.expire_ms);
    if (capped) return withWarnings(authOf(token, capped, now), plan.warnings);
  }
  return withWarnings(authOf(token, entry, now), plan.warnings);
}
