/**
 * Authentication by a token's salted hash: the entry read (from the cache
 * when it is live), its expiry, and the count of a limited-use token's uses,
 * spent with a compare-and-set so concurrent uses on any instance cannot
 * overspend it. The store's `authenticate` hashes the token and calls
 * {@link authenticateHash}; its promise-free path uses {@link contextOf}.
 * @module
 */
import type { Clock } from '../clock.js';
import { utf8 } from '../encoding.js';
import { TransitError } from '../errors.js';
import { REVOKING } from './token-entries.js';
import { CAS_RETRIES, K, type StoredToken, type TokenContext } from './token-entry.js';
import { spent } from './token-lookup.js';
import { type RevokeContext, revokeTree } from './token-revoke.js';

/** What authenticating needs of a token store. @internal */
export interface AuthenticateContext extends RevokeContext {
  readonly clock: Clock;
  /** After a lost compare-and-set: a random, growing pause (../util/contention.ts). */
  readonly pause: (attempt: number) => Promise<void>;
}

/** The context of an authenticated token. @internal */
export const contextOf = (token: string, hash: string, entry: StoredToken): TokenContext => ({
  token,
  accessor: entry.accessor,
  policies: entry.policies,
  isRoot: entry.policies.includes('root'),
  hash,
});

const expired = (ctx: AuthenticateContext, entry: StoredToken): boolean =>
  entry.expire_ms !== 0 && entry.expire_ms <= ctx.clock.now();

/**
 * The context of `token`, whose salted hash is `hash`; `undefined` when it
 * is unknown, expired (then revoked, with its children) or used up. Counts
 * one use of a limited-use token; its last use is served and revokes it.
 * @throws TransitError `conflict` after {@link CAS_RETRIES} lost attempts.
 * @internal
 */
export async function authenticateHash(
  ctx: AuthenticateContext,
  token: string,
  hash: string,
): Promise<TokenContext | undefined> {
  for (let i = 0; i < CAS_RETRIES; i++) {
    const read = ctx.entries.read(hash, i > 0);
    let found = read instanceof Promise ? await read : read;
    if (found && i === 0 && expired(ctx, found.entry)) {
      // A cached copy may predate a renewal on another instance: revoke only
      // what storage says has expired.
      found = await ctx.entries.read(hash, true);
    }
    if (!found) return undefined;
    const { raw, entry } = found;
    if (!found.own) return undefined;
    if (expired(ctx, entry)) {
      await revokeTree(ctx, hash);
      return undefined;
    }
    if (entry.num_uses > 0) {
      const last = entry.num_uses === 1;
      // The last use marks the entry as being revoked (Vault's pending
      // revocation) rather than deleting it: a create of the same chosen id
      // is refused until the revocation below has removed its links.
      const next = utf8(
        JSON.stringify({ ...entry, num_uses: last ? REVOKING : entry.num_uses - 1 }),
      );
      const used = await ctx.storage.compareAndSet(K.id(hash), raw, next);
      ctx.entries.forget(hash);
      if (!used) {
        await ctx.pause(i);
        continue;
      }
      if (last) {
        await revokeTree(ctx, hash, undefined, entry);
        // The last use is served (Vault revokes after the request).
        const served = contextOf(token, hash, entry);
        spent.set(served, { ...entry, num_uses: REVOKING });
        return served;
      }
    }
    return contextOf(token, hash, entry);
  }
  throw new TransitError('conflict', 'too many concurrent uses of one token; retry');
}
