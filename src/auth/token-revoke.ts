/**
 * Revoking tokens, as Vault's token store: a whole tree (`revoke`,
 * `revoke-self`, `revoke-accessor`, an expiry, a spent token), or one token
 * whose children become orphans (`revoke-orphan`).
 *
 * Order, and why: the token entries go first (so nothing authenticates with
 * them while the rest runs), then each token's own lease, then the leases
 * issued with each token (queued, as Vault's `RevokeByToken`). The leases
 * issued with a token are looked up even when the token was already gone, so
 * a revocation retried after a failure finishes them.
 *
 * With a lease manager, revocation goes both ways ({@link bindLeases}):
 * revoking a token revokes the leases issued with it, and revoking (or
 * expiring) a token's lease (the one its entry names) revokes the token.
 * @module
 */
import { fromUtf8, utf8 } from '../encoding.js';
import { TransitError } from '../errors.js';
import type { LeaseManager } from '../leases/lease-manager.js';
import type { StorageAdapter } from '../storage/adapter.js';
import type { TokenEntries } from './token-entries.js';
import { CAS_RETRIES, K, type StoredToken, TOKEN_LEASE_PATH } from './token-entry.js';

/** What revocation needs of a token store. @internal */
export interface RevokeContext {
  readonly storage: StorageAdapter;
  readonly entries: TokenEntries;
  readonly leases: LeaseManager | undefined;
}

/** Delete the entry of `hash` and its accessor and parent links; its lease id, if any. */
async function dropEntry(ctx: RevokeContext, hash: string, entry: StoredToken): Promise<void> {
  await ctx.storage.delete(K.accessor(entry.accessor));
  if (entry.parent !== '') await ctx.storage.delete(K.child(entry.parent, hash));
  try {
    await ctx.storage.delete(K.id(hash));
  } finally {
    ctx.entries.forget(hash);
  }
}

/** Revoke the leases of the revoked tokens: their own, then those issued with them. */
async function revokeLeases(
  ctx: RevokeContext,
  own: readonly string[],
  hashes: readonly string[],
): Promise<void> {
  // The tokens are gone first, so these revokers find nothing left to do.
  for (const id of own) await ctx.leases?.revoke(id).catch(() => undefined);
  // Every token is tried; the first failure is reported (a retry, or tidy, finishes the rest).
  let failure: unknown;
  for (const h of hashes) {
    await ctx.leases?.revokeByTokenKey(h).catch((e: unknown) => {
      failure ??= e;
    });
  }
  if (failure !== undefined) throw failure;
}

/**
 * Delete a token and its descendants, then their leases. `fromLease` is the
 * lease whose revoker called this (not revoked again from inside its own revocation).
 * @internal
 */
export async function revokeTree(
  ctx: RevokeContext,
  hash: string,
  fromLease?: string,
): Promise<void> {
  const stack = [hash];
  const leases: string[] = [];
  /** Every token met (each revoked once): the stack only ever gets a hash not seen before. */
  const seen = new Set(stack);
  const push = (child: string): void => {
    if (seen.has(child)) return;
    seen.add(child);
    stack.push(child);
  };
  while (stack.length > 0) {
    const h = stack.pop() as string;
    for (const child of await ctx.storage.list(K.children(h))) push(child);
    const found = await ctx.entries.read(h, true);
    if (found) {
      await dropEntry(ctx, h, found.entry);
      const lease = found.entry.lease_id;
      if (lease !== undefined && lease !== fromLease) leases.push(lease);
    }
    // Listed again now the entry is gone: a child stored meanwhile (its creator found the
    // parent before it went) is revoked too; one stored later sees the parent gone and
    // revokes itself (token-issue.ts `issueChild`).
    for (const child of await ctx.storage.list(K.children(h))) {
      push(child);
      await ctx.storage.delete(K.child(h, child));
    }
  }
  await revokeLeases(ctx, leases, [...seen]);
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
      await orphanChild(ctx, child);
      await ctx.storage.delete(K.child(hash, child));
    }
  };
  await orphanChildren();
  const found = await ctx.entries.read(hash, true);
  const own: string[] = [];
  if (found) {
    await dropEntry(ctx, hash, found.entry);
    if (found.entry.lease_id !== undefined) own.push(found.entry.lease_id);
  }
  // Again now the token is gone: a child stored meanwhile is orphaned too (one stored
  // later sees its parent gone and revokes itself, token-issue.ts `issueChild`).
  await orphanChildren();
  await revokeLeases(ctx, own, [hash]);
}

/** Rewrite a child's entry with no parent (compare-and-set; gone is fine). */
async function orphanChild(ctx: RevokeContext, hash: string): Promise<void> {
  for (let i = 0; i < CAS_RETRIES; i++) {
    const found = await ctx.entries.read(hash, true);
    if (!found || found.entry.parent === '') return;
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
  ctx.leases?.registerRevoker(`${TOKEN_LEASE_PATH}/`, async (lease) => {
    const accessor = (lease.data as { accessor?: unknown } | undefined)?.accessor;
    if (typeof accessor !== 'string') return;
    const stored = await ctx.storage.get(K.accessor(accessor));
    if (!stored) return;
    const hash = fromUtf8(stored);
    const own = (await ctx.entries.read(hash, true))?.entry.lease_id;
    if (own !== undefined && own !== lease.lease_id) return;
    await revokeTree(ctx, hash, lease.lease_id);
  });
}
