/**
 * The runtime-neutral core of the HTTP adapter: `{method, url, headers, body}`
 * → `{status, headers, body}`. Bindings (node, Koa, fetch) only convert at
 * the edge (hono's `fetch`/`request()` seam), so every behaviour is testable
 * without a socket.
 *
 * Order of a request: URL → route (404/405; route-front.ts) → sealed check
 * (503) → token (403) → ACL (403) → body (413; 400 for malformed JSON or
 * past the shape limits, json-limits.ts) → fields (400, warnings) → one
 * library call → reply (a streaming row pipes its body through the
 * library's transform instead, stream-reply.ts). The body is read only after
 * the token is verified and the ACL could allow the request, so a caller
 * without the capability cannot make the server buffer or parse 32 MiB. Rows
 * whose ACL path the body can complete (`aclFromBody`, when the URL leaves
 * the part out) are checked before the body on every completion
 * (preauth.ts), and on the completed path after the fields.
 *
 * `internal` errors and unexpected failures are logged with the request id
 * (message and stack, never the request) and answered with a generic 500
 * that carries only that id (status.ts `internalReply`).
 * @module
 */
import type { AclOperation, TokenContext } from 'transitkit';
import type { Clock } from '../../src/clock.js';
import { TransitError } from '../../src/errors.js';
import {
  type AuditStart,
  auditError,
  auditInvalid,
  auditRefused,
  auditRequest,
  auditResponse,
  notAudited,
} from './audit-dispatch.js';
import { aclTail, authenticate, authorize, authorizeNarrowed, type HeaderLookup } from './auth.js';
import type { ResolvedJsonLimits } from './json-limits.js';
import type { MetricsExporter } from './metrics.js';
import { requestRecorder } from './metrics.js';
import { queryFields, rawFields, type UnknownFields, unknownFieldsWarning } from './params.js';
import { authorizeSomeCompletion } from './preauth.js';
import { type HttpReply, jsonReply, NO_WARNINGS, successReply } from './reply.js';
import type { Route, ServedBy } from './route.js';
import { routeFront } from './route-front.js';
import { type HandlerServices, serviceSource } from './source.js';
import { errorReply, internalReply, redactInternalItems } from './status.js';
import { unframed } from './stream-push.js';
import { streamGuard, streamReply } from './stream-reply.js';

/**
 * A request as a binding hands it over.
 * @public
 */
export interface HttpRequest {
  method: string;
  /** Path and query (`/v1/transit/keys?list=true`), or an absolute URL. */
  url: string;
  /** Header value by lower-case name. */
  headers: HeaderLookup;
  /**
   * Read the body; must fail with a `TransitError` `payload_too_large` past
   * `limit` bytes. May return an already-parsed JSON object (a body parser
   * ran first). Absent: no body.
   */
  body?: (limit: number) => Promise<Uint8Array | string | Record<string, unknown> | undefined>;
  /**
   * The body as a byte stream, for the streaming routes (encrypt-stream,
   * decrypt-stream); called at most once, after the token and ACL checks.
   * It must error (never end) when the body is cut short. Absent: those
   * routes read `body` (buffered, within `maxRequestBytes`).
   */
  stream?: () => ReadableStream<Uint8Array>;
  /** The client's address and port, for audit entries (`remote_address`, `remote_port`). */
  remoteAddress?: string;
  remotePort?: number;
}

/** Where unexpected errors are reported. @public */
export interface Logger {
  error(message: string, error?: unknown): void;
}

/** Resolved options of the dispatcher. @internal */
export interface DispatchOptions {
  mount: string;
  apiPrefix: string;
  maxRequestBytes: number;
  /** Largest body of a streaming route (`Infinity`: unlimited). */
  maxStreamBytes: number;
  jsonLimits: ResolvedJsonLimits;
  unknownFields: UnknownFields;
  auth: boolean;
  logger: Logger;
  version: string;
  /** Health's `cluster_name` and `cluster_id` as the handler's options give them (they win over the node's). */
  clusterName: string | undefined;
  clusterId: string | undefined;
  /** Health's `cluster_id` when neither the options nor the node give one: random per handler. */
  fallbackClusterId: string;
  /** The time source of health's `server_time_utc`. */
  clock: Clock;
  /** Serves `sys/metrics` and records each request (metrics.ts); absent: neither. */
  metrics?: MetricsExporter;
  /** `sys/metrics` without a token, also while sealed (Vault's `unauthenticated_metrics_access`). */
  unauthenticatedMetrics?: boolean;
}

/** What a request's handling learnt, for the error reply and the request metrics. */
interface Seen {
  read: boolean;
  route?: Route;
}

/** The dispatcher: `undefined` only with `fallthrough`, for a path outside the mount. @public */
export type Dispatch = (
  request: HttpRequest,
  options?: { fallthrough?: boolean },
) => Promise<HttpReply | undefined>;

/**
 * Build the dispatcher for a set of services.
 * @internal
 */
export function createDispatch(services: HandlerServices, o: DispatchOptions): Dispatch {
  const source = serviceSource(services);
  const { resolve, aclMount } = routeFront(source, o);

  /** Audit a refused token or ACL check (as Vault does), then throw its error. */
  const refused = (
    served: ServedBy,
    s: Omit<AuditStart, 'operation' | 'data' | 'transitMount'>,
    e: unknown,
  ): Promise<never> => auditRefused(served.audit, { ...s, transitMount: aclMount.join('/') }, e);
  /** The audit request entry's facts (`data`: the fields, or the query of a streaming row). */
  const start = (
    requestId: string,
    route: Route,
    operation: AclOperation,
    aclPath: string,
    token: TokenContext | undefined,
    req: HttpRequest,
    fields: Record<string, unknown> | URLSearchParams,
  ): AuditStart => ({
    ...{ requestId, route, operation, aclPath, transitMount: aclMount.join('/'), token, req },
    data: fields instanceof URLSearchParams ? queryFields(fields) : fields,
  });

  const run = async (
    req: HttpRequest,
    requestId: string,
    fallthrough: boolean,
    seen: Seen,
  ): Promise<HttpReply | undefined> => {
    const r = resolve(req, fallthrough, seen);
    if (!('route' in r) || !r.route) {
      // No row for the path or method: while sealed that is a 503, as Vault
      // checks the seal before its router.
      if ('sealedFirst' in r && r.sealedFirst) {
        const check = source.refuseIfSealed();
        if (check instanceof Promise) await check;
      }
      return r.reply;
    }
    const { route, params, query, verb, method, aclPath, deferAcl } = r;
    seen.route = route;

    const forRequest = source.forRequest(route);
    const served = forRequest instanceof Promise ? await forRequest : forRequest;
    let operation: AclOperation = 'update';
    let token: TokenContext | undefined;
    // A refused token or ACL check is audited too, as Vault (audit-dispatch.ts);
    // `refused` and `start` take this request's facts as arguments, so the hot
    // path makes no closure over its locals.
    try {
      // Neither step takes a microtask turn when the token and its ACL are cached.
      const authed = authenticate(served, route, req.headers, o.auth);
      token = authed instanceof Promise ? await authed : authed;
      if (deferAcl) await authorizeSomeCompletion(served, route, aclPath, token);
      else {
        const allowed = authorize(served, route, params, aclPath, token);
        operation = allowed instanceof Promise ? await allowed : allowed;
      }
    } catch (e) {
      return refused(served, { requestId, route, aclPath, req, token }, e);
    }
    // Audit (audit-dispatch.ts): one check when no device is enabled.
    const audit = served.audit?.active && !notAudited(route) ? served.audit : undefined;
    if (req.headers('x-vault-wrap-ttl')) {
      const e = new TransitError('invalid_request', 'response wrapping is not supported');
      if (audit)
        await auditInvalid(
          audit,
          start(requestId, route, operation, aclPath, token, req, query),
          e,
        );
      throw e;
    }
    if (route.stream && unframed(req)) {
      const e = new TransitError(
        'invalid_request',
        'streaming needs HTTP/1.1: an HTTP/1.0 reply has no chunked framing, so a failure after it began could not be told from its end',
      );
      if (audit)
        await auditInvalid(
          audit,
          start(requestId, route, operation, aclPath, token, req, query),
          e,
        );
      throw e;
    }
    if (route.stream) {
      const ctx = { operation, token };
      const trail = audit
        ? await auditRequest(audit, start(requestId, route, operation, aclPath, token, req, query))
        : undefined;
      const services = source.forRequest.bind(source, route);
      let streamed: HttpReply;
      try {
        const guard = await streamGuard({ services, route, params, aclPath, token });
        streamed = await streamReply(
          { route, served, params, query, req, requestId, ctx, guard },
          o,
        );
      } catch (e) {
        // Refused before the first byte: the response entry carries the error, as for JSON rows.
        if (trail) await auditError(trail, e);
        throw e;
      }
      if (trail) await auditResponse(trail, { status: streamed.status, streamed: true });
      return streamed;
    }
    let raw: Record<string, unknown> | undefined;
    let parsed: ReturnType<Route['parse']>;
    try {
      raw = await rawFields(req.body, method === 'POST', query, o, req.headers('content-type'));
      parsed = route.parse(params, raw, route.ignoreUnknown ? 'warn' : o.unknownFields);
      route.fillBody?.(parsed.body);
    } catch (e) {
      // A body or field refused after the token and ACL checks: logged as Vault logs a
      // request its backend refuses (a request entry, then the error).
      if (audit)
        await auditInvalid(
          audit,
          start(requestId, route, operation, aclPath, token, req, raw ?? {}),
          e,
        );
      throw e;
    }
    const { body, unknown } = parsed;
    if (deferAcl) {
      const tail = aclTail(route, params, body);
      const fullPath = [aclPath, ...tail].join('/');
      try {
        operation =
          route.aclUrlGrants && tail.length > 0
            ? await authorizeNarrowed(served, route, params, aclPath, fullPath, token)
            : await authorize(served, route, params, fullPath, token);
      } catch (e) {
        return refused(served, { requestId, route, aclPath, req, token }, e);
      }
    }
    const warnings = unknown.length > 0 ? [unknownFieldsWarning(unknown)] : NO_WARNINGS;
    const trail = audit
      ? await auditRequest(audit, start(requestId, route, operation, aclPath, token, req, body))
      : undefined;
    let result: unknown;
    try {
      result = await route.call(
        served,
        { path: params, body },
        { operation, token, metrics: o.metrics },
      );
    } catch (e) {
      if (trail) await auditError(trail, e);
      throw e;
    }
    const details = redactInternalItems(result);
    if (details.length > 0) {
      o.logger.error(
        `transitkit/http: internal error in ${details.length} batch item(s) (request_id ${requestId})`,
        new Error(details.join('; ')),
      );
    }
    if (trail) await auditResponse(trail, result);
    return successReply(route.reply, route.batchStatus, requestId, result, warnings, body, {
      head: verb === 'HEAD',
      clock: o.clock,
      server: o,
    });
  };

  const handle = async (
    req: HttpRequest,
    options: { fallthrough?: boolean },
    seen: Seen,
  ): Promise<HttpReply | undefined> => {
    const requestId = globalThis.crypto.randomUUID();
    try {
      return await run(req, requestId, options.fallthrough === true, seen);
    } catch (e) {
      const known = errorReply(e, seen.read);
      if (known) return jsonReply(known.status, known.body);
      // The detail (a barrier message, an entry path, a directory) goes to the log only.
      const internal = e instanceof TransitError && e.code === 'internal';
      o.logger.error(
        `transitkit/http: ${internal ? 'internal' : 'unexpected'} error (request_id ${requestId})`,
        e,
      );
      const r = internalReply(requestId);
      const reply = jsonReply(r.status, r.body);
      Object.assign(reply.headers, r.headers);
      return reply;
    }
  };

  // Request metrics (metrics.ts): one clock pair and one observation per
  // request when the handler has metrics; the plain handler otherwise.
  const record = o.metrics ? requestRecorder(o.metrics) : undefined;
  if (!record) return (req, options = {}) => handle(req, options, { read: false });
  return async (req, options = {}) => {
    const seen: Seen = { read: false };
    const start = performance.now();
    const reply = await handle(req, options, seen);
    if (reply) {
      const method = seen.route?.method ?? req.method.toUpperCase();
      record(seen.route?.path, method, reply.status, (performance.now() - start) / 1000);
    }
    return reply;
  };
}
