/**
 * Vault's ACL evaluation over a set of parsed policies (vault/acl.go).
 *
 * - Rules with the same pattern are merged across policies: capabilities are
 *   united, and `deny` in any of them makes the merged rule deny everything.
 * - An exact pattern beats every wildcard one. Among `*` (suffix glob) and `+`
 *   (one whole segment) patterns that match, the most specific wins, by
 *   Vault's priority rules, in order: the first wildcard later in the pattern;
 *   no trailing `*`; fewer `+` segments; longer; lexically greater.
 * - Default deny: no matching rule grants nothing. The `root` policy grants all.
 * - List requests are checked on the path with a trailing `/`, and an exact
 *   rule on the path without it also applies (Vault's list special case).
 *
 * Pure and runtime-neutral.
 * @module
 */
import type { Capability, ParsedPolicy } from './policy-hcl.js';

/**
 * The operation a request performs, as Vault names them.
 * @public
 */
export type AclOperation = 'create' | 'read' | 'update' | 'delete' | 'list';

interface WildRule {
  pattern: string;
  /** Segments before the glob part (each `+` or literal). */
  fixed: string[];
  /** The partial last segment of a `*` pattern (`undefined`: exact segment count). */
  prefix: string | undefined;
  caps: ReadonlySet<Capability>;
  firstWild: number;
  plusCount: number;
}

const ALL: ReadonlySet<Capability> = new Set<Capability>([
  'create',
  'read',
  'update',
  'delete',
  'list',
  'sudo',
]);
const NONE: ReadonlySet<Capability> = new Set<Capability>();

function compileWild(pattern: string, caps: ReadonlySet<Capability>): WildRule {
  const glob = pattern.endsWith('*');
  const body = glob ? pattern.slice(0, -1) : pattern;
  const segs = body.split('/');
  const prefix = glob ? (segs.pop() as string) : undefined;
  let firstWild = glob ? pattern.length - 1 : Number.POSITIVE_INFINITY;
  let plusCount = 0;
  let offset = 0;
  for (const s of segs) {
    if (s === '+') {
      plusCount++;
      firstWild = Math.min(firstWild, offset);
    }
    offset += s.length + 1;
  }
  return { pattern, fixed: segs, prefix, caps, firstWild, plusCount };
}

function matches(rule: WildRule, segs: readonly string[], path: string): boolean {
  const n = rule.fixed.length;
  if (rule.prefix === undefined ? segs.length !== n : segs.length <= n) return false;
  for (let i = 0; i < n; i++) {
    const f = rule.fixed[i] as string;
    if (f !== '+' && f !== segs[i]) return false;
  }
  if (rule.prefix === undefined) return true;
  // The rest of the path (from segment n on) must start with the glob's partial segment.
  let offset = 0;
  for (let i = 0; i < n; i++) offset += (segs[i] as string).length + 1;
  return path.startsWith(rule.prefix, offset);
}

/** True when `a` is more specific than `b` (Vault's priority rules). */
function moreSpecific(a: WildRule, b: WildRule): boolean {
  if (a.firstWild !== b.firstWild) return a.firstWild > b.firstWild;
  const ag = a.prefix !== undefined;
  const bg = b.prefix !== undefined;
  if (ag !== bg) return !ag;
  if (a.plusCount !== b.plusCount) return a.plusCount < b.plusCount;
  if (a.pattern.length !== b.pattern.length) return a.pattern.length > b.pattern.length;
  return a.pattern > b.pattern;
}

/**
 * A compiled access-control list: the merged rules of a token's policies.
 *
 * @example
 * ```ts
 * const acl = Acl.compile([
 *   parsePolicy('path "transit/*" { capabilities = ["update"] }'),
 *   parsePolicy('path "transit/sign/+/sha1" { capabilities = ["deny"] }'),
 * ]);
 * acl.allows('transit/sign/k/sha2-256', 'update'); // true
 * acl.allows('transit/sign/k/sha1', 'update');     // false
 * ```
 * @public
 */
export class Acl {
  readonly #root: boolean;
  readonly #exact = new Map<string, ReadonlySet<Capability>>();
  readonly #wild: WildRule[] = [];

  private constructor(root: boolean) {
    this.#root = root;
  }

  /** Compile policies into one ACL; `root` grants everything. */
  static compile(policies: readonly ParsedPolicy[], options: { root?: boolean } = {}): Acl {
    const acl = new Acl(options.root === true);
    const merged = new Map<string, Set<Capability>>();
    for (const p of policies) {
      for (const r of p.rules) {
        const set = merged.get(r.path) ?? new Set<Capability>();
        for (const c of r.capabilities) set.add(c);
        merged.set(r.path, set);
      }
    }
    for (const [pattern, set] of merged) {
      const caps: ReadonlySet<Capability> = set.has('deny') ? new Set(['deny']) : set;
      const wild = pattern.endsWith('*') || pattern.split('/').includes('+');
      if (wild) acl.#wild.push(compileWild(pattern, caps));
      else acl.#exact.set(pattern, caps);
    }
    return acl;
  }

  /** True when this ACL is the root policy's (everything allowed). */
  get isRoot(): boolean {
    return this.#root;
  }

  /**
   * The capabilities granted on `path` (no leading `/`), from the most specific
   * matching rule; `deny` alone when denied; empty when nothing matches. The
   * set is the deciding rule's own (the same object for every path it decides).
   */
  capabilities(path: string, operation?: AclOperation): ReadonlySet<Capability> {
    if (this.#root) return ALL;
    let p = path.replace(/^\/+/, '');
    if (operation === 'list' && !p.endsWith('/')) p += '/';
    const exact = this.#exact.get(p);
    if (exact) return exact;
    if (operation === 'list') {
      const bare = this.#exact.get(p.slice(0, -1));
      if (bare) return bare;
      return this.#listWild(p);
    }
    return this.#bestWild(p)?.caps ?? NONE;
  }

  /**
   * A LIST's wildcard decision, as Vault's since its fix of the list deny
   * bypass (OpenBao GHSA-xp3c-3jw3-4vcr): the rules matching the path without
   * its trailing slash and those matching it with the slash are candidates
   * together, and the most specific one decides (a `deny` among the most
   * specific wins). Deciding on the bare path alone let `transit/*` with list
   * past a `transit/keys/*` deny; on the slash path alone, a `transit/keys*`
   * grant was never seen.
   */
  #listWild(p: string): ReadonlySet<Capability> {
    const bare = p.slice(0, -1);
    const bareSegs = bare.split('/');
    const segs = p.split('/');
    let best: WildRule | undefined;
    let deny: WildRule | undefined;
    for (const rule of this.#wild) {
      if (!matches(rule, bareSegs, bare) && !matches(rule, segs, p)) continue;
      if (!best || moreSpecific(rule, best)) best = rule;
      if (rule.caps.has('deny') && (!deny || moreSpecific(rule, deny))) deny = rule;
    }
    if (deny && (best === deny || !moreSpecific(best as WildRule, deny))) return deny.caps;
    return best?.caps ?? NONE;
  }

  /** The most specific wildcard rule matching `p`, as Vault's CheckAllowedFromNonExactPaths. */
  #bestWild(p: string): WildRule | undefined {
    const segs = p.split('/');
    let best: WildRule | undefined;
    for (const rule of this.#wild) {
      if (matches(rule, segs, p) && (!best || moreSpecific(rule, best))) best = rule;
    }
    return best;
  }

  /**
   * Whether `operation` on `path` is allowed (and `sudo` too, when required).
   * `deny` wins; no matching rule denies.
   */
  allows(path: string, operation: AclOperation, sudo = false): boolean {
    if (this.#root) return true;
    const caps = this.capabilities(path, operation);
    if (caps.has('deny')) return false;
    return caps.has(operation) && (!sudo || caps.has('sudo'));
  }
}
