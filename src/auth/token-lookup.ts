/**
 * Looking tokens up, as Vault's token store: the lookup `data` of the
 * authenticated token (`auth/token/lookup-self`), of a token by value
 * (`lookup`) or by accessor (`lookup-accessor`, without its id), counting no
 * use of it; and resolving an accessor, which names a storage key, so only
 * what the store makes (base62) is looked up.
 *
 * On a token's last use (it is revoked by then), `lookup-self` answers from
 * the entry as that use left it ({@link spent}), as Vault serves a last use.
 * @module
 */
import type { Clock } from '../clock.js';
import { fromUtf8 } from '../encoding.js';
import { invalidRequest } from '../errors.js';
import type { StorageAdapter } from '../storage/adapter.js';
import type { TokenEntries } from './token-entries.js';
import {
  denied,
  K,
  lookupOf,
  presentable,
  type StoredToken,
  type TokenContext,
  type TokenLookup,
} from './token-entry.js';
import type { TokenSalt } from './token-salt.js';

/** What lookups need of a token store. @internal */
export interface LookupContext {
  readonly storage: StorageAdapter;
  readonly entries: TokenEntries;
  readonly clock: Clock;
  readonly salt: TokenSalt;
  /**
   * The entry of `hash` if it is a live token (its own, unexpired), read from
   * storage when `fresh`: the store's own check.
   */
  liveEntry(hash: string, fresh: boolean): Promise<StoredToken | undefined>;
}

/** An accessor as the store makes them (24 base62 characters; older stores' too). */
const ACCESSOR = /^[A-Za-z0-9]{1,64}$/;

/**
 * Contexts of a token's last use (the token is revoked by then), with the
 * entry as that use left it: `num_uses` -1, as Vault's entry pending
 * revocation. `lookup-self` answers from it, as Vault serves a last use.
 * @internal
 */
export const spent = new WeakMap<TokenContext, StoredToken>();

/**
 * The lookup data of an authenticated token.
 * @throws TransitError `permission_denied` when its entry is gone.
 * @internal
 */
export async function lookupSelf(ctx: LookupContext, self: TokenContext): Promise<TokenLookup> {
  // On a token's last use, the entry as that use left it (num_uses -1, as Vault).
  const entry = spent.get(self) ?? (await ctx.entries.read(self.hash))?.entry;
  if (!entry) throw denied('permission denied');
  return lookupOf(self.token, entry, ctx.clock.now());
}

/**
 * The lookup data of a token by value (not empty).
 * @throws TransitError `permission_denied` `bad token` for an unknown or expired one.
 * @internal
 */
export async function lookupToken(ctx: LookupContext, token: string): Promise<TokenLookup> {
  const entry = presentable(token)
    ? await ctx.liveEntry(await ctx.salt.hash(token), false)
    : undefined;
  if (!entry) throw denied('bad token');
  return lookupOf(token, entry, ctx.clock.now());
}

/**
 * The lookup data of the token with `accessor`, with an empty `id`.
 * @throws TransitError `invalid_request` `invalid accessor` for a malformed or unknown one.
 * @internal
 */
export async function lookupAccessor(ctx: LookupContext, accessor: string): Promise<TokenLookup> {
  const entry = await ctx.liveEntry(await byAccessor(ctx.storage, accessor), false);
  // A stale accessor (a failed create's) may name a hash a later token took.
  if (!entry || entry.accessor !== accessor) throw invalidRequest('invalid accessor');
  return lookupOf('', entry, ctx.clock.now());
}

/**
 * The hash an accessor names.
 * @throws TransitError `invalid_request` `missing accessor` or `invalid accessor`.
 * @internal
 */
export async function byAccessor(storage: StorageAdapter, accessor: unknown): Promise<string> {
  // An accessor names a storage key: only what this store makes (base62) is looked up.
  if (accessor === undefined || accessor === null || accessor === '') {
    throw invalidRequest('missing accessor');
  }
  if (typeof accessor !== 'string' || !ACCESSOR.test(accessor)) {
    throw invalidRequest('invalid accessor');
  }
  const hash = await storage.get(K.accessor(accessor));
  if (!hash) throw invalidRequest('invalid accessor');
  return fromUtf8(hash);
}
