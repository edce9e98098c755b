/**
 * Promise-free answers of the token and policy stores, for the HTTP
 * adapter's check of every request: {@link TokenStore.authenticate} and
 * {@link AclPolicyStore.acl} answer from their caches most of the time, yet
 * as `async` methods each costs a promise and microtask turns. Each store's
 * constructor registers here a function that answers without a promise when
 * its cache can (and through the public method otherwise); registering on
 * construction rather than on load keeps a bundle without the stores free of them.
 *
 * A neutral module (type imports only): the HTTP adapter's browser bundle
 * takes it without the stores' code. Where no store registered (another
 * copy of the package made the store), the public methods answer.
 * @module
 */
import type { AclOperation } from './acl.js';
import type { TokenContext } from './token-entry.js';

/** What the adapter needs of a token store (structural: any copy of the package's). */
export interface TokenSource {
  authenticate(token: string): Promise<TokenContext | undefined>;
}

/** What the adapter needs of a compiled ACL. */
export interface AclLike {
  allows(path: string, operation: AclOperation, sudo: boolean): boolean;
  /**
   * The capabilities the most specific rule grants on `path` (`deny` alone when
   * denied): that rule's own set, the same object for every path it decides.
   */
  capabilities(path: string): ReadonlySet<string>;
}

/** What the adapter needs of a policy store. */
export interface AclSource {
  acl(names: readonly string[]): Promise<AclLike>;
}

type TokenNow = (
  store: TokenSource,
  token: string,
) => TokenContext | undefined | Promise<TokenContext | undefined>;
type AclNow = (store: AclSource, names: readonly string[]) => AclLike | Promise<AclLike>;

let tokenNow: TokenNow | undefined;
let aclNowOf: AclNow | undefined;

/** token-store.ts registers its cached path. @internal */
export function registerTokenNow(f: TokenNow): void {
  tokenNow = f;
}

/** acl-policies.ts registers its cached path. @internal */
export function registerAclNow(f: AclNow): void {
  aclNowOf = f;
}

/**
 * `store.authenticate(token)`'s answer, without a promise when the token's
 * entry is cached and unexpired (and of unlimited uses).
 * @internal
 */
export const authenticateNow: TokenNow = (store, token) =>
  tokenNow ? tokenNow(store, token) : store.authenticate(token);

/**
 * `store.acl(names)`'s answer, without a promise when the compiled ACL is cached.
 * @internal
 */
export const aclNow: AclNow = (store, names) =>
  aclNowOf ? aclNowOf(store, names) : store.acl(names);
