/**
 * Named ACL policies in storage (`sys/policy/:name`, `sys/policies/acl/:name`).
 *
 * As Vault: `root` is built in (grants everything; cannot be written or
 * deleted); `default` exists from the start with the token self-service paths
 * (it can be rewritten, not deleted); names are case-insensitive (lowercased).
 * Compiled ACLs are cached per policy set and dropped on every write or delete
 * through this store.
 * @module
 */
// The public type comes through the package name (see token-store.ts).
import type { StorageAdapter } from 'transitkit';
import { fromUtf8, utf8 } from '../encoding.js';
import { invalidRequest } from '../errors.js';
import { Acl } from './acl.js';
import { type ParsedPolicy, parsePolicy } from './policy-hcl.js';

const PREFIX = 'sys/policy/acl/';
const NAME = /^[a-z0-9_.@-]{1,128}$/;

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

/**
 * Options of {@link AclPolicyStore}.
 * @public
 */
export interface AclPolicyStoreOptions {
  /** Where policies live (entries under `sys/policy/acl/`). */
  storage: StorageAdapter;
}

/**
 * The named ACL policies, stored and compiled.
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
  readonly #parsed = new Map<string, ParsedPolicy | null>();
  readonly #acls = new Map<string, Acl>();
  #gen = 0;

  constructor(options: AclPolicyStoreOptions) {
    if (!options || typeof options.storage?.get !== 'function') {
      throw invalidRequest('AclPolicyStore needs a storage adapter');
    }
    this.#storage = options.storage;
  }

  /** Read a policy; `undefined` when it does not exist. `root` reads as empty text. */
  async read(name: string): Promise<AclPolicyDocument | undefined> {
    const n = policyName(name);
    if (n === 'root') return { name: 'root', policy: '' };
    const raw = await this.#storage.get(PREFIX + n);
    if (raw) return JSON.parse(fromUtf8(raw)) as AclPolicyDocument;
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
    await this.#storage.put(PREFIX + n, utf8(JSON.stringify({ name: n, policy })));
    this.#invalidate();
  }

  /**
   * Delete a policy (a missing one is not an error).
   * @throws TransitError `invalid_request` for `root` and `default`.
   */
  async delete(name: string): Promise<void> {
    const n = policyName(name);
    if (n === 'root' || n === 'default') throw invalidRequest(`cannot delete "${n}" policy`);
    await this.#storage.delete(PREFIX + n);
    this.#invalidate();
  }

  /** Every policy name, sorted, including `default` and `root`. */
  async list(): Promise<string[]> {
    const names = new Set(await this.#storage.list(PREFIX));
    names.add('default');
    names.add('root');
    return [...names].sort();
  }

  /**
   * The compiled ACL of a set of policy names (missing names grant nothing;
   * `root` among them grants everything).
   */
  async acl(names: readonly string[]): Promise<Acl> {
    const key = [...new Set(names)].sort().join(',');
    const cached = this.#acls.get(key);
    if (cached) return cached;
    const gen = this.#gen;
    const root = names.includes('root');
    const parsed: ParsedPolicy[] = [];
    if (!root) {
      for (const name of names) {
        const p = await this.#load(name);
        if (p) parsed.push(p);
      }
    }
    const acl = Acl.compile(parsed, { root });
    if (gen !== this.#gen) return acl; // a write raced this load: do not cache
    if (this.#acls.size > 1024) this.#acls.clear();
    this.#acls.set(key, acl);
    return acl;
  }

  async #load(name: string): Promise<ParsedPolicy | null> {
    if (this.#parsed.has(name)) return this.#parsed.get(name) ?? null;
    const gen = this.#gen;
    let parsed: ParsedPolicy | null = null;
    try {
      const doc = await this.read(name);
      parsed = doc ? parsePolicy(doc.policy) : null;
    } catch {
      parsed = null; // an unreadable policy grants nothing
    }
    if (gen === this.#gen) this.#parsed.set(name, parsed);
    return parsed;
  }

  #invalidate(): void {
    this.#gen++;
    this.#parsed.clear();
    this.#acls.clear();
  }
}
