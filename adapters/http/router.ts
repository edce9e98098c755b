/**
 * Compiles the route table once into a segment trie and matches requests
 * (hono's `Router.add/match` contract).
 *
 * - Optional parts of a pattern, `(/:x)`, expand into one variant each.
 * - At every segment, a literal child is tried before parameters, and a
 *   parameter declared `int` in the row's fields (it then matches only digits)
 *   before a free one — so `random/32` is bytes and `random/all` a source, and
 *   no row order matters (openbao's "greedy patterns" trap).
 * - A parameter never matches an empty segment; a row's `greedy` parameter
 *   takes the rest of the path (lease prefixes contain `/`), tried last.
 * - The result is a match, a 405 (the path exists, the method does not; the
 *   allowed methods are returned) or nothing (404).
 *
 * Runtime-neutral.
 * @module
 */
import type { Route, RouteMethod } from './route.js';

interface Param {
  name: string;
  int: boolean;
  /** Takes every remaining segment (joined with `/`). */
  rest: boolean;
  node: TrieNode;
}

interface TrieNode {
  literal: Map<string, TrieNode>;
  params: Param[];
  handlers: Map<RouteMethod, { route: Route; names: string[] }>;
}

/** A matched request. @internal */
export interface RouteMatch {
  route: Route;
  params: Record<string, string>;
}

/** The result of {@link Router.match}. @internal */
export type MatchResult =
  | { kind: 'match'; match: RouteMatch }
  | { kind: 'method'; allowed: RouteMethod[] }
  | { kind: 'none' };

const INT = /^-?[0-9]+$/;
/** Try order among parameters: `int` ones, then free ones, then rest-of-path ones. */
const rank = (p: Param): number => (p.rest ? 2 : p.int ? 0 : 1);
const node = (): TrieNode => ({ literal: new Map(), params: [], handlers: new Map() });

/** Expand `a(/:b)(/:c)` into `a`, `a/:b`, `a/:c`, `a/:b/:c`. @internal */
export function expandOptional(pattern: string): string[] {
  const open = pattern.indexOf('(');
  if (open < 0) return [pattern];
  const close = pattern.indexOf(')', open);
  if (close < 0) throw new Error(`unbalanced ( in route ${pattern}`);
  const head = pattern.slice(0, open);
  const inner = pattern.slice(open + 1, close);
  return expandOptional(pattern.slice(close + 1)).flatMap((tail) => [
    head + tail,
    head + inner + tail,
  ]);
}

/**
 * The compiled table for one mount.
 * @internal
 */
export class Router {
  readonly #root = node();

  /**
   * @param routes - the table
   * @param prefixOf - the URL prefix (as segments) of a row's first pattern segment
   */
  constructor(routes: readonly Route[], prefixOf: (first: string) => readonly string[]) {
    for (const route of routes) {
      for (const variant of expandOptional(route.path)) {
        const [first = '', ...rest] = variant.split('/').filter((s) => s !== '');
        const segments = [...prefixOf(first), ...rest];
        this.#add(route, segments);
      }
    }
  }

  #add(route: Route, segments: readonly string[]): void {
    let n = this.#root;
    const names: string[] = [];
    for (const seg of segments) {
      if (seg.startsWith(':')) {
        const name = seg.slice(1);
        const int = route.fields[name] === 'int';
        const rest = route.greedy === name;
        let p = n.params.find((x) => x.name === name && x.int === int && x.rest === rest);
        if (!p) {
          p = { name, int, rest, node: node() };
          n.params.push(p);
          n.params.sort((a, b) => rank(a) - rank(b));
        }
        names.push(name);
        n = p.node;
      } else {
        let next = n.literal.get(seg);
        if (!next) {
          next = node();
          n.literal.set(seg, next);
        }
        n = next;
      }
    }
    if (n.handlers.has(route.method)) {
      throw new Error(`duplicate route ${route.method} ${segments.join('/')}`);
    }
    n.handlers.set(route.method, { route, names });
  }

  /** Match decoded path segments (no empty leading segment) for a method. */
  match(method: RouteMethod, segments: readonly string[]): MatchResult {
    const found: { n: TrieNode; values: string[] }[] = [];
    const walk = (n: TrieNode, i: number, values: string[]): void => {
      if (i === segments.length) {
        if (n.handlers.size > 0) found.push({ n, values });
        return;
      }
      const seg = segments[i] as string;
      const lit = n.literal.get(seg);
      if (lit) walk(lit, i + 1, values);
      if (seg === '') return;
      for (const p of n.params) {
        if (p.rest) walk(p.node, segments.length, [...values, segments.slice(i).join('/')]);
        else if (!p.int || INT.test(seg)) walk(p.node, i + 1, [...values, seg]);
      }
    };
    walk(this.#root, 0, []);
    for (const { n, values } of found) {
      const h = n.handlers.get(method);
      if (h) {
        const params: Record<string, string> = {};
        h.names.forEach((name, i) => {
          params[name] = values[i] as string;
        });
        return { kind: 'match', match: { route: h.route, params } };
      }
    }
    if (found.length === 0) return { kind: 'none' };
    const allowed = new Set<RouteMethod>();
    for (const { n } of found) for (const m of n.handlers.keys()) allowed.add(m);
    return { kind: 'method', allowed: [...allowed] };
  }
}
