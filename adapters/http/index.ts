/**
 * `transitkit/http`: Vault's HTTP API for a {@link Transit} engine — the
 * transit routes under a mount (default `/v1/transit`), `/v1/sys/health`,
 * Vault tokens (`/v1/auth/token/*`) and ACL policies (`/v1/sys/policy/*`,
 * `/v1/sys/policies/acl/*`) — so Vault clients (hvac, node-vault, the Vault
 * CLI, curl scripts) work unchanged. Given a `TransitNode` instead of fixed
 * services, it also serves the seal (`/v1/sys/init`, `unseal`, `seal`,
 * `seal-status`, `rotate`, `key-status`) and answers 503 while sealed.
 * Large objects stream through `POST /v1/transit/encrypt-stream/:name` and
 * `decrypt-stream/:name` (octet stream in and out, constant memory).
 *
 * One runtime-neutral dispatcher, three bindings: Node/Express
 * `(req, res, next?)`, Koa middleware, and fetch `(Request) => Response`.
 * The Node server that also accepts the `LIST` method is in
 * `transitkit/http/node`.
 * @packageDocumentation
 */

import type { Clock, Transit } from 'transitkit';
import { systemClock } from '../../src/clock.js';
import { invalidRequest } from '../../src/errors.js';
import { PACKAGE_VERSION } from '../../src/version.js';
import { createDispatch, type Dispatch, type Logger } from './dispatch.js';
import { type FetchHandler, toFetchHandler } from './fetch.js';
import { type JsonLimits, resolveJsonLimits } from './json-limits.js';
import { type KoaMiddleware, toKoaMiddleware } from './koa.js';
import type { MetricsExporter } from './metrics.js';
import { type NodeHandler, toNodeHandler } from './node.js';
import type { UnknownFields } from './params.js';
import { isPathOption, mountConflict } from './path-option.js';
import { type HandlerServices, isNode } from './source.js';

// Tokens and ACL policies live in the core (a `TransitNode` makes them); they
// are re-exported here from `transitkit`, so there is one declaration of each.
export type {
  AclOperation,
  AclPolicyDocument,
  AclPolicyStoreOptions,
  Capability,
  ParsedPolicy,
  PolicyRule,
  TokenAuth,
  TokenContext,
  TokenCreateRequest,
  TokenLookup,
  TokenStoreOptions,
} from 'transitkit';
export { Acl, AclPolicyStore, DEFAULT_POLICY, parsePolicy, TokenStore } from 'transitkit';
export type { HeaderLookup } from './auth.js';
export type { Dispatch, HttpRequest, Logger } from './dispatch.js';
export type { FetchHandler } from './fetch.js';
export type { HealthBody, HealthSource, HealthState } from './health.js';
export type { JsonLimits } from './json-limits.js';
export type { KoaContextLike, KoaMiddleware } from './koa.js';
export type { MetricsExporter } from './metrics.js';
export type {
  VaultGaugeValue,
  VaultMetricsSummary,
  VaultSampledValue,
} from './metrics-json.js';
export type { NodeHandler, NodeRequestLike, NodeResponseLike } from './node.js';
export type { UnknownFields } from './params.js';
export type { HttpReply } from './reply.js';
export type { FieldType, Services } from './route.js';
export type { HandlerServices } from './source.js';
export { STATUS } from './status.js';

/** Vault's default maximum request size: 32 MiB. @public */
export const DEFAULT_MAX_REQUEST_BYTES = 32 * 1024 * 1024;

/**
 * Options of {@link createHandler}.
 * @public
 */
export interface HandlerOptions {
  /** URL path of the transit mount. Default `/v1/transit`; its ACL paths follow it (`/v1/kms` → `kms/…`). */
  mount?: string;
  /** URL prefix of the API (`sys/…`, `auth/…`). Default `/v1`. */
  apiPrefix?: string;
  /** Largest request body in bytes (413 beyond). Default 32 MiB. */
  maxRequestBytes?: number;
  /**
   * Largest body of `encrypt-stream` / `decrypt-stream` in bytes, which are
   * streamed, never buffered, so `maxRequestBytes` does not apply to them.
   * Past it: 413 when the declared `Content-Length` is larger or nothing has
   * been answered yet, else the response is aborted. Default: no limit.
   */
  maxStreamBytes?: number;
  /**
   * Shape limits of a JSON body (400 beyond): nesting depth (64), items per
   * list or object (100,000), values in all (500,000). Checked before the
   * body is parsed.
   */
  jsonLimits?: JsonLimits;
  /** Undeclared fields: Vault's warning (`warn`, default) or a 400 (`reject`). */
  unknownFields?: UnknownFields;
  /**
   * Check tokens and ACL policies (default). `false` serves every route to
   * every caller, without the token and policy routes: only for an app that
   * authenticates requests itself before they reach the handler.
   */
  auth?: boolean;
  /** Where unexpected errors go. Default `console`. */
  logger?: Logger;
  /** `version` of the health body. Default: the package version (as `transitkit server` reports). */
  version?: string;
  /**
   * `cluster_name` of the health body. Default: a `TransitNode`'s (its store's,
   * the same on every node), else `transitkit`.
   */
  clusterName?: string;
  /**
   * `cluster_id` of the health body. Default: a `TransitNode`'s (its store's),
   * else a random UUID per handler.
   */
  clusterId?: string;
  /** Time source of the health body's `server_time_utc`. Default: the wall clock. */
  clock?: Clock;
  /**
   * Metrics (`PrometheusMetrics` of `transitkit/http/node`, or any {@link MetricsExporter}):
   * serves `GET /v1/sys/metrics` (`format=prometheus` for the Prometheus text
   * exposition, Vault's JSON otherwise; `read` on `sys/metrics`) and records
   * every request in `transitkit_http_request_duration_seconds` by route
   * pattern, method and status. Give the same object to the `TransitNode` for
   * its engine, storage, lease and seal metrics. Default: none (404, and no
   * per-request cost).
   */
  metrics?: MetricsExporter;
  /**
   * Serve `sys/metrics` without a token, also while sealed (Vault's listener
   * `telemetry.unauthenticated_metrics_access`). Default false: expose it
   * only where every caller may read it.
   */
  unauthenticatedMetricsAccess?: boolean;
}

/**
 * The handler: one dispatcher and its bindings.
 * @public
 */
export interface TransitHandler {
  /** `(req, res, next?)`: `http.createServer(handler.node)` or Express `app.use(handler.node)`. */
  readonly node: NodeHandler;
  /** Koa middleware: `app.use(handler.koa)`. */
  readonly koa: KoaMiddleware;
  /** `(Request) => Promise<Response>`: Hono, Bun, Deno, workers. */
  readonly fetch: FetchHandler;
  /** The runtime-neutral core, for tests and custom bindings. */
  readonly dispatch: Dispatch;
}

/** The `metrics` option, checked. */
function checkExporter(m: unknown): MetricsExporter | undefined {
  if (m === undefined) return undefined;
  const x = m as Partial<MetricsExporter> | null;
  if (
    typeof x !== 'object' ||
    x === null ||
    typeof x.histogram !== 'function' ||
    typeof x.prometheus !== 'function' ||
    typeof x.vaultJson !== 'function'
  ) {
    throw invalidRequest('metrics must be a PrometheusMetrics (or a MetricsExporter)');
  }
  return x as MetricsExporter;
}

function pathOption(value: unknown, name: string, dflt: string): string {
  const v = value === undefined ? dflt : value;
  if (!isPathOption(v)) {
    throw invalidRequest(`${name} must be a path such as ${dflt} (no trailing slash)`);
  }
  return v;
}

/**
 * Create the HTTP handler for a transit engine and its token and policy stores,
 * or for a `TransitNode` (which adds `sys/init`, `sys/unseal`, `sys/seal`,
 * `sys/seal-status`, `sys/rotate`, `sys/key-status`, and answers 503 "Vault is
 * sealed" on every other route but health while sealed).
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { MemoryStorage, Transit } from 'transitkit';
 * import { AclPolicyStore, createHandler, TokenStore } from 'transitkit/http';
 *
 * const storage = new MemoryStorage();
 * const tokens = new TokenStore({ storage });
 * const root = await tokens.createRoot();
 * const handler = createHandler({
 *   transit: new Transit({ storage }),
 *   tokens,
 *   policies: new AclPolicyStore({ storage }),
 * });
 * createServer(handler.node).listen(8200); // curl -H "X-Vault-Token: $root" …
 *
 * // A sealable node: starts uninitialised; PUT /v1/sys/init, then /v1/sys/unseal.
 * createServer(createHandler(new TransitNode({ storage })).node).listen(8201);
 * ```
 * @throws TransitError `invalid_request` for bad options or missing services.
 * @public
 */
export function createHandler(
  services: HandlerServices,
  options: HandlerOptions = {},
): TransitHandler {
  const node = isNode(services);
  if (
    !node &&
    (!services || typeof (services.transit as Transit | undefined)?.encrypt !== 'function')
  ) {
    throw invalidRequest('createHandler needs services.transit (a Transit) or a TransitNode');
  }
  const auth = options.auth ?? true;
  if (!node && auth && (!services.tokens || !services.policies)) {
    throw invalidRequest(
      'createHandler needs services.tokens and services.policies (or options.auth = false)',
    );
  }
  const max = options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES;
  if (!Number.isSafeInteger(max) || max < 1) {
    throw invalidRequest('maxRequestBytes must be a positive integer');
  }
  const maxStream = options.maxStreamBytes ?? Number.POSITIVE_INFINITY;
  if (
    maxStream !== Number.POSITIVE_INFINITY &&
    (!Number.isSafeInteger(maxStream) || maxStream < 1)
  ) {
    throw invalidRequest('maxStreamBytes must be a positive integer');
  }
  const unknownFields = options.unknownFields ?? 'warn';
  if (unknownFields !== 'warn' && unknownFields !== 'reject') {
    throw invalidRequest("unknownFields must be 'warn' or 'reject'");
  }
  const metrics = checkExporter(options.metrics);
  const openMetrics = options.unauthenticatedMetricsAccess ?? false;
  if (typeof openMetrics !== 'boolean') {
    throw invalidRequest('unauthenticatedMetricsAccess must be a boolean');
  }
  const mount = pathOption(options.mount, 'mount', '/v1/transit');
  const apiPrefix = pathOption(options.apiPrefix, 'apiPrefix', '/v1');
  const conflict = mountConflict(mount, apiPrefix);
  if (conflict !== undefined) throw invalidRequest(conflict);
  const dispatch = createDispatch(services, {
    mount,
    apiPrefix,
    maxRequestBytes: max,
    maxStreamBytes: maxStream,
    jsonLimits: resolveJsonLimits(options.jsonLimits),
    unknownFields,
    auth,
    logger: options.logger ?? console,
    version: options.version ?? PACKAGE_VERSION,
    clusterName: options.clusterName,
    clusterId: options.clusterId,
    fallbackClusterId: globalThis.crypto.randomUUID(),
    clock: options.clock ?? systemClock,
    ...(metrics ? { metrics, unauthenticatedMetrics: openMetrics } : {}),
  });
  return {
    dispatch,
    node: toNodeHandler(dispatch),
    koa: toKoaMiddleware(dispatch),
    fetch: toFetchHandler(dispatch),
  };
}
