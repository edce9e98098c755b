/**
 * Service tokens, as Vault's token store (`auth/token/*`).
 *
 * Routes served through it: `auth/token/create` (and `create-orphan`),
 * `lookup-self`, `lookup`, `lookup-accessor`, `renew-self`, `renew`,
 * `revoke-self`, `revoke`, `revoke-accessor`, `revoke-orphan`.
 *
 * Here: the store's state and the checks that an entry read is a live token's
 * own; authentication (counting uses) is ./token-authenticate.ts, issuing
 * ./token-issue.ts, lookups ./token-lookup.ts, renewal ./token-renew.ts,
 * revocation ./token-revoke.ts, the salted hash ./token-salt.ts.
 *
 * Security shape:
 * - a token is never stored: entries are keyed by SHA-256(salt ‖ token), a
 *   random 32-byte per-store salt kept in storage (Vault's salted token IDs;
 *   a plain digest, since HMAC costs 2–4× more on every request);
 *   the looked-up entry's hash is compared again in constant time;
 * - tokens are 32 base62 characters from the platform CSPRNG (`hvs.` prefix);
 * - expiry is on the injected clock; an expired token is removed when seen;
 * - `num_uses` is decremented with compare-and-set, so concurrent uses across
 *   instances cannot overspend it;
 * - revoking a token revokes its children (Vault's revoke-tree);
 * - entries are cached only while a storage `watch` on `auth/token/id/` is
 *   live, for at most one second, and never for limited-use tokens or a
 *   compare-and-set retry (`./token-entries.ts`). So a request costs one hash
 *   and no storage read, and a revocation anywhere is enforced everywhere
 *   within the watch's delivery time;
 * - with a lease manager, each token with a TTL has a lease under
 *   `auth/token/create/` (never holding the token): revoking or expiring the
 *   lease revokes the token, and renew-self renews both.
 * @module
 */

import { defaultBackend } from '#default-backend';
import type { Clock } from '../clock.js';
import { systemClock } from '../clock.js';
import { utf8 } from '../encoding.js';
import { invalidRequest } from '../errors.js';
import type { LeaseManager } from '../leases/lease-manager.js';
import { asRequest, parseDurationSeconds } from '../request.js';
import { requireStorageAdapter, type StorageAdapter } from '../storage/adapter.js';
import { contended } from '../util/contention.js';
import { optionKeys, refuseUnknownOptions } from '../util/options.js';
import { registerTokenNow, type TokenSource } from './answer-now.js';
import { type AuthenticateContext, authenticateHash, contextOf } from './token-authenticate.js';
import { TokenEntries } from './token-entries.js';
import {
  DAY32,
  K,
  MAX_TOKEN_LENGTH,
  presentable,
  type StoredToken,
  TOKEN_STORE_OPTIONS,
  type TokenAuth,
  type TokenContext,
  type TokenCreateRequest,
  type TokenLookup,
  type TokenStoreOptions,
} from './token-entry.js';
import { type IssueContext, issueChild, issueRoot } from './token-issue.js';
import {
  byAccessor,
  type LookupContext,
  lookupAccessor,
  lookupSelf,
  lookupToken,
} from './token-lookup.js';
import { type RenewContext, renewToken } from './token-renew.js';
import { bindLeases, revokeOrphan, revokeTree } from './token-revoke.js';
import { type TokenCrypto, TokenSalt } from './token-salt.js';

/**
 * The options objects of the store's methods: a misspelt one is refused, never
 * its default in silence (`sudo: false` for a misspelt `sudo`).
 */
const ROOT_OPTIONS = /* @__PURE__ */ optionKeys<{ id?: string }>({ id: true });
const CREATE_OPTIONS = /* @__PURE__ */ optionKeys<{ sudo?: boolean; orphan?: boolean }>({
  sudo: true,
  orphan: true,
});
const SUDO_OPTIONS = /* @__PURE__ */ optionKeys<{ sudo?: boolean }>({ sudo: true });

/** {@link TokenStore}'s answer is not known without a promise. */
const LATER = Symbol('later');

/**
 * Service tokens: create, authenticate, look up, renew and revoke.
 *
 * @example
 * ```ts
 * const tokens = new TokenStore({ storage });
 * const root = await tokens.createRoot();
 * const ctx = await tokens.authenticate(root);
 * const child = await tokens.create(ctx!, { policies: ['app'], ttl: '1h' });
 * child.client_token; // 'hvs.…'
 * ```
 * @public
 */
export class TokenStore {
  readonly #storage: StorageAdapter;
  readonly #clock: Clock;
  readonly #backend: TokenCrypto;
  readonly #defaultTtl: number;
  readonly #maxTtl: number;
  /** The salt, and hex SHA-256(salt ‖ token): no promise once it is loaded (./token-salt.ts). */
  readonly #salt: TokenSalt;
  readonly #leases: LeaseManager | undefined;
  /** Token entries, cached while storage's change feed is live. */
  readonly #entries: TokenEntries;
  /** What issuing, lookups, renewal and revocation need (./token-issue.ts and others). */
  readonly #parts: IssueContext & LookupContext & RenewContext & AuthenticateContext;
  constructor(options: TokenStoreOptions) {
    const o = asRequest(options, 'options');
    refuseUnknownOptions(o, TOKEN_STORE_OPTIONS, 'TokenStore');
    requireStorageAdapter(o.storage);
    this.#storage = options.storage;
    // The HTTP adapter's promise-free path (answer-now.ts); registered here,
    // not when the module loads, so a bundle without the store stays without it.
    registerTokenNow(TokenStore.#answerNow);
    this.#clock = options.clock ?? systemClock;
    // Default: the platform's default backend (on Node, node:crypto's SHA-256 —
    // about a quarter of the cost of a JavaScript SHA-256 per request;
    // elsewhere noble's, which `Transit` already loads).
    this.#backend = options.crypto ?? defaultBackend;
    this.#defaultTtl = parseDurationSeconds(options.defaultTtl ?? DAY32, 'defaultTtl') || DAY32;
    this.#maxTtl = parseDurationSeconds(options.maxTtl ?? DAY32, 'maxTtl') || DAY32;
    // Starts loading the salt (a failed load is retried by the next use).
    this.#salt = new TokenSalt(this.#storage, this.#backend);
    this.#leases = options.leases;
    this.#entries = new TokenEntries(this.#storage, this.#clock);
    this.#parts = {
      storage: this.#storage,
      entries: this.#entries,
      leases: this.#leases,
      clock: this.#clock,
      salt: this.#salt,
      defaultTtl: this.#defaultTtl,
      maxTtl: this.#maxTtl,
      liveEntry: (hash, fresh) => this.#liveEntry(hash, fresh),
      pause: (attempt) => this.#pause(attempt),
    };
    // With a lease manager: revoking a token revokes the leases issued with it, and
    // revoking (or expiring) a token's lease revokes the token (./token-revoke.ts).
    bindLeases(this.#parts, {
      exists: (token) => this.exists(token),
      key: (token) => this.#salt.hash(token),
    });
  }

  /**
   * Stop watching storage (the store keeps working, reading storage on every
   * use). A `TransitNode` does it on seal. Idempotent.
   */
  async close(): Promise<void> {
    await this.#entries.close();
  }

  /**
   * Create a root token (policies `["root"]`, no expiry). With `id`, that value
   * becomes the token (dev mode's `--dev-root-token`); an existing one is kept.
   * @throws TransitError `invalid_request` for an unusable `id`.
   */
  async createRoot(options: { id?: string } = {}): Promise<string> {
    const o = asRequest(options, 'options');
    refuseUnknownOptions(o, ROOT_OPTIONS, 'createRoot');
    return issueRoot(this.#parts, o.id as string | undefined);
  }

  /**
   * Create the first root token of a new store (the bootstrap step of a
   * non-dev server); `undefined` when the store already has had one.
   */
  async bootstrapRoot(): Promise<string | undefined> {
    if (!(await this.#storage.compareAndSet(K.root, undefined, utf8('0')))) return undefined;
    return this.createRoot();
  }

  /**
   * Resolve a presented token; `undefined` when unknown, expired or used up.
   * Counts one use of a limited-use token.
   */
  async authenticate(token: string): Promise<TokenContext | undefined> {
    if (!presentable(token)) return undefined;
    // No promise on the cached path: the salt is loaded and the entry cached.
    const hashed = this.#salt.hash(token);
    const hash = typeof hashed === 'string' ? hashed : await hashed;
    return authenticateHash(this.#parts, token, hash);
  }

  /**
   * {@link authenticate}'s answer where it needs no promise: the salt loaded,
   * the entry cached (so of unlimited uses) and unexpired. {@link LATER}
   * where it may (a read, a revocation of an expired token).
   */
  #now(token: string): TokenContext | undefined | typeof LATER {
    if (!presentable(token)) return undefined;
    const hash = this.#salt.hash(token);
    if (typeof hash !== 'string') return LATER;
    const found = this.#entries.cached(hash);
    if (!found) return LATER;
    if (!found.own) return undefined;
    const { entry } = found;
    if (entry.expire_ms !== 0 && entry.expire_ms <= this.#clock.now()) return LATER;
    return contextOf(token, hash, entry);
  }

  /** The cached path {@link authenticateNow} takes (registered by the constructor). */
  static #answerNow(
    store: TokenSource,
    token: string,
  ): TokenContext | undefined | Promise<TokenContext | undefined> {
    if (!(#now in store) || store.authenticate !== TokenStore.prototype.authenticate) {
      return store.authenticate(token);
    }
    const now = store.#now(token);
    return now === LATER ? store.authenticate(token) : now;
  }

  /**
   * Whether `token` exists and has not expired, read from storage, without
   * counting a use (the lease manager's `tokenExists`: tidy, and the check after
   * a lease of the token is stored).
   */
  async exists(token: string): Promise<boolean> {
    if (!presentable(token)) return false;
    // From storage, not the cache: the lease manager's check after storing a lease of this
    // token must see a revocation made a moment ago by another instance (leases/by-token.ts).
    return (await this.#liveEntry(await this.#salt.hash(token), true)) !== undefined;
  }

  /**
   * Create a child token of `parent` (`POST auth/token/create`). `sudo`: the
   * caller has `sudo` on `auth/token/create` (a root token always has), which
   * lets it create orphans and hand out policies it does not hold (`root` aside).
   * `orphan`: `auth/token/create-orphan`, an orphan without sudo (its ACL decides).
   * @throws TransitError `invalid_request` (Vault's 400s) when the policies are not a
   * subset of the parent's, for an orphan or a period without root or sudo, a parent
   * with limited uses, bad TTLs, uses or fields; `permission_denied` for a parent gone.
   */
  async create(
    parent: TokenContext,
    req: TokenCreateRequest = {},
    options: { sudo?: boolean; orphan?: boolean } = {},
  ): Promise<TokenAuth> {
    refuseUnknownOptions(asRequest(options, 'options'), CREATE_OPTIONS, 'create');
    return issueChild(this.#parts, parent, req, options);
  }

  /** After a lost compare-and-set of an entry: a random, growing pause (../util/contention.ts). */
  #pause(attempt: number): Promise<void> {
    return contended(attempt, this.#backend.randomBytes(1)[0] as number);
  }

  /** The lookup data of an authenticated token (`GET auth/token/lookup-self`). */
  async lookupSelf(ctx: TokenContext): Promise<TokenLookup> {
    return lookupSelf(this.#parts, ctx);
  }

  /**
   * The lookup data of a token by value (`POST auth/token/lookup`), counting no
   * use of it. An empty `token` looks up `self`, as Vault.
   * @throws TransitError `permission_denied` `bad token` for an unknown or expired one (Vault's 403).
   */
  async lookup(self: TokenContext, token?: string): Promise<TokenLookup> {
    if (token === undefined || token === '') return this.lookupSelf(self);
    return lookupToken(this.#parts, token);
  }

  /**
   * The lookup data of the token with `accessor` (`POST auth/token/lookup-accessor`),
   * without its id (`id` is empty, as Vault).
   * @throws TransitError `invalid_request` `invalid accessor` for a malformed or unknown one.
   */
  async lookupAccessor(accessor: string): Promise<TokenLookup> {
    return lookupAccessor(this.#parts, accessor);
  }

  /**
   * Revoke the token with `accessor` and its children (`POST auth/token/revoke-accessor`):
   * what an operator does with the accessor an audit log shows.
   * @throws TransitError `invalid_request` `invalid accessor` for a malformed or unknown one.
   */
  async revokeAccessor(accessor: string): Promise<void> {
    const hash = await byAccessor(this.#storage, accessor);
    // A token being revoked counts, and so does an accessor whose entry is gone:
    // this finishes a revocation that failed half way.
    const found = await this.#entries.read(hash, true, true);
    if (found && !found.own) throw invalidRequest('invalid accessor');
    if (found && found.entry.accessor !== accessor) {
      // A stale accessor (a failed create's) naming a hash a later token took:
      // that token is not this accessor's. Only the stale index goes.
      await this.#storage.delete(K.accessor(accessor));
      throw invalidRequest('invalid accessor');
    }
    await this.#revokeTree(hash);
    if (!found) await this.#storage.delete(K.accessor(accessor));
  }

  /**
   * Revoke a token and its leases, leaving its children as orphans
   * (`POST auth/token/revoke-orphan`; Vault requires root or `sudo`, which the
   * caller passes).
   * @throws TransitError `invalid_request` without root or sudo, without `token`
   * (`missing token ID`), or for an unknown one (`token to revoke not found`, Vault's).
   */
  async revokeOrphan(token: string, options: { sudo?: boolean } = {}): Promise<void> {
    refuseUnknownOptions(asRequest(options, 'options'), SUDO_OPTIONS, 'revokeOrphan');
    if (options.sudo !== true) {
      throw invalidRequest('root or sudo privileges required to revoke and orphan');
    }
    if (typeof token !== 'string' || token === '') throw invalidRequest('missing token ID');
    const hash = presentable(token) ? await this.#salt.hash(token) : undefined;
    if (hash === undefined || !(await this.#liveEntry(hash, true))) {
      throw invalidRequest('token to revoke not found');
    }
    await revokeOrphan(this.#parts, hash);
  }

  /**
   * The entry of `hash` if it is a live token (its own, unexpired), without counting a
   * use; read from storage when `fresh` (not from the cache).
   */
  async #liveEntry(hash: string, fresh: boolean): Promise<StoredToken | undefined> {
    const found = await this.#entries.read(hash, fresh);
    if (!found?.own) return undefined;
    const { entry } = found;
    return entry.expire_ms === 0 || entry.expire_ms > this.#clock.now() ? entry : undefined;
  }

  /**
   * Extend an authenticated token's TTL (`POST auth/token/renew-self`): `increment` (or
   * the TTL last granted; at first the creation TTL) within the max TTL from creation; a periodic token's period.
   * @throws TransitError `invalid_request` when it is not renewable or past its max TTL.
   */
  async renewSelf(ctx: TokenContext, increment?: number | string): Promise<TokenAuth> {
    return this.#renew(ctx.token, ctx.hash, increment);
  }

  /**
   * Renew a token by value (`POST auth/token/renew`), as {@link TokenStore.renewSelf}; it
   * counts no use of that token.
   * @throws TransitError `invalid_request` for a missing or unknown token, or as renew-self.
   */
  async renew(token: string, increment?: number | string): Promise<TokenAuth> {
    if (typeof token !== 'string' || token === '') throw invalidRequest('missing token ID');
    if (!presentable(token)) throw invalidRequest('token not found');
    return this.#renew(token, await this.#salt.hash(token), increment);
  }

  /**
   * Renew the token with `accessor` (`POST auth/token/renew-accessor`), as
   * {@link TokenStore.renew}: what an operator does with the accessor an audit
   * log shows. The reply's `client_token` is empty, as Vault's: an accessor
   * never yields its token.
   * @throws TransitError `invalid_request` `missing accessor`, `invalid accessor`
   *   for a malformed or unknown one, or as renew-self.
   */
  async renewAccessor(accessor: string, increment?: number | string): Promise<TokenAuth> {
    const hash = await byAccessor(this.#storage, accessor);
    const found = await this.#entries.read(hash, true);
    // A stale accessor (a failed create's) may name a hash a later token took.
    if (found && found.entry.accessor !== accessor) throw invalidRequest('invalid accessor');
    return this.#renew('', hash, increment);
  }

  /** Renewal by hash, retried on a lost compare-and-set (./token-renew.ts). */
  #renew(token: string, hash: string, increment?: number | string): Promise<TokenAuth> {
    return renewToken(this.#parts, token, hash, increment);
  }

  /** Revoke the authenticated token and its children (`POST auth/token/revoke-self`). */
  async revokeSelf(ctx: TokenContext): Promise<void> {
    await this.#revokeTree(ctx.hash);
  }

  /**
   * Revoke a token by value, with its children (`POST auth/token/revoke`).
   * An unknown token is not an error.
   * @throws TransitError `invalid_request` when `token` is missing.
   */
  async revoke(token: string): Promise<void> {
    if (typeof token !== 'string' || token === '') throw invalidRequest('missing token ID');
    if (token.length > MAX_TOKEN_LENGTH) return;
    await this.#revokeTree(await this.#salt.hash(token));
  }

  /** Revoke a token and its descendants, then their leases (./token-revoke.ts). */
  #revokeTree(hash: string): Promise<void> {
    return revokeTree(this.#parts, hash);
  }
}
