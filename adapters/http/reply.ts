/**
 * Successful responses: Vault's envelope (reference §0.3) —
 * `{"request_id","lease_id":"","renewable":false,"lease_duration":0,"data",
 * "wrap_info":null,"warnings","auth":null}` — and the success codes of §9:
 * 200 with the envelope, 204 with no body where Vault's handler returns
 * nothing, 404 `{"errors":[]}` for an empty list.
 *
 * Runtime-neutral.
 * @module
 */
import type { Clock } from '../../src/clock.js';
import { warningsOf } from '../../src/result-meta.js';
import { type HealthDefaults, type HealthState, healthReply } from './health.js';
import { jsonText } from './json-text.js';
import type { TextResult } from './metrics.js';
import type { ReplyKind } from './route.js';
import { batchReplyStatus, errorsBody } from './status.js';

/** A response, before a binding writes it. @public */
export interface HttpReply {
  status: number;
  headers: Record<string, string>;
  /** JSON text; `undefined` for no body (204, HEAD, or a streamed reply). */
  body: string | undefined;
  /**
   * The body of a streaming route's 200 (`application/octet-stream`),
   * pulled by the binding with backpressure. If it errors, the binding must
   * abort the response (reset the connection or cut the chunked body), never
   * end it cleanly; if the client goes away, the binding cancels it.
   */
  stream?: ReadableStream<Uint8Array>;
}

/** Headers of every JSON response (hvac compares the content type exactly). @internal */
export const jsonHeaders = (): Record<string, string> => ({
  'content-type': 'application/json',
  'cache-control': 'no-store',
});

/** A JSON response. @internal */
export const jsonReply = (status: number, body: string | undefined): HttpReply => ({
  status,
  headers: jsonHeaders(),
  body,
});

/**
 * Statuses that carry no body (RFC 9110: 204 and 205, and 304), whatever a
 * reply holds: a custom `sys/health` code can be one of them. @internal
 */
export const bodyless = (status: number): boolean =>
  status === 204 || status === 205 || status === 304;

/** 204 No Content. @internal */
export const noContent = (): HttpReply => ({
  status: 204,
  headers: { 'cache-control': 'no-store' },
  body: undefined,
});

/**
 * Vault's standard envelope.
 * @param requestId - the handler's `randomUUID()` (hex digits and hyphens:
 *   written between quotes as it is, with no scan for escapes)
 * @internal
 */
export function envelope(
  requestId: string,
  parts: {
    data?: unknown;
    warnings?: readonly string[];
    auth?: unknown;
    top?: object;
    lease?: { lease_id: string; renewable: boolean; lease_duration: number };
  },
): string {
  if (parts.top === undefined && parts.lease === undefined) {
    // The common shape, written directly: only `data`, `warnings` and `auth`
    // vary, each serialised once (json-text.ts: JSON.stringify's text, cheaper for flat data).
    const data = parts.data === undefined ? 'null' : (jsonText(parts.data) ?? 'null');
    const w = parts.warnings;
    const warnings = w && w.length > 0 ? JSON.stringify(w) : 'null';
    const auth = parts.auth === undefined ? 'null' : (jsonText(parts.auth) ?? 'null');
    return `{"request_id":"${requestId}","lease_id":"","renewable":false,"lease_duration":0,"data":${data},"wrap_info":null,"warnings":${warnings},"auth":${auth}}`;
  }
  return JSON.stringify({
    ...(parts.top ?? {}),
    request_id: requestId,
    lease_id: parts.lease?.lease_id ?? '',
    renewable: parts.lease?.renewable ?? false,
    lease_duration: parts.lease?.lease_duration ?? 0,
    data: parts.data ?? null,
    wrap_info: null,
    warnings: parts.warnings && parts.warnings.length > 0 ? parts.warnings : null,
    auth: parts.auth ?? null,
  });
}

/** Vault's text for a started tidy (its asynchronous form). @internal */
export const TIDY_WARNING =
  "Tidy operation successfully started. Any information from the operation will be printed to transitkit's server logs.";

/** Warnings a result carries: beside it (`warningsOf`) or, for lease results, in it. */
function warningsIn(result: unknown): readonly string[] {
  if (typeof result !== 'object' || result === null) return NO_WARNINGS;
  const beside = warningsOf(result);
  const inner = (result as { warnings?: unknown }).warnings;
  if (!Array.isArray(inner)) return beside;
  return [...beside, ...inner.filter((w): w is string => typeof w === 'string')];
}

/** No warnings (shared, never written to). @internal */
export const NO_WARNINGS: readonly string[] = Object.freeze([]);

/** A result without its `warnings` field (they go to the envelope). */
function withoutWarnings(result: unknown): unknown {
  if (typeof result !== 'object' || result === null || !('warnings' in result)) return result;
  const { warnings: _, ...rest } = result as Record<string, unknown>;
  return rest;
}

/** What a reply needs from the request and the handler besides the result. @internal */
export interface ReplyContext {
  /** The request was a HEAD: the reply has no body. */
  head: boolean;
  /** The handler's clock (health's `server_time_utc`). */
  clock: Clock;
  /** Health's defaults for `version`, `cluster_name`, `cluster_id`. */
  server: HealthDefaults;
}

/**
 * The response for a row's result.
 * @param requestId - the handler's `randomUUID()` (see {@link envelope})
 * @param warnings - the request's own warnings (ignored fields)
 * @param body - the request's fields (`partial_failure_response_code`, `sync`, health's codes)
 * @internal
 */
export function successReply(
  kind: ReplyKind,
  batchStatus: boolean,
  requestId: string,
  rawResult: unknown,
  warnings: readonly string[],
  body: Readonly<Record<string, unknown>>,
  ctx: ReplyContext,
): HttpReply {
  const inResult = warningsIn(rawResult);
  const all =
    inResult.length === 0
      ? warnings
      : warnings.length === 0
        ? inResult
        : [...warnings, ...inResult];
  const result = withoutWarnings(rawResult);
  switch (kind) {
    case 'none':
      return all.length === 0
        ? noContent()
        : jsonReply(200, envelope(requestId, { warnings: all }));
    case 'list': {
      const keys = (result as { keys?: unknown[] } | undefined)?.keys;
      if (!keys || keys.length === 0) return jsonReply(404, errorsBody([]));
      return jsonReply(200, envelope(requestId, { data: result, warnings: all }));
    }
    case 'auth':
      return jsonReply(200, envelope(requestId, { auth: result, warnings: all }));
    case 'legacy':
      return jsonReply(
        200,
        envelope(requestId, { data: result, warnings: all, top: result as object }),
      );
    case 'lease':
      return jsonReply(
        200,
        envelope(requestId, {
          lease: result as { lease_id: string; renewable: boolean; lease_duration: number },
          warnings: all,
        }),
      );
    case 'revoke':
      if (body.sync === false) return { ...noContent(), status: 202 };
      return all.length === 0
        ? noContent()
        : jsonReply(200, envelope(requestId, { warnings: all }));
    case 'health': {
      // Vault's health body is bare; a bad code is 400 `{"errors":[]}` (HEAD too).
      const h = healthReply(rawResult as HealthState, body, ctx.clock.now(), ctx.server);
      if (!h.body) return jsonReply(400, errorsBody([]));
      return jsonReply(h.status, ctx.head ? undefined : JSON.stringify(h.body));
    }
    case 'raw':
      return jsonReply(200, JSON.stringify(result ?? {}));
    case 'text': {
      const { contentType, text } = result as TextResult;
      return {
        status: 200,
        headers: { 'content-type': contentType, 'cache-control': 'no-store' },
        body: text,
      };
    }
    case 'accepted':
      return jsonReply(
        202,
        envelope(requestId, { data: result, warnings: [...all, TIDY_WARNING] }),
      );
    case 'data': {
      if (result === undefined || result === null) {
        return all.length === 0
          ? noContent()
          : jsonReply(200, envelope(requestId, { warnings: all }));
      }
      if (!batchStatus) return jsonReply(200, envelope(requestId, { data: result, warnings: all }));
      const { status, warning } = batchReplyStatus(rawResult, body.partial_failure_response_code);
      const w = warning ? [...all, warning] : all;
      return jsonReply(status, envelope(requestId, { data: result, warnings: w }));
    }
  }
}
