/**
 * The dispatcher's route front: a request's method and URL → its row, path
 * parameters and ACL path, or the reply when there is none (400 for a bad
 * path, 404, 405 with `Allow`), or `undefined` to fall through (a path
 * outside the mount, with `fallthrough`).
 *
 * The route table is the spec's rows (routes.ts), then the seal, streaming
 * and audit device rows, compiled once into the {@link Router}; a request
 * line seen before maps straight to its answer through a bounded cache, so
 * the hot path neither decodes the URL nor walks the trie. `PUT` is `POST`,
 * `HEAD` is `GET`, and `GET` with a true `list` query is `LIST`.
 *
 * Runtime-neutral.
 * @module
 */
import { GO_FALSE, GO_TRUE } from '../../src/request.js';
import { AUDIT_ROUTES } from './audit-routes.js';
import type { DispatchOptions, HttpRequest } from './dispatch.js';
import { type HttpReply, jsonReply } from './reply.js';
import type { Route, RouteMethod } from './route.js';
import { Router } from './router.js';
import { ROUTES } from './routes.js';
import { SEAL_ROUTES } from './seal-routes.js';
import type { ServiceSource } from './source.js';
import { errorsBody, ROUTE_STATUS } from './status.js';
import { STREAM_ROUTES } from './stream-routes.js';
import { decodeUrl } from './url.js';

/** Request lines kept by the route front (one per key name and operation in practice). */
const RESOLVED_MAX = 4096;
/** The longest request line kept (a key name and operation fit; a longer one is resolved each time). */
const RESOLVED_URL_MAX = 512;

/** A request resolved to its row. @internal */
export interface Resolved {
  route: Route;
  params: Readonly<Record<string, string>>;
  segs: string[];
  query: URLSearchParams;
  verb: string;
  method: string;
  /** The request's ACL path (relative to `/v1`), before any completion from the body. */
  aclPath: string;
  /**
   * A read (GET or LIST) of a row without `notFoundMessage`: a `not_found` is
   * then Vault's bare 404.
   */
  read: boolean;
  /** The body may complete the ACL path (the URL leaves a part of it out). */
  deferAcl: boolean;
}

/**
 * A request without a row: its reply (404, 405, bad path), or `undefined` to
 * fall through.
 * @internal
 */
export interface Unresolved {
  route?: undefined;
  reply: HttpReply | undefined;
}

/** The options the route front reads (the dispatcher's own). @internal */
export type RouteFrontOptions = Pick<
  DispatchOptions,
  'mount' | 'apiPrefix' | 'auth' | 'metrics' | 'unauthenticatedMetrics'
>;

/** A dispatcher's route front, made once by {@link routeFront}. @internal */
export interface RouteFront {
  /**
   * The request's row, or the reply without one (`undefined`: fall through).
   * Sets `seen.read` (a read's `not_found` is Vault's bare 404) either way.
   */
  resolve(req: HttpRequest, fallthrough: boolean, seen: { read: boolean }): Resolved | Unresolved;
  /** The transit mount's ACL path segments (the mount without the API prefix). */
  aclMount: readonly string[];
}

const segsOf = (p: string): string[] => p.split('/').filter((s) => s !== '');
const startsWith = (a: readonly string[], b: readonly string[]) => b.every((s, i) => a[i] === s);

/** A key version as the export routes read it (src/transit/export.ts `versionsOf`). */
const VERSION = /^v?[+-]?[0-9]{1,15}$/;

/**
 * Build the route front of a dispatcher: its table, router and cache.
 * @internal
 */
export function routeFront(source: ServiceSource, o: RouteFrontOptions): RouteFront {
  const mount = segsOf(o.mount);
  const api = segsOf(o.apiPrefix);
  const aclMount =
    startsWith(mount, api) && mount.length > api.length ? mount.slice(api.length) : mount;
  // The spec's table, then the seal routes (served only when the handler has a
  // TransitNode), then the streaming routes (stream-routes.ts), then the audit
  // device routes (audit-routes.ts).
  const rows = [...ROUTES, ...SEAL_ROUTES, ...STREAM_ROUTES, ...AUDIT_ROUTES].map((r) =>
    r.needsMetrics && o.unauthenticatedMetrics ? openMetricsRow(r) : r,
  );
  const router = new Router(rows, (first) => (first === 'transit' ? mount : [...api, first]));
  const isTransit = (r: Route) => r.path === '/transit' || r.path.startsWith('/transit/');
  const aclPathOf = (r: Route, segs: readonly string[], url: string) => {
    const rest = isTransit(r) ? segs.slice(mount.length) : segs.slice(api.length);
    const at = r.aclVersionAt;
    if (at !== undefined && rest.length === at + 1) {
      const v = rest[at] as string;
      if (VERSION.test(v)) rest[at] = String(Number(v.replace(/^v/, '')));
    }
    let path = (isTransit(r) ? [...aclMount, ...rest] : rest).join('/');
    if (r.aclKeepsSlash && endsWithSlash(url)) path += '/';
    if (!r.aclLowerCase) return path;
    const cut = path.lastIndexOf('/') + 1;
    return path.slice(0, cut) + path.slice(cut).toLowerCase();
  };
  const ours = (segs: readonly string[]) =>
    startsWith(segs, mount) ||
    startsWith(segs, [...api, 'sys']) ||
    startsWith(segs, [...api, 'auth']);

  /** The row of `segs` for its first method (GET when it has one): a raw handler's flags. */
  const anyRow = (segs: readonly string[]) => {
    const get = router.match('GET', segs);
    if (get.kind === 'match') return get.match.route;
    const first = get.kind === 'method' ? get.allowed[0] : undefined;
    const other = first === undefined ? undefined : router.match(first as RouteMethod, segs);
    return other?.kind === 'match' ? other.match.route : undefined;
  };
  const bareMethodError = (segs: readonly string[]) => anyRow(segs)?.bareMethodError === true;

  /**
   * Fall through to the app (Express, Koa) for a path `decodeUrl` refused
   * (`/static//app.js`, `/files/a%ZZb`) unless it may be ours: its leading
   * segments, read as well as they can be (an absolute-form target's scheme
   * and host left out, `.` and `..` in any spelling resolved as a browser
   * would), name the mount, `sys` or `auth`: those keep transitkit's 400.
   */
  const mayBeOurs = (url: string) => {
    const target = url.replace(/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?#]*/, '');
    const path = target.split(/[?#]/, 1)[0] ?? '';
    const segs: string[] = [];
    for (const raw of path.split('/')) {
      let seg = raw;
      try {
        seg = decodeURIComponent(raw);
      } catch {
        // kept as sent
      }
      if (seg === '..') segs.pop();
      else if (seg !== '.' && seg !== '') segs.push(seg);
    }
    return ours(segs);
  };

  /** URL → row, or the reply when there is none (404, 405, bad path), or `undefined` to fall through. */
  const resolveUncached = (req: HttpRequest, fallthrough: boolean, seen: { read: boolean }) => {
    const url = decodeUrl(req.url);
    if (!url) {
      if (fallthrough && !mayBeOurs(req.url)) return { reply: undefined };
      const { status, message } = ROUTE_STATUS.badPath;
      return { reply: jsonReply(status, errorsBody([message])) };
    }
    const { segs, query } = url;
    if (fallthrough && !ours(segs)) return { reply: undefined };
    const verb = req.method.toUpperCase();
    let method = verb === 'PUT' ? 'POST' : verb === 'HEAD' ? 'GET' : verb;
    const list = method === 'GET' ? query.get('list') : null;
    if (list !== null && list !== '') {
      if (GO_TRUE.has(list)) method = 'LIST';
      else if (!GO_FALSE.has(list) && !bareMethodError(segs)) {
        // Vault's strconv.ParseBool of `list` failed: a bare 400.
        return { reply: jsonReply(400, errorsBody([])) };
      }
    }
    let found = router.match(method as RouteMethod, segs);
    if (method === 'LIST' && verb !== 'LIST' && found.kind !== 'match') {
      // A raw handler (health, seal-status, …) ignores `?list=`: the GET it is.
      const get = router.match('GET', segs);
      if (get.kind === 'match' && get.match.route.bareMethodError) {
        found = get;
        method = 'GET';
      }
    }
    seen.read = method === 'GET' || method === 'LIST';
    const route = found.kind === 'match' ? found.match.route : undefined;
    const usable =
      route && source.usable(route, o.auth) && (!route.needsMetrics || o.metrics !== undefined);
    if (found.kind === 'none' || (route && !usable)) {
      if (fallthrough && !startsWith(segs, mount)) return { reply: undefined };
      const { status, message } = ROUTE_STATUS.unsupportedPath;
      return { reply: jsonReply(status, errorsBody([message])), sealedFirst: true };
    }
    if (found.kind === 'method' || !route || (verb === 'HEAD' && !route.head)) {
      const { status, message } = ROUTE_STATUS.unsupportedOperation;
      const raw = anyRow(segs);
      const r = jsonReply(status, errorsBody(raw?.bareMethodError ? [] : [message]));
      r.headers.allow = allowHeader(found.kind === 'method' ? found.allowed : ['GET']);
      // Vault checks the seal before routing, except on its raw handlers (init, unseal, …).
      return { reply: r, sealedFirst: !(raw?.whileSealed || raw?.bareMethodError) };
    }
    // A row whose misses have a text (byok-export, backup) answers them as a write does.
    if (route.notFoundMessage) seen.read = false;
    return { route, params: found.match.params, segs, query, verb, method };
  };

  /**
   * The precompiled route table's front: a request line seen before (same
   * method and URL, no query) maps straight to its row, parameters and ACL
   * path, without decoding the URL or walking the trie. Only matches are kept
   * (errors are rare and cheap enough); bounded, cleared when full. The
   * answer is the one {@link resolveUncached} gave, since the table, the
   * mount and the services' usable rows are fixed for the dispatcher.
   */
  // By method, then URL (no request line string is built per request).
  const resolved = new Map<string, Map<string, Resolved>>();
  let resolvedCount = 0;
  const resolve = (req: HttpRequest, fallthrough: boolean, seen: { read: boolean }) => {
    // Bounded in bytes too: resolving comes before the token check, so a
    // client without one must not fill the table with long request lines.
    const cacheable =
      req.url.length <= RESOLVED_URL_MAX && !req.url.includes('?') && !req.url.includes('#');
    const byUrl = cacheable ? resolved.get(req.method) : undefined;
    const hit = byUrl?.get(req.url);
    if (hit) {
      seen.read = hit.read;
      return hit;
    }
    const r = resolveUncached(req, fallthrough, seen);
    if (!('route' in r) || !r.route) return r;
    const { route } = r;
    // Frozen: a cached entry's parameters are shared by every request of its line.
    const params = Object.freeze(r.params);
    const entry: Resolved = {
      ...r,
      params,
      aclPath: aclPathOf(route, r.segs, req.url),
      read: seen.read,
      deferAcl:
        route.fillBody !== undefined ||
        Object.keys(route.aclFromBody).some((p) => params[p] === undefined),
    };
    if (cacheable) {
      if (resolvedCount >= RESOLVED_MAX) {
        resolved.clear();
        resolvedCount = 0;
      }
      let urls = resolved.get(req.method);
      if (!urls) {
        urls = new Map();
        resolved.set(req.method, urls);
      }
      urls.set(req.url, entry);
      resolvedCount++;
    }
    return entry;
  };

  return { resolve, aclMount };
}

/** The `sys/metrics` row without a token, answered while sealed too. */
function openMetricsRow(r: Route): Route {
  return { ...r, cap: null, sudo: false, whileSealed: true };
}

/** The `Allow` header of a 405: the path's methods, `PUT` beside `POST`. */
function allowHeader(methods: readonly RouteMethod[]): string {
  const out = new Set<string>();
  for (const m of methods) {
    if (m === 'POST') out.add('POST').add('PUT');
    else out.add(m);
  }
  return [...out].join(', ');
}

/** Whether the path of a request target (before `?` and `#`) ends with `/`. */
function endsWithSlash(url: string): boolean {
  const end = url.search(/[?#]/);
  return (end < 0 ? url : url.slice(0, end)).endsWith('/');
}
