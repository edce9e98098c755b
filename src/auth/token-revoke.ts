/**
 * Revoking tokens, as Vault's token store: a whole tree (`revoke`,
 * `revoke-self`, `revoke-accessor`, an expiry, a spent token), or one token
 * whose children become orphans (`revoke-orphan`).
 *
 * Order, and why: every entry of the tree is first marked as being revoked
 * (so nothing authenticates with them while the rest runs, and each stays
 * findable), then deleted with its accessor and parent link, children first
 * (so a revocation that fails half way is finished by a retry, by token,
 * accessor or lease), each after the leases issued with it (queued, as
 * Vault's `RevokeByToken`) and before its own lease. The leases issued with a
 * token are looked up even when the token was already gone, so a retried
 * revocation finishes them.
 *
 * With a lease manager, revocation goes both ways ({@link bindLeases}):
 * revoking a token revokes the leases issued with it, and revoking (or
 * expiring) a token's lease (the one its entry names) revokes the token.
 * @module
 */
import { fromUtf8, utf8 } from '../encoding.js';
import { TransitError } from '../errors.js';
import type { LeaseManager } from '../leases/lease-manager.js';
import type { RevokableLease } from '../leases/types.js';
import type { StorageAdapter } from '../storage/adapter.js';
import { REVOKING, type TokenEntries } from './token-entries.js';
import {
  CAS_RETRIES,
  K,
  type StoredToken,
  TOKEN_LEASE_PATH,
  TOKEN_ORPHAN_PATH,
} from './token-entry.js';

/** What revocation needs of a token store. @internal */
export interface RevokeContext {
  readonly storage: StorageAdapter;
  readonly entries: TokenEntries;
  readonly leases: LeaseManager | undefined;
}

/**
 * Delete the entry of `hash`, then its accessor, then its parent's link to
 * it. The accessor outlives the entry so that a retry by accessor (or by the
 * token's lease, which names the accessor) finds a token whose entry delete
 * failed; the link goes last: it is how a retry of the parent's revocation
 * finds this token again. A token re-created meanwhile with the same chosen
 * id under the same parent wrote its own link (its accessor), and keeps it.
 */
async function dropEntry(ctx: RevokeContext, hash: string, entry: StoredToken): Promise<void> {
  try {
    await ctx.storage.delete(K.id(hash));
  } finally {
    ctx.entries.forget(hash);
  }
  await ctx.storage.delete(K.accessor(entry.accessor));
  if (entry.parent !== '') await dropStaleLink(ctx, entry.parent, hash);
}

/**
 * Delete a link from `parent` to `hash` that leads to no live token of
 * `parent`'s (a revoked or orphaned child's, a failed create's), unless the
 * token that now has `hash` is `parent`'s and the link is its own (its
 * accessor: re-created meanwhile), by compare-and-set on what was read.
 */
async function dropStaleLink(ctx: RevokeContext, parent: string, hash: string): Promise<void> {
  const found = await ctx.entries.read(hash, true, true);
  const live = found?.entry.parent === parent ? found.entry.accessor : undefined;
  const key = K.child(parent, hash);
  const value = await ctx.storage.get(key);
  if (value === undefined || (live !== undefined && fromUtf8(value) === live)) return;
  await ctx.storage.compareAndSet(key, value, undefined);
}

/** Revoke a revoked token's own lease (its revoker then finds the token gone). */
async function revokeOwnLease(ctx: RevokeContext, id: string): Promise<void> {
  await ctx.leases?.revoke(id).catch(() => undefined);
}

/**
 * Delete a token and its descendants, with their leases. `fromLease` is the
 * lease whose revoker called this (not revoked again from inside its own
 * revocation); `spent` is the entry of a limited-use token whose last use
 * already deleted it (its accessor, links and lease still go).
 *
 * Two passes, as Vault's (its pending revocation, then children first), so
 * a failure half way never strands a descendant. First every token of the
 * tree is marked as being revoked ({@link REVOKING}), parents before
 * children: none authenticates from then on, and each stays findable.
 * Then, children before parents, the leases issued with each are revoked
 * (as Vault's `RevokeByToken`, before the entry goes), then it is deleted
 * with its accessor and parent link, then its own lease is revoked. So
 * whatever is left after a failure is still reached from the token, its
 * accessor or its lease, and a retry finishes it: leases issued with a token
 * never outlive it because a revocation failed half way.
 * @internal
 */
export async function revokeTree(
  ctx: RevokeContext,
  hash: string,
  fromLease?: string,
  spent?: StoredToken,
): Promise<void> {
  /** Every token met, in the order met, with its entry (a dropped entry names its parent). */
  const met: { hash: string; entry: StoredToken | undefined }[] = [];
  const stack: { hash: string; parent: string | undefined }[] = [{ hash, parent: undefined }];
  /** Each token is revoked once: the stack only ever gets a hash not seen before. */
  const seen = new Set([hash]);
  const listChildren = async (parent: string): Promise<void> => {
    for (const child of await ctx.storage.list(K.children(parent))) {
      if (seen.has(child)) continue;
      seen.add(child);
      stack.push({ hash: child, parent });
    }
  };
  while (stack.length > 0) {
    const at = stack.pop() as { hash: string; parent: string | undefined };
    const marked = await markRevoking(ctx, at.hash, at.parent);
    if (marked === FOREIGN || (marked === undefined && at.parent !== undefined)) {
      // A link left by a create that failed (to no entry, or to a token made
      // since under another parent): not this tree's, nor are children or
      // leases listed under that hash. Only the stale link goes.
      await dropStaleLink(ctx, at.parent as string, at.hash);
      continue;
    }
    await listChildren(at.hash);
    const entry = marked ?? (at.hash === hash ? spent : undefined);
    met.push({ hash: at.hash, entry });
    // Listed again now the token is marked: a child stored meanwhile (its creator found
    // the parent before the mark) is revoked too; one stored later sees the parent gone
    // and revokes itself (token-issue.ts `issueChild`).
    await listChildren(at.hash);
  }
  for (const { hash: h, entry } of met.reverse()) {
    // Looked up even when the token is already gone: a retry finishes them.
    await ctx.leases?.revokeByTokenKey(h);
    // Only the walk's own token can be gone here: a child without an entry
    // was left at its link above.
    if (!entry) continue;
    await dropEntry(ctx, h, entry);
    // Its own lease at once: a failure further on must not leave it to its TTL.
    const lease = entry.lease_id;
    if (lease !== undefined && lease !== fromLease) await revokeOwnLease(ctx, lease);
  }
}

/** {@link markRevoking}'s answer for a listed child whose entry names another parent. */
const FOREIGN = Symbol('foreign');

/**
 * Mark the entry of `hash` as being revoked (compare-and-set; one already
 * marked is left as it is). The entry as it was, or `undefined` when gone.
 */
async function markRevoking(
  ctx: RevokeContext,
  hash: string,
  parent?: string,
): Promise<StoredToken | undefined | typeof FOREIGN> {
  for (let i = 0; i < CAS_RETRIES; i++) {
    const found = await ctx.entries.read(hash, true, true);
    if (!found) return undefined;
    if (parent !== undefined && found.entry.parent !== parent) return FOREIGN;
    if (found.entry.num_uses === REVOKING) return found.entry;
    const next = utf8(JSON.stringify({ ...found.entry, num_uses: REVOKING }));
    const done = await ctx.storage.compareAndSet(K.id(hash), found.raw, next);
    ctx.entries.forget(hash);
    if (done) return found.entry;
  }
  throw new TransitError('conflict', 'a token kept changing while it was revoked; retry');
}

/**
 * Revoke one token and its leases; its children become orphans (Vault's
 * `revoke-orphan`): each child's entry is rewritten with no parent before the
 * token goes, so no child is ever left pointing at a revoked parent.
 * @internal
 */
export async function revokeOrphan(ctx: RevokeContext, hash: string): Promise<void> {
  const orphanChildren = async (): Promise<void> => {
    for (const child of await ctx.storage.list(K.children(hash))) {
      await orphanChild(ctx, child, hash);
      await dropStaleLink(ctx, hash, child);
    }
  };
  // Marked first, as revokeTree: it stops authenticating, so no lease is issued
  // with it after the listing below (which then finds them all), and a child
  // made under it after the first pass revokes itself (token-issue.ts `issueChild`).
  // No parent to check against: never FOREIGN.
  const entry = (await markRevoking(ctx, hash)) as StoredToken | undefined;
  await orphanChildren();
  // The leases issued with it before the entry goes (see revokeTree).
  await ctx.leases?.revokeByTokenKey(hash);
  if (entry) await dropEntry(ctx, hash, entry);
  // Again now the token is gone: a child stored meanwhile is orphaned too.
  await orphanChildren();
  if (entry?.lease_id !== undefined) await revokeOwnLease(ctx, entry.lease_id);
}

/**
 * Rewrite a child's entry with no parent (compare-and-set; gone is fine). An
 * entry that names another parent (a stale link's) is left as it is.
 */
async function orphanChild(ctx: RevokeContext, hash: string, parent: string): Promise<void> {
  for (let i = 0; i < CAS_RETRIES; i++) {
    const found = await ctx.entries.read(hash, true);
    if (!found || found.entry.parent !== parent) return;
    const next = utf8(JSON.stringify({ ...found.entry, parent: '' }));
    const done = await ctx.storage.compareAndSet(K.id(hash), found.raw, next);
    ctx.entries.forget(hash);
    if (done) return;
  }
  throw new TransitError('conflict', 'a child token kept changing while its parent was revoked');
}

/**
 * Bind the lease manager (if any) to the store's tokens: `tokens.key` is a
 * token's salted hash, `tokens.exists` whether it is live (read from storage).
 * @internal
 */
export function bindLeases(
  ctx: RevokeContext,
  tokens: Parameters<LeaseManager['bindTokens']>[0],
): void {
  // Leases issued with a token are indexed by its salted hash (all a revocation knows of
  // a child token), so revoking a token revokes them.
  ctx.leases?.bindTokens(tokens);
  // Revoking (or expiring) a token's lease revokes the token. Idempotent: a token
  // already gone is a no-op. A lease the token's entry no longer names (a periodic
  // token's, taken over by a new lease at the lease manager's max TTL) revokes nothing.
  const revoker = async (lease: RevokableLease): Promise<void> => {
    const accessor = (lease.data as { accessor?: unknown } | undefined)?.accessor;
    if (typeof accessor !== 'string') return;
    const stored = await ctx.storage.get(K.accessor(accessor));
    if (!stored) return;
    const hash = fromUtf8(stored);
    const found = await ctx.entries.read(hash, true);
    // A stale accessor (a failed create's) naming a hash a later token took:
    // that token is not this lease's.
    if (found && found.entry.accessor !== accessor) return;
    const own = found?.entry.lease_id;
    if (own !== undefined && own !== lease.lease_id) return;
    await revokeTree(ctx, hash, lease.lease_id);
    // Gone with its entry, unless an earlier revocation failed between the two deletes.
    await ctx.storage.delete(K.accessor(accessor));
  };
  ctx.leases?.registerRevoker(`${TOKEN_LEASE_PATH}/`, revoker);
  ctx.leases?.registerRevoker(`${TOKEN_ORPHAN_PATH}/`, revoker);
}
