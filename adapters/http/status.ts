/**
 * The one place HTTP statuses are decided (every error code maps to its
 * status here, and nowhere else):
 *
 * - {@link STATUS}: `ErrorCode` → status, checked exhaustive by the compiler;
 * - {@link ROUTE_STATUS}: the router's own outcomes (no route, wrong method);
 * - {@link errorReply}: `{"errors":[msg]}` bodies; a `not_found` on a read is
 *   Vault's bare 404 `{"errors":[]}`; an `internal` error, and anything that
 *   is not a `TransitError`, is logged by the caller and answered with the
 *   generic {@link internalReply} (its message may name storage entries or
 *   directories);
 * - {@link batchReplyStatus}: Vault's encrypt/decrypt batch rule.
 *
 * Runtime-neutral.
 * @module
 */
import type { ErrorCode } from 'transitkit';
import { TransitError } from '../../src/errors.js';
import { batchErrorCodes } from '../../src/result-meta.js';

/**
 * Error code → HTTP status. `unsupported_operation` is a key or mode that
 * cannot do the operation (a caller's mistake: 400, as Vault's transit
 * answers); `conflict` a lost concurrent write (409, retry); `standby` and
 * `sealed` 503.
 * @public
 */
export const STATUS = {
  invalid_request: 400,
  not_found: 404,
  permission_denied: 403,
  unsupported_operation: 400,
  conflict: 409,
  sealed: 503,
  standby: 503,
  payload_too_large: 413,
  internal: 500,
} as const satisfies Record<ErrorCode, number>;

/** The router's outcomes and their messages (Vault's texts). @internal */
export const ROUTE_STATUS = {
  unsupportedPath: { status: 404, message: 'unsupported path' },
  unsupportedOperation: { status: 405, message: 'unsupported operation' },
  badPath: { status: 400, message: 'invalid request path' },
} as const;

/** A JSON error body. @internal */
export const errorsBody = (messages: readonly string[]): string =>
  JSON.stringify({ errors: messages });

/**
 * Status and body for a thrown value. `undefined` means "not ours to describe"
 * (an `internal` error, or not a `TransitError`): the caller logs it and
 * answers {@link internalReply}.
 * @internal
 */
export function errorReply(
  e: unknown,
  isRead: boolean,
): { status: number; body: string } | undefined {
  if (!(e instanceof TransitError) || e.code === 'internal') return undefined;
  const status = STATUS[e.code];
  if (e.code === 'not_found' && isRead) return { status, body: errorsBody([]) };
  return { status, body: errorsBody([e.message]) };
}

/**
 * The answer to an `internal` error or an unexpected failure: no detail
 * reaches the client, only the request id under which the server logged it —
 * as a second `errors` line (Vault clients show every line; hvac raises its
 * `InternalServerError` as for any 500) and in the `X-Request-Id` header.
 * @internal
 */
export function internalReply(requestId: string): {
  status: number;
  body: string;
  headers: Record<string, string>;
} {
  return {
    status: 500,
    body: errorsBody(['internal error', `request id: ${requestId}`]),
    headers: { 'x-request-id': requestId },
  };
}

/**
 * Replace the message of every batch item that failed with an `internal`
 * error by `internal error` (as {@link internalReply} does for a whole
 * request), in place; returns the replaced messages, for the server log.
 * Failed items are the ones with a non-empty `error`, in the order of
 * `batchErrorCodes`.
 * @internal
 */
export function redactInternalItems(result: unknown): string[] {
  if (typeof result !== 'object' || result === null || !('batch_results' in result)) return [];
  const codes = batchErrorCodes(result);
  const items = (result as { batch_results: unknown }).batch_results;
  if (!codes.includes('internal') || !Array.isArray(items)) return [];
  const out: string[] = [];
  let k = 0;
  for (const item of items) {
    const error = typeof item === 'object' && item !== null ? (item as Item).error : undefined;
    if (typeof error !== 'string' || error === '') continue;
    if (codes[k++] !== 'internal' || error === 'internal error') continue;
    out.push(error);
    (item as Item).error = 'internal error';
  }
  return out;
}

type Item = { error?: unknown };

/**
 * Vault's batch status for encrypt and decrypt (`batchRequestResponse`): any
 * failed item that is the caller's fault → 400, else any internal failure →
 * 500; when at least one item succeeded, `partial_failure_response_code`
 * replaces it, and an out-of-range value only adds a warning. The body stays
 * the full envelope with `batch_results`. Vault accepts 1..599; we accept
 * 200..599, since below 200 no HTTP stack (Go's included) can send a body.
 * @internal
 */
export function batchReplyStatus(
  result: unknown,
  partialCode: unknown,
): { status: number; warning?: string } {
  if (typeof result !== 'object' || result === null || !('batch_results' in result)) {
    return { status: 200 };
  }
  const codes = batchErrorCodes(result);
  if (codes.length === 0) return { status: 200 };
  const items = (result as { batch_results: unknown[] }).batch_results.length;
  const userError = codes.some((c) => STATUS[c] < 500);
  let status = userError ? 400 : 500;
  if (typeof partialCode === 'number' && codes.length < items) {
    if (partialCode < 200 || partialCode > 599) {
      return {
        status,
        warning: `invalid HTTP response code override from partial_failure_response_code, reverting to ${status}`,
      };
    }
    status = partialCode;
  }
  return { status };
}
