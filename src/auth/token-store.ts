/**
 * Service tokens, as Vault's token store (`auth/token/*`).
 *
 * Routes served through it: `auth/token/create` (and `create-orphan`),
 * `lookup-self`, `lookup`, `lookup-accessor`, `renew-self`, `renew`,
 * `revoke-self`, `revoke`, `revoke-accessor`, `revoke-orphan`.
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
import type { CryptoBackend } from '../crypto/backend.js';
import { digestText } from '../crypto/text.js';
import { fromUtf8, utf8 } from '../encoding.js';
import { invalidRequest, TransitError } from '../errors.js';
import type { LeaseManager } from '../leases/lease-manager.js';
import { parseDurationSeconds } from '../request.js';
import { withWarnings } from '../result-meta.js';
import type { StorageAdapter } from '../storage/adapter.js';
import { contended } from '../util/contention.js';
import { registerTokenNow, type TokenSource } from './answer-now.js';
import { capAtParent, planToken } from './token-create.js';
import { TokenEntries } from './token-entries.js';
import {
  authOf,
  B62,
  CAS_RETRIES,
  checkRootTokenId,
  DAY32,
  denied,
  K,
  lookupOf,
  MAX_TOKEN_LENGTH,
  type StoredToken,
  type TokenAuth,
  type TokenContext,
  type TokenCreateRequest,
  type TokenLookup,
  type TokenStoreOptions,
} from './token-entry.js';
import { type RevokeContext, revokeOrphan, revokeTree } from './token-revoke.js';

/** Vault's lease path of a token: leases are `auth/token/create/<id>`. */
const TOKEN_LEASE_PATH = 'auth/token/create';
/** {@link TokenStore}'s answer is not known without a promise. */
const LATER = Symbol('later');

/** An accessor as this store makes them (24 base62 characters; older stores' too). */
const ACCESSOR = /^[A-Za-z0-9]{1,64}$/;

/** A value that can be a token at all (anything else is refused without a lookup). */
const presentable = (token: unknown): token is string =>
  typeof token === 'string' && token !== '' && token.length <= MAX_TOKEN_LENGTH;

/** The context of an authenticated token. */
const contextOf = (token: string, hash: string, entry: StoredToken): TokenContext => ({
  token,
  accessor: entry.accessor,
  policies: entry.policies,
  isRoot: entry.policies.includes('root'),
  hash,
});

/**
 * Contexts of a token's last use (the token is revoked by then), with the
 * entry as that use left it: `num_uses` -1, as Vault's entry pending
 * revocation. `lookup-self` answers from it, as Vault serves a last use.
 */
const spent = new WeakMap<TokenContext, StoredToken>();

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
  readonly #backend: Pick<CryptoBackend, 'digest' | 'digestText' | 'randomBytes'>;
  readonly #defaultTtl: number;
  readonly #maxTtl: number;
  /** The salt, loading or loaded; a failed load is dropped and retried by the next use. */
  #salt: Promise<Uint8Array> | undefined;
  /** The salt once loaded (it never changes): hashing then needs no promise. */
  #saltBytes: Uint8Array | undefined;
  readonly #leases: LeaseManager | undefined;
  /** Token entries, cached while storage's change feed is live. */
  readonly #entries: TokenEntries;
  /** What revocation needs (./token-revoke.ts). */
  readonly #revoking: RevokeContext;
  constructor(options: TokenStoreOptions) {
    if (!options || typeof options.storage?.get !== 'function') {
      throw invalidRequest('TokenStore needs a storage adapter');
    }
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
    this.#salt = this.#loadSalt();
    this.#salt.catch(() => undefined);
    this.#leases = options.leases;
    this.#entries = new TokenEntries(this.#storage, this.#clock);
    this.#revoking = { storage: this.#storage, entries: this.#entries, leases: this.#leases };
    // Leases issued with a token are indexed by its salted hash (all a revocation knows of
    // a child token), so revoking a token revokes them.
    this.#leases?.bindTokens({
      exists: (token) => this.exists(token),
      key: (token) => this.#hash(token),
    });
    // Revoking (or expiring) a token's lease revokes the token. Idempotent: a token
    // already gone is a no-op.
    this.#leases?.registerRevoker(`${TOKEN_LEASE_PATH}/`, async (lease) => {
      const accessor = (lease.data as { accessor?: unknown } | undefined)?.accessor;
      if (typeof accessor !== 'string') return;
      const hash = await this.#storage.get(K.accessor(accessor));
      if (hash) await this.#revokeTree(fromUtf8(hash), lease.lease_id);
    });
  }

  /**
   * Stop watching storage (the store keeps working, reading storage on every
   * use). A `TransitNode` does it on seal. Idempotent.
   */
  async close(): Promise<void> {
    await this.#entries.close();
  }

  /** The salt; a failed load is forgotten, so the next use reads storage again. */
  async #saltValue(): Promise<Uint8Array> {
    const loading = this.#salt ?? this.#loadSalt();
    this.#salt = loading;
    try {
      const salt = await loading;
      this.#saltBytes = salt;
      return salt;
    } catch (e) {
      if (this.#salt === loading) this.#salt = undefined;
      throw e;
    }
  }

  async #loadSalt(): Promise<Uint8Array> {
    for (let i = 0; i < CAS_RETRIES; i++) {
      const stored = await this.#storage.get(K.salt);
      if (stored) return stored;
      const fresh = this.#backend.randomBytes(32);
      if (await this.#storage.compareAndSet(K.salt, undefined, fresh)) return fresh;
    }
    throw new TransitError('conflict', 'could not initialise the token salt');
  }

  /** Hex SHA-256(salt ‖ token); no promise once the salt is loaded. */
  #hash(token: string): string | Promise<string> {
    const salt = this.#saltBytes;
    if (salt === undefined) return this.#saltValue().then(() => this.#hash(token));
    return digestText(this.#backend, 'sha256', [salt, token], 'hex');
  }

  #random(n: number): string {
    let out = '';
    while (out.length < n) {
      for (const b of this.#backend.randomBytes(n * 2)) {
        if (b < 248 && out.length < n) out += B62[b % 62];
      }
    }
    return out;
  }

  async #store(entry: StoredToken): Promise<void> {
    const ok = await this.#storage.compareAndSet(
      K.id(entry.hash),
      undefined,
      utf8(JSON.stringify(entry)),
    );
    this.#entries.forget(entry.hash);
    if (!ok) throw new TransitError('conflict', 'token already exists');
    await this.#storage.put(K.accessor(entry.accessor), utf8(entry.hash));
    if (entry.parent !== '') await this.#storage.put(K.child(entry.parent, entry.hash), utf8(''));
  }

  /**
   * Create a root token (policies `["root"]`, no expiry). With `id`, that value
   * becomes the token (dev mode's `--dev-root-token`); an existing one is kept.
   * @throws TransitError `invalid_request` for an unusable `id`.
   */
  async createRoot(options: { id?: string } = {}): Promise<string> {
    const token = options.id ?? `hvs.${this.#random(32)}`;
    checkRootTokenId(token);
    const hash = await this.#hash(token);
    if (await this.#entries.read(hash)) return token;
    const now = this.#clock.now();
    await this.#store({
      v: 1,
      hash,
      accessor: this.#random(24),
      policies: ['root'],
      parent: '',
      path: 'auth/token/root',
      display_name: 'root',
      meta: null,
      creation_time: Math.floor(now / 1000),
      creation_ttl: 0,
      expire_ms: 0,
      explicit_max_ttl: 0,
      num_uses: 0,
      renewable: false,
    });
    await this.#storage.put(K.root, utf8('1'));
    return token;
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
    const hashed = this.#hash(token);
    const hash = typeof hashed === 'string' ? hashed : await hashed;
    for (let i = 0; i < CAS_RETRIES; i++) {
      const read = this.#entries.read(hash, i > 0);
      const found = read instanceof Promise ? await read : read;
      if (!found) return undefined;
      const { raw, entry } = found;
      if (!found.own) return undefined;
      if (entry.expire_ms !== 0 && entry.expire_ms <= this.#clock.now()) {
        await this.#revokeTree(hash);
        return undefined;
      }
      if (entry.num_uses > 0) {
        const last = entry.num_uses === 1;
        const next = last
          ? undefined
          : utf8(JSON.stringify({ ...entry, num_uses: entry.num_uses - 1 }));
        const used = await this.#storage.compareAndSet(K.id(hash), raw, next);
        this.#entries.forget(hash);
        if (!used) {
          await this.#pause(i);
          continue;
        }
        if (last) {
          await this.#revokeTree(hash);
          // The last use is served (Vault revokes after the request).
          const ctx = contextOf(token, hash, entry);
          spent.set(ctx, { ...entry, num_uses: -1 });
          return ctx;
        }
      }
      return contextOf(token, hash, entry);
    }
    throw new TransitError('conflict', 'too many concurrent uses of one token; retry');
  }

  /**
   * {@link authenticate}'s answer where it needs no promise: the salt loaded,
   * the entry cached (so of unlimited uses) and unexpired. {@link LATER}
   * where it may (a read, a revocation of an expired token).
   */
  #now(token: string): TokenContext | undefined | typeof LATER {
    if (!presentable(token)) return undefined;
    const hash = this.#hash(token);
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
    return (await this.#liveEntry(await this.#hash(token), true)) !== undefined;
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
    // A fresh read: another instance may have revoked the parent a moment ago.
    const parentEntry = await this.#liveEntry(parent.hash, true);
    if (!parentEntry) throw denied('permission denied');
    const plan = planToken(
      parent,
      parentEntry,
      req,
      { defaultTtl: this.#defaultTtl, maxTtl: this.#maxTtl },
      options.sudo === true,
      options.orphan === true,
    );
    const { renewable } = plan;
    const now = this.#clock.now();
    const ttl = this.#leases ? plan.ttl : capAtParent(plan, parentEntry, now);
    const token = `hvs.${this.#random(32)}`;
    const accessor = this.#random(24);
    const lease =
      this.#leases && ttl > 0
        ? await this.#leases.issue({
            path: TOKEN_LEASE_PATH,
            ttl,
            max_ttl: plan.cap,
            renewable,
            auth: true,
            data: { accessor },
          })
        : undefined;
    const entry: StoredToken = {
      v: 1,
      hash: await this.#hash(token),
      accessor,
      policies: plan.policies,
      parent: plan.orphan ? '' : parent.hash,
      path: TOKEN_LEASE_PATH,
      display_name: plan.displayName,
      meta: plan.meta,
      creation_time: Math.floor(now / 1000),
      creation_ttl: ttl,
      expire_ms: ttl === 0 ? 0 : now + ttl * 1000,
      explicit_max_ttl: plan.explicitMax,
      num_uses: plan.numUses,
      renewable,
      ...(lease ? { lease_id: lease.lease_id } : {}),
    };
    await this.#store(entry);
    if (!plan.orphan && !(await this.#liveEntry(parent.hash, true))) {
      // The parent was revoked while this child was being stored: its revocation may have
      // listed the parent's children before the child's link existed, so the child goes
      // here (./token-revoke.ts: a revocation lists children again after the parent is gone).
      await this.#revokeTree(entry.hash);
      throw denied('permission denied');
    }
    return withWarnings(authOf(token, entry, now), plan.warnings);
  }

  /** After a lost compare-and-set of an entry: a random, growing pause (../util/contention.ts). */
  #pause(attempt: number): Promise<void> {
    return contended(attempt, this.#backend.randomBytes(1)[0] as number);
  }

  /** The lookup data of an authenticated token (`GET auth/token/lookup-self`). */
  async lookupSelf(ctx: TokenContext): Promise<TokenLookup> {
    // On a token's last use, the entry as that use left it (num_uses -1, as Vault).
    const entry = spent.get(ctx) ?? (await this.#entries.read(ctx.hash))?.entry;
    if (!entry) throw denied('permission denied');
    return lookupOf(ctx.token, entry, this.#clock.now());
  }

  /**
   * The lookup data of a token by value (`POST auth/token/lookup`), counting no
   * use of it. An empty `token` looks up `self`, as Vault.
   * @throws TransitError `permission_denied` `bad token` for an unknown or expired one (Vault's 403).
   */
  async lookup(self: TokenContext, token?: string): Promise<TokenLookup> {
    if (token === undefined || token === '') return this.lookupSelf(self);
    const entry = presentable(token)
      ? await this.#liveEntry(await this.#hash(token), false)
      : undefined;
    if (!entry) throw denied('bad token');
    return lookupOf(token, entry, this.#clock.now());
  }

  /**
   * The lookup data of the token with `accessor` (`POST auth/token/lookup-accessor`),
   * without its id (`id` is empty, as Vault).
   * @throws TransitError `invalid_request` `invalid accessor` for a malformed or unknown one.
   */
  async lookupAccessor(accessor: string): Promise<TokenLookup> {
    const entry = await this.#liveEntry(await this.#byAccessor(accessor), false);
    if (!entry) throw invalidRequest('invalid accessor');
    return lookupOf('', entry, this.#clock.now());
  }

  /**
   * Revoke the token with `accessor` and its children (`POST auth/token/revoke-accessor`):
   * what an operator does with the accessor an audit log shows.
   * @throws TransitError `invalid_request` `invalid accessor` for a malformed or unknown one.
   */
  async revokeAccessor(accessor: string): Promise<void> {
    const hash = await this.#byAccessor(accessor);
    if (!(await this.#entries.read(hash, true))?.own) throw invalidRequest('invalid accessor');
    await this.#revokeTree(hash);
  }

  /**
   * Revoke a token and its leases, leaving its children as orphans
   * (`POST auth/token/revoke-orphan`; Vault requires root or `sudo`, which the
   * caller passes).
   * @throws TransitError `invalid_request` without root or sudo, without `token`
   * (`missing token ID`), or for an unknown one (`token to revoke not found`, Vault's).
   */
  async revokeOrphan(token: string, options: { sudo?: boolean } = {}): Promise<void> {
    if (options.sudo !== true) {
      throw invalidRequest('root or sudo privileges required to revoke and orphan');
    }
    if (typeof token !== 'string' || token === '') throw invalidRequest('missing token ID');
    const hash = presentable(token) ? await this.#hash(token) : undefined;
    if (hash === undefined || !(await this.#liveEntry(hash, true))) {
      throw invalidRequest('token to revoke not found');
    }
    await revokeOrphan(this.#revoking, hash);
  }

  /** The hash an accessor names. @throws TransitError `invalid_request` `invalid accessor`. */
  async #byAccessor(accessor: unknown): Promise<string> {
    // An accessor names a storage key: only what this store makes (base62) is looked up.
    if (accessor === undefined || accessor === null || accessor === '') {
      throw invalidRequest('missing accessor');
    }
    if (typeof accessor !== 'string' || !ACCESSOR.test(accessor)) {
      throw invalidRequest('invalid accessor');
    }
    const hash = await this.#storage.get(K.accessor(accessor));
    if (!hash) throw invalidRequest('invalid accessor');
    return fromUtf8(hash);
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
   * Extend an authenticated token's TTL (`POST auth/token/renew-self`); the new
   * TTL is `increment` (or the creation TTL), capped by the max TTL from creation.
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
    return this.#renew(token, await this.#hash(token), increment);
  }

  async #renew(token: string, hash: string, increment?: number | string): Promise<TokenAuth> {
    const inc = parseDurationSeconds(increment, 'increment');
    for (let i = 0; i < CAS_RETRIES; i++) {
      // Read storage: the compare-and-set below needs the stored bytes.
      const found = await this.#entries.read(hash, true);
      // Gone since it authenticated this request (its last use, or revoked
      // meanwhile): Vault's renew finds no token to renew.
      if (!found?.own) throw invalidRequest('token not found');
      const { raw, entry } = found;
      const now = this.#clock.now();
      if (entry.expire_ms !== 0 && entry.expire_ms <= now) throw invalidRequest('token not found');
      if (entry.expire_ms === 0) return authOf(token, entry, now);
      if (!entry.renewable) throw invalidRequest('lease is not renewable');
      const maxTtl = Math.min(
        this.#maxTtl,
        entry.explicit_max_ttl > 0 ? entry.explicit_max_ttl : Number.POSITIVE_INFINITY,
      );
      const maxEnd = (entry.creation_time + maxTtl) * 1000;
      if (maxEnd <= now) throw invalidRequest('past the max TTL, cannot renew');
      const want = inc > 0 ? inc : entry.creation_ttl;
      let expire = Math.min(now + want * 1000, maxEnd);
      if (!this.#leases && entry.parent !== '') {
        // No lease manager expires a parent's tree: a child renews up to its parent's expiry.
        const parent = (await this.#entries.read(entry.parent))?.entry;
        if (!parent || (parent.expire_ms !== 0 && parent.expire_ms <= now)) {
          throw denied('permission denied');
        }
        if (parent.expire_ms !== 0) expire = Math.min(expire, parent.expire_ms);
      }
      const warnings =
        expire < now + want * 1000
          ? [
              `TTL of "${want}s" exceeded the effective max_ttl of "${Math.floor((maxEnd - now) / 1000)}s"; TTL value is capped accordingly`,
            ]
          : [];
      if (this.#leases && entry.lease_id !== undefined) {
        // The lease follows the token; a revoked or expired lease refuses renewal.
        await this.#leases.renew(entry.lease_id, Math.ceil((expire - now) / 1000), { auth: true });
      }
      const next = { ...entry, expire_ms: expire };
      const renewed = await this.#storage.compareAndSet(
        K.id(hash),
        raw,
        utf8(JSON.stringify(next)),
      );
      this.#entries.forget(hash);
      if (renewed) {
        return withWarnings(authOf(token, next, now), warnings);
      }
      await this.#pause(i);
    }
    throw new TransitError('conflict', 'too many concurrent renewals of one token; retry');
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
    await this.#revokeTree(await this.#hash(token));
  }

  /** Revoke a token and its descendants, then their leases (./token-revoke.ts). */
  #revokeTree(hash: string, fromLease?: string): Promise<void> {
    return revokeTree(this.#revoking, hash, fromLease);
  }
}
