/**
 * Without a lease manager nothing expires a parent's tree, so a child's expiry
 * must never pass its parent's: it is capped when the child is made
 * (token-create.ts `capAtParent`), and here when the parent's renewal moves
 * the parent's expiry before it (a renewal by a smaller increment shortens a
 * token, as in Vault). Every descendant whose expiry is later is brought down
 * to the parent's with a compare-and-set, so it expires with the parent on
 * every instance and every path (authenticate, lookup, renew) alike.
 *
 * A child being made while its parent shortens is covered from both sides: the
 * renewal caps the children it lists after its own write, and a new child reads
 * its parent again after its link is stored and caps itself
 * (token-issue.ts).
 * @module
 */
import { utf8 } from '../encoding.js';
import { TransitError } from '../errors.js';
import type { StorageAdapter } from '../storage/adapter.js';
import type { TokenEntries } from './token-entries.js';
import { CAS_RETRIES, K, type StoredToken } from './token-entry.js';

/** What capping needs of a token store. @internal */
export interface CapContext {
  readonly storage: StorageAdapter;
  readonly entries: TokenEntries;
  /** After a lost compare-and-set: a random, growing pause. */
  readonly pause: (attempt: number) => Promise<void>;
}

/**
 * Bring the expiry of every descendant of `hash` down to `cap` (epoch ms)
 * where it is later. A child already within `cap` needs nothing below it:
 * its own children never pass its expiry.
 * @throws TransitError as storage fails; `conflict` after {@link CAS_RETRIES} lost attempts on one entry.
 * @internal
 */
export async function capTree(ctx: CapContext, hash: string, cap: number): Promise<void> {
  for (const child of await ctx.storage.list(K.children(hash))) {
    if (await capEntry(ctx, child, cap, hash)) await capTree(ctx, child, cap);
  }
}

/**
 * Bring the expiry of the token with `hash` down to `cap` (epoch ms); the
 * capped entry, or `undefined` when it was within `cap`, is gone, or (with
 * `parent`) names another parent.
 * @throws TransitError as {@link capTree}.
 * @internal
 */
export async function capEntry(
  ctx: CapContext,
  hash: string,
  cap: number,
  parent?: string,
): Promise<StoredToken | undefined> {
  for (let i = 0; i < CAS_RETRIES; i++) {
    const found = await ctx.entries.read(hash, true);
    if (!found?.own) return undefined; // gone, or being revoked
    const { raw, entry } = found;
    // Listed under `parent` by a stale link, but another parent's: not capped.
    if (parent !== undefined && entry.parent !== parent) return undefined;
    if (entry.expire_ms !== 0 && entry.expire_ms <= cap) return undefined;
    const next: StoredToken = { ...entry, expire_ms: cap };
    const ok = await ctx.storage.compareAndSet(K.id(hash), raw, utf8(JSON.stringify(next)));
    ctx.entries.forget(hash);
    if (ok) return next;
    await ctx.pause(i);
  }
  throw new TransitError('conflict', 'too many concurrent changes of one token; retry');
}
