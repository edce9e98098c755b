/**
 * Token shapes: the stored entry (which never holds the token itself, only
 * its salted hash), and the two views Vault clients read — the `auth` block of
 * a create/renew response and the `data` of a lookup (hvac's field names).
 * @module
 */
import type { Clock } from '../clock.js';
import { rfc3339 } from '../clock.js';
import type { CryptoBackend } from '../crypto/backend.js';
import { fromUtf8 } from '../encoding.js';
import { internal, invalidRequest, TransitError } from '../errors.js';
import type { LeaseManager } from '../leases/lease-manager.js';
import type { IssueRequest } from '../leases/types.js';
import type { StorageAdapter } from '../storage/adapter.js';
import { constantTimeEqual } from '../util/constant-time.js';
import { optionKeys } from '../util/options.js';

/** Where token entries live in storage. @internal */
export const K = {
  salt: 'auth/token/salt',
  root: 'auth/token/bootstrapped',
  id: (hash: string) => `auth/token/id/${hash}`,
  accessor: (a: string) => `auth/token/accessor/${a}`,
  children: (hash: string) => `auth/token/parent/${hash}/`,
  child: (parent: string, hash: string) => `auth/token/parent/${parent}/${hash}`,
};
/** Vault's lease path of a token: leases are `auth/token/create/<id>`. @internal */
export const TOKEN_LEASE_PATH = 'auth/token/create';
/**
 * The path of a token made through `auth/token/create-orphan`, its entry's
 * and its lease's (Vault's `handleCreateCommon` records the route's path).
 * @internal
 */
export const TOKEN_ORPHAN_PATH = 'auth/token/create-orphan';
/**
 * The issue request of a token's own lease: at the path the token was made
 * on ({@link TOKEN_LEASE_PATH} or {@link TOKEN_ORPHAN_PATH}), an auth lease
 * whose data names the token by its accessor (so revoking the lease revokes
 * the token, token-revoke.ts `bindLeases`).
 * @param maxTtl - the lease's own max TTL in seconds (0: the lease manager's).
 * @internal
 */
export const tokenLease = (
  accessor: string,
  ttl: number,
  maxTtl: number,
  renewable: boolean,
  path: string,
): IssueRequest => ({
  path,
  ttl,
  max_ttl: maxTtl,
  renewable,
  auth: true,
  data: { accessor },
});
/** The lease path of a token's entry (the path it was made on). @internal */
export const leasePathOf = (entry: { readonly path: string }): string =>
  entry.path === TOKEN_ORPHAN_PATH ? TOKEN_ORPHAN_PATH : TOKEN_LEASE_PATH;
/** What a chosen token id may be: 1–512 printable ASCII characters. */
const PRINTABLE_ID = /^[\x21-\x7e]{1,512}$/;

/**
 * A root token id a caller chose (`initialRootToken`, `createRoot({ id })`):
 * 1–512 printable ASCII characters.
 * @throws TransitError `invalid_request` otherwise.
 * @internal
 */
export function checkRootTokenId(token: unknown): asserts token is string {
  if (typeof token !== 'string' || !PRINTABLE_ID.test(token)) {
    throw invalidRequest('a root token id must be 1-512 printable ASCII characters');
  }
}

/**
 * A token id a caller chose on `auth/token/create` (Vault's `id`): Vault's
 * refusals in its order (`hvs.` and `s.` prefixes, then any `.`), then the
 * printable-ASCII rule of {@link checkRootTokenId}.
 * @throws TransitError `invalid_request` otherwise.
 * @internal
 */
export function checkCustomTokenId(id: string): void {
  if (id.startsWith('hvs.')) throw invalidRequest("custom token ID cannot have the 'hvs.' prefix");
  if (id.startsWith('s.')) throw invalidRequest("custom token ID cannot have the 's.' prefix");
  if (id.includes('.')) throw invalidRequest("custom token ID cannot have a '.' in the value");
  if (!PRINTABLE_ID.test(id)) {
    throw invalidRequest('a token id must be 1-512 printable ASCII characters');
  }
}

/** @internal */
export const B62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** Vault's default and maximum token TTL: 32 days. @internal */
export const DAY32 = 32 * 24 * 3600;
/** @internal */
export const MAX_TOKEN_LENGTH = 512;
/** A value that can be a token at all (anything else is refused without a lookup). @internal */
export const presentable = (token: unknown): token is string =>
  typeof token === 'string' && token !== '' && token.length <= MAX_TOKEN_LENGTH;
/** @internal */
export const CAS_RETRIES = 32;

/**
 * Options of {@link TokenStore}.
 * @public
 */
export interface TokenStoreOptions {
  /** Where tokens live (entries under `auth/token/`). */
  storage: StorageAdapter;
  /** Time source for TTLs. Default: the wall clock. */
  clock?: Clock;
  /** Crypto backend for hashing and randomness. Default: the platform's default backend (node:crypto on Node, noble elsewhere). */
  crypto?: CryptoBackend;
  /** TTL of a token created without one. Default `768h` (Vault's 32 days). */
  defaultTtl?: number | string;
  /** Longest TTL from a token's creation, renewals included. Default `768h`. */
  maxTtl?: number | string;
  /**
   * Give every token with a TTL a lease under `auth/token/create/` (Vault's
   * token leases): revoking the lease revokes the token, renew-self renews it.
   */
  leases?: LeaseManager;
}

/** Every option of {@link TokenStoreOptions}. @internal */
export const TOKEN_STORE_OPTIONS = /* @__PURE__ */ optionKeys<TokenStoreOptions>({
  storage: true,
  clock: true,
  crypto: true,
  defaultTtl: true,
  maxTtl: true,
  leases: true,
});

/**
 * Options of {@link TokenStore.create} (the body of `auth/token/create`).
 * @public
 */
export interface TokenCreateRequest {
  /**
   * Policy names (a list or a comma-separated string). Absent or `[]`: the
   * parent's. As Vault, a list whose names are all empty (`[""]`, `""`)
   * names no policy: the token gets `default` alone (unless
   * `no_default_policy`), never the parent's.
   */
  policies?: string[] | string;
  /** TTL (seconds or a duration string). Default: the store's `defaultTtl`. */
  ttl?: number | string;
  /** A hard cap on the lifetime, renewals included. */
  explicit_max_ttl?: number | string;
  /** Whether renew-self may extend it. Default true. */
  renewable?: boolean;
  /** Uses before the token is revoked; 0 = unlimited. */
  num_uses?: number;
  display_name?: string;
  meta?: Record<string, string>;
  /** Do not attach the `default` policy. */
  no_default_policy?: boolean;
  /** Create an orphan (root or `sudo` only). */
  no_parent?: boolean;
  /**
   * Vault's older name of `ttl` (read when `ttl` is absent), parsed as Vault
   * parses it, with Go's `time.ParseDuration`: a unit is required (`"90s"`,
   * `"1.5h"`; `3600` and `"1d"` are refused).
   */
  lease?: number | string;
  /**
   * Make a periodic token (root or `sudo` only, as Vault): its TTL is the period
   * (seconds or a duration string), at creation and at every renewal, whatever
   * `ttl` or `increment` asks; the store's max TTL caps each period but never
   * ends the token, `explicit_max_ttl` does.
   */
  period?: number | string;
  /** `service` (or empty); `batch` is refused, anything else is Vault's `invalid 'token_type' value`. */
  type?: string;
  /**
   * The token itself instead of a random one (root or `sudo` only, as Vault's
   * `id`): 1–512 printable ASCII characters, no `.` (so neither `hvs.` nor
   * `s.` in front); refused when a token with this id exists.
   */
  id?: string;
  /**
   * Vault's `entity_alias`, which Vault takes only with a token role
   * (`auth/token/create/:role`). transitkit has no token roles, so a
   * non-empty value is always refused with Vault's text for a request
   * without one: `'entity_alias' is only allowed in combination with token role`.
   */
  entity_alias?: string;
}

/** @internal */
export const denied = (message: string) => new TransitError('permission_denied', message);

/** Constant-time comparison of two hashes in hex (the length is not secret). @internal */
export function sameHash(a: unknown, b: string): boolean {
  if (typeof a !== 'string' || a.length !== b.length) return false;
  return constantTimeEqual(HEX_BYTES.encode(a), HEX_BYTES.encode(b));
}

const HEX_BYTES = /* @__PURE__ */ new TextEncoder();

/** The `path` of the initial root token (`sys/init`), which has no lease. @internal */
export const ROOT_PATH = 'auth/token/root';

/** The stored form of a token. @internal */
export interface StoredToken {
  v: 1;
  /** Hex SHA-256(salt ‖ token): the storage key and the only trace of the token. */
  hash: string;
  accessor: string;
  policies: string[];
  /** Hash of the parent token, or `''` for an orphan. */
  parent: string;
  path: string;
  display_name: string;
  meta: Record<string, string> | null;
  /** Unix seconds. */
  creation_time: number;
  /** Seconds; 0 = no expiry. */
  creation_ttl: number;
  /** Epoch ms; 0 = never expires. */
  expire_ms: number;
  /** Seconds; 0 = none. */
  explicit_max_ttl: number;
  /** Remaining uses; 0 = unlimited. */
  num_uses: number;
  renewable: boolean;
  /** The token's lease (`auth/token/create/…`), when the store has a lease manager. */
  lease_id?: string;
  /**
   * Seconds: the period of a periodic token (each renewal's TTL). Absent for
   * any other token, and in entries written before periods.
   */
  period?: number;
  /**
   * Seconds: the TTL its last renewal granted, which a renewal without an
   * increment asks for again (Vault keeps it as the lease's `Auth.TTL`).
   * Absent until a renewal, and in entries written before this.
   */
  renewal_ttl?: number;
  /** Epoch ms of its last renewal; absent until one. */
  last_renewal_ms?: number;
}

/** A stored entry, checked enough that a damaged one can never pass for a token. @internal */
export function parseEntry(raw: Uint8Array): StoredToken {
  let entry: Partial<StoredToken> | undefined;
  try {
    entry = JSON.parse(fromUtf8(raw)) as Partial<StoredToken>;
  } catch {
    entry = undefined;
  }
  if (
    typeof entry !== 'object' ||
    entry === null ||
    typeof entry.hash !== 'string' ||
    !Array.isArray(entry.policies) ||
    !entry.policies.every((p) => typeof p === 'string') ||
    typeof entry.expire_ms !== 'number' ||
    typeof entry.num_uses !== 'number' ||
    (entry.period !== undefined && typeof entry.period !== 'number') ||
    (entry.renewal_ttl !== undefined && typeof entry.renewal_ttl !== 'number') ||
    (entry.last_renewal_ms !== undefined && typeof entry.last_renewal_ms !== 'number')
  ) {
    throw internal('token store: a token entry is damaged');
  }
  return entry as StoredToken;
}

/**
 * The `auth` block of a token create or renew response (Vault's shape).
 * @public
 */
export interface TokenAuth {
  client_token: string;
  accessor: string;
  policies: string[];
  token_policies: string[];
  metadata: Record<string, string> | null;
  lease_duration: number;
  renewable: boolean;
  entity_id: string;
  token_type: 'service';
  orphan: boolean;
  num_uses: number;
}

/**
 * The `data` of `auth/token/lookup-self` (Vault's shape).
 * @public
 */
export interface TokenLookup {
  accessor: string;
  creation_time: number;
  creation_ttl: number;
  display_name: string;
  entity_id: string;
  expire_time: string | null;
  explicit_max_ttl: number;
  id: string;
  issue_time: string;
  /** When it was last renewed (RFC 3339); absent until a renewal (as Vault). */
  last_renewal?: string;
  /** When it was last renewed (Unix seconds); absent until a renewal (as Vault). */
  last_renewal_time?: number;
  meta: Record<string, string> | null;
  num_uses: number;
  orphan: boolean;
  path: string;
  /** A periodic token's period in seconds; absent for any other token (as Vault). */
  period?: number;
  policies: string[];
  renewable: boolean;
  ttl: number;
  type: 'service';
}

/**
 * A token that authenticated a request: what the ACL check and the token
 * routes need. Holds the token only for the self-service routes.
 * @public
 */
export interface TokenContext {
  readonly token: string;
  readonly accessor: string;
  readonly policies: readonly string[];
  readonly isRoot: boolean;
  /** @internal */
  readonly hash: string;
}

/** Remaining whole seconds until `expire_ms` (0 when it never expires). @internal */
export const remainingSeconds = (t: StoredToken, now: number): number =>
  t.expire_ms === 0 ? 0 : Math.max(0, Math.floor((t.expire_ms - now) / 1000));

/** The `auth` block for a token. @internal */
export function authOf(token: string, t: StoredToken, now: number): TokenAuth {
  return {
    client_token: token,
    accessor: t.accessor,
    policies: [...t.policies],
    token_policies: [...t.policies],
    metadata: t.meta,
    lease_duration: remainingSeconds(t, now),
    renewable: t.renewable && t.expire_ms !== 0,
    entity_id: '',
    token_type: 'service',
    orphan: t.parent === '',
    num_uses: t.num_uses,
  };
}

/** The lookup `data` for a token. @internal */
export function lookupOf(token: string, t: StoredToken, now: number): TokenLookup {
  return {
    accessor: t.accessor,
    creation_time: t.creation_time,
    creation_ttl: t.creation_ttl,
    display_name: t.display_name,
    entity_id: '',
    expire_time: t.expire_ms === 0 ? null : rfc3339(t.expire_ms),
    explicit_max_ttl: t.explicit_max_ttl,
    id: token,
    issue_time: rfc3339(t.creation_time * 1000),
    ...(t.last_renewal_ms === undefined
      ? {}
      : {
          last_renewal: rfc3339(t.last_renewal_ms),
          last_renewal_time: Math.floor(t.last_renewal_ms / 1000),
        }),
    meta: t.meta,
    num_uses: t.num_uses,
    orphan: t.parent === '',
    path: t.path,
    // Vault shows `period` only for a periodic token.
    ...(t.period !== undefined && t.period > 0 ? { period: t.period } : {}),
    policies: [...t.policies],
    renewable: t.renewable && t.expire_ms !== 0,
    ttl: remainingSeconds(t, now),
    type: 'service',
  };
}
