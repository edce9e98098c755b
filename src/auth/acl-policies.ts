/**
 * Named ACL policies in storage (`sys/policy/:name`, `sys/policies/acl/:name`).
 *
 * As Vault: `root` is built in (grants everything; cannot be written or
 * deleted); `default` exists from the start with the token self-service paths
 * (it can be rewritten, not deleted); names are case-insensitive (lowercased)
 * and hold no commas or whitespace.
 *
 * Caching (the cache decides authority, so it follows three rules):
 * - **coherent**: parsed policies and compiled ACLs are dropped on every write
 *   or delete through this store and, when the storage offers `watch`, on every
 *   change of `sys/policy/acl/` by any instance on the same storage. Until the
 *   watch is subscribed (or after it failed), nothing is cached: every check
 *   reads storage. Whatever happens to notifications (a dropped subscriber, a
 *   store without `watch` shared by several writers), nothing cached is used
 *   for more than one second;
 * - **fail closed**: a policy that cannot be read (I/O error, failed barrier
 *   authentication, a damaged entry) makes {@link AclPolicyStore.acl} fail
 *   (`internal`) instead of granting less or more; the failure is never cached,
 *   so the next check reads again;
 * - **unambiguous keys**: a policy set is keyed by the JSON of its sorted,
 *   lowercased names, so `["a,b"]` is never the set `["a","b"]`. A name that
 *   can never be written (a comma, whitespace) grants nothing.
 * @module
 */
import type { Clock } from '../clock.js';
import { systemClock } from '../clock.js';
import { fromUtf8, utf8 } from '../encoding.js';
import { internal, invalidRequest, isTransitError } from '../errors.js';
import type { StorageAdapter } from '../storage/adapter.js';
import { hasWatch } from '../storage/adapter.js';
import { LiveWatch } from '../storage/live-watch.js';
import { Acl } from './acl.js';
import { type AclLike, type AclSource, registerAclNow } from './answer-now.js';
import { type ParsedPolicy, parsePolicy } from './policy-hcl.js';

const PREFIX = 'sys/policy/acl/';
/** Vault's rules plus a portable alphabet: lower case, no commas, no whitespace. */
const NAME = /^[a-z0-9_.@-]{1,128}$/;
/**
 * The longest a cached policy or ACL is used: the backstop for lost change
 * notifications (and for stores without `watch` shared by several writers).
 */
const MAX_AGE_MS = 1_000;
/** Compiled policy sets kept at most (the cache restarts when full). */
const MAX_ACLS = 1024;

/** Vault's built-in `default` policy, reduced to the paths transitkit serves. @public */
export const DEFAULT_POLICY = `# Allow tokens to look up their own properties
path "auth/token/lookup-self" {
  capabilities = ["read"]
}

# Allow tokens to renew themselves
path "auth/token/renew-self" {
  capabilities = ["update"]
}

# Allow tokens to revoke themselves
path "auth/token/revoke-self" {
  capabilities = ["update"]
}
`;

/**
 * A stored policy as read back.
 * @public
 */
export interface AclPolicyDocument {
  name: string;
  /** The policy text as written (HCL or JSON). */
  policy: string;
}

/** Lowercase and validate a policy name. @internal */
export function policyName(name: unknown): string {
  if (typeof name !== 'string' || name === '') throw invalidRequest('missing policy name');
  const n = name.toLowerCase();
  if (!NAME.test(n)) {
    throw invalidRequest(
      `invalid policy name ${JSON.stringify(name)}: use letters, digits, '_', '-', '.' or '@'`,
    );
  }
  return n;
}

/** A set of policy names, normalised: valid names only, lower-cased, unique, sorted; and its cache key. */
interface AclKey {
  set: string[];
  key: string;
}

/**
 * The normalised names of each policy list seen, by identity: a token's list
 * comes from its cached entry, the same array on every request, so the set
 * is built once. The copy guards against a list changed in place.
 */
const KEYS = new WeakMap<readonly string[], { names: string[]; k: AclKey }>();

function aclKey(names: readonly string[]): AclKey {
  const seen = KEYS.get(names);
  if (seen && sameNames(seen.names, names)) return seen.k;
  const valid = new Set<string>();
  for (const name of names) {
    const n = validName(name);
    if (n !== undefined) valid.add(n);
  }
  const set = [...valid].sort();
  const k = { set, key: JSON.stringify(set) };
  KEYS.set(names, { names: [...names], k });
  return k;
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The lowercased name, or `undefined` for one that can never be written. */
function validName(name: unknown): string | undefined {
  if (typeof name !== 'string') return undefined;
  const n = name.toLowerCase();
  return NAME.test(n) ? n : undefined;
}

/** A stored entry, checked; `internal` (naming the policy only) when damaged. */
function decodeDocument(name: string, raw: Uint8Array): AclPolicyDocument {
  let doc: unknown;
  try {
    doc = JSON.parse(fromUtf8(raw));
  } catch {
    doc = undefined;
  }
  const d = doc as Partial<AclPolicyDocument> | undefined;
  if (typeof d !== 'object' || d === null || typeof d.policy !== 'string') {
    throw internal(`the stored policy "${name}" is damaged`);
  }
  return { name, policy: d.policy };
}

/**
 * Options of {@link AclPolicyStore}.
 * @public
 */
export interface AclPolicyStoreOptions {
  /** Where policies live (entries under `sys/policy/acl/`). */
  storage: StorageAdapter;
  /** Time source for the cache age. Default: the wall clock. */
  clock?: Clock;
}

/**
 * The named ACL policies, stored and compiled. On a storage with `watch`, the
 * store subscribes to policy changes when made: {@link AclPolicyStore.close}
 * unsubscribes (a `TransitNode` does it on seal).
 *
 * @example
 * ```ts
 * const policies = new AclPolicyStore({ storage });
 * await policies.write('app', 'path "transit/encrypt/app" { capabilities = ["update"] }');
 * const acl = await policies.acl(['default', 'app']);
 * acl.allows('transit/encrypt/app', 'update'); // true
 * ```
 * @public
 */
export class AclPolicyStore {
  readonly #storage: StorageAdapter;
  /** Parsed policies by name; `null` = the policy does not exist (never an error). */
  readonly #parsed = new Map<string, ParsedPolicy | null>();
  readonly #acls = new Map<string, Acl>();
  /** Bumped on every change: a load that started before one is not cached. */
  #gen = 0;
  /** The watch: `undefined` without `watch`; caching waits for it to be live. */
  readonly #watch: LiveWatch | undefined;
  #closed = false;
  readonly #clock: Clock;
  /** When the cache was last emptied: nothing in it is older. */
  #since: number;

  constructor(options: AclPolicyStoreOptions) {
    if (!options || typeof options.storage?.get !== 'function') {
      throw invalidRequest('AclPolicyStore needs a storage adapter');
    }
    this.#storage = options.storage;
    // The HTTP adapter's promise-free path (answer-now.ts); registered here,
    // not when the module loads, so a bundle without the store stays without it.
    registerAclNow(AclPolicyStore.#answerNow);
    this.#clock = options.clock ?? systemClock;
    this.#since = this.#clock.now();
    this.#watch = hasWatch(this.#storage)
      ? new LiveWatch(this.#storage, PREFIX, () => this.#invalidate())
      : undefined;
  }

  /** Read a policy; `undefined` when it does not exist. `root` reads as empty text. */
  async read(name: string): Promise<AclPolicyDocument | undefined> {
    const n = policyName(name);
    if (n === 'root') return { name: 'root', policy: '' };
    const raw = await this.#storage.get(PREFIX + n);
    if (raw) return decodeDocument(n, raw);
    return n === 'default' ? { name: 'default', policy: DEFAULT_POLICY } : undefined;
  }

  /**
   * Create or replace a policy.
   * @throws TransitError `invalid_request` for `root`, a bad name or a malformed policy (with its line).
   */
  async write(name: string, policy: string): Promise<void> {
    const n = policyName(name);
    if (n === 'root') throw invalidRequest('cannot update "root" policy');
    if (typeof policy !== 'string' || policy.trim() === '') {
      throw invalidRequest("'policy' parameter not supplied or empty");
    }
    parsePolicy(policy);
    try {
      await this.#storage.put(PREFIX + n, utf8(JSON.stringify({ name: n, policy })));
    } finally {
      this.#invalidate();
    }
  }

  /**
   * Delete a policy (a missing one is not an error).
   * @throws TransitError `invalid_request` for `root` and `default`.
   */
  async delete(name: string): Promise<void> {
    const n = policyName(name);
    if (n === 'root' || n === 'default') throw invalidRequest(`cannot delete "${n}" policy`);
    try {
      await this.#storage.delete(PREFIX + n);
    } finally {
      this.#invalidate();
    }
  }

  /** Every policy name, sorted, including `default` and `root`. */
  async list(): Promise<string[]> {
    const names = new Set(await this.#storage.list(PREFIX));
    names.add('default');
    names.add('root');
    return [...names].sort();
  }

  /**
   * The compiled ACL of a set of policy names (names are case-insensitive;
   * missing names, and names that can never exist, grant nothing; `root`
   * among them grants everything).
   * @throws TransitError `internal` when a policy of the set cannot be read
   * (storage failure, failed barrier authentication, a damaged entry): the
   * check fails rather than grant without it.
   */
  async acl(names: readonly string[]): Promise<Acl> {
    const { set, key } = aclKey(names);
    if (!this.#young()) this.#invalidate();
    const cached = this.#acls.get(key);
    if (cached) return cached;
    const gen = this.#gen;
    const cacheable = this.#cacheable();
    const root = set.includes('root');
    const parsed: ParsedPolicy[] = [];
    if (!root) {
      for (const name of set) {
        const p = await this.#load(name, cacheable);
        if (p) parsed.push(p);
      }
    }
    const acl = Acl.compile(parsed, { root });
    if (!cacheable || gen !== this.#gen) return acl; // unwatched, or raced a change
    if (this.#acls.size >= MAX_ACLS) this.#acls.clear();
    this.#acls.set(key, acl);
    return acl;
  }

  /** {@link acl}'s cached answer, if it has one now; reads and compiles nothing. */
  #cachedAcl(names: readonly string[]): Acl | undefined {
    return this.#young() ? this.#acls.get(aclKey(names).key) : undefined; // else acl() starts over
  }

  /** Whether the caches are younger than {@link MAX_AGE_MS} (a clock stepped back: not). */
  #young(): boolean {
    const age = this.#clock.now() - this.#since;
    return age >= 0 && age < MAX_AGE_MS;
  }

  /** The cached path {@link aclNow} takes (registered by the constructor). */
  static #answerNow(store: AclSource, names: readonly string[]): AclLike | Promise<AclLike> {
    if (!(#cachedAcl in store) || store.acl !== AclPolicyStore.prototype.acl) {
      return store.acl(names);
    }
    return store.#cachedAcl(names) ?? store.acl(names);
  }

  /** Stop watching storage (the store keeps working, without caching). Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#invalidate();
    await this.#watch?.close();
  }

  /** Whether results may be cached now: no watch needed, or the watch is live. */
  #cacheable(): boolean {
    const w = this.#watch;
    if (!w) return true;
    return !this.#closed && w.live();
  }

  async #load(name: string, cacheable: boolean): Promise<ParsedPolicy | null> {
    if (this.#parsed.has(name)) return this.#parsed.get(name) ?? null;
    const gen = this.#gen;
    let doc: AclPolicyDocument | undefined;
    try {
      doc = await this.read(name);
    } catch (e) {
      if (isTransitError(e)) throw e;
      throw internal(`cannot read policy "${name}"`, e);
    }
    let parsed: ParsedPolicy | null = null;
    if (doc) {
      try {
        parsed = parsePolicy(doc.policy);
      } catch (e) {
        throw internal(`the stored policy "${name}" does not parse`, e);
      }
    }
    if (cacheable && gen === this.#gen) this.#parsed.set(name, parsed);
    return parsed;
  }

  /** Forget every parsed policy and compiled ACL (some policy changed). */
  #invalidate(): void {
    this.#since = this.#clock.now();
    this.#gen++;
    this.#parsed.clear();
    this.#acls.clear();
  }
}
