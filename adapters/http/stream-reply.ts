/**
 * The reply of a streaming row (stream-routes.ts), after the dispatcher has
 * resolved the route and checked the sealed state, the token and the ACL —
 * so no byte of the body is read for a caller who may not stream.
 *
 * - Fields come from the query (a bad or, in `reject` mode, unknown one is a
 *   400 before the body is touched); ignored ones are reported in a
 *   `Warning` header, since there is no JSON envelope to carry them.
 * - The body (the binding's `stream()`, else its buffered `body()`) is piped
 *   through a byte counter (`maxStreamBytes`: a declared `Content-Length`
 *   past it is a 413 before anything is read; a body growing past it fails
 *   the stream) and then through the row's `TransformStream`.
 * - Nothing is answered until the transform's first output chunk exists (or
 *   it ended empty): for encrypt that is the envelope header, written only
 *   once the data key is wrapped; for decrypt the first authenticated
 *   plaintext chunk. A failure before that is thrown, so the dispatcher
 *   answers the usual JSON error (400, 403, 404, 413, …) — the same status
 *   and text `transit/encrypt` or `transit/decrypt` would give.
 * - After that the reply is 200 with the rest of the output as a
 *   `ReadableStream`, pulled by the binding (backpressure end to end: the
 *   body is read only as fast as the client takes the output). Pieces
 *   under 64 KiB (decrypt's 16 KiB chunks) are gathered into one. A failure
 *   later (tamper, truncation, a body cut short, the limit) errors that
 *   stream, and the binding must abort the response, never end it cleanly.
 *   A failed or cut body is never mistaken for its end: the transform is
 *   aborted, not closed, so encrypt cannot seal a truncated input.
 * - Cancelling the reply stream (the client went away) cancels the
 *   transform and the body, which frees both.
 * - A stream may run for hours, so what allowed it is checked again every
 *   {@link STREAM_RECHECK_MS} (on the handler's clock) while it runs: the
 *   sealed state, that the token still exists, and the ACL with the
 *   policies as they are now. A node sealed, a token revoked or expired, or
 *   a policy narrowed — here or through another instance on the same
 *   storage — aborts the response within that time; a token already gone
 *   when the stream starts is refused before it. (A limited-use token
 *   whose last use was this request is not looked up again: it was spent
 *   by this stream.)
 *
 * Runtime-neutral.
 * @module
 */
import type { TokenContext } from 'transitkit';
import { spent } from '../../src/auth/token-lookup.js';
import type { Clock } from '../../src/clock.js';
import { TransitError } from '../../src/errors.js';
import { coderOf } from '../../src/stream/transforms.js';
import { authorize } from './auth.js';
import { concatChunks, tooLarge } from './body.js';
import type { HttpRequest, Logger } from './dispatch.js';
import { queryFields, type UnknownFields, unknownFieldsWarning } from './params.js';
import type { HttpReply } from './reply.js';
import type { CallContext, Route, ServedBy } from './route.js';
import { pushReply, pushSourceOf } from './stream-push.js';

/** The handler options a stream reply reads. @internal */
export interface StreamOptions {
  /** Largest streamed body in bytes (`Infinity`: no limit). */
  maxStreamBytes: number;
  /** Largest buffered body, for a binding that cannot stream. */
  maxRequestBytes: number;
  unknownFields: UnknownFields;
  logger: Logger;
  /** The time of the re-checks. */
  clock: Clock;
}

/** Output pieces smaller than this are gathered into one write. */
const GATHER_BYTES = 64 * 1024;

/** How often a running stream's sealed state, token and ACL are checked again (ms). @internal */
export const STREAM_RECHECK_MS = 5_000;

/** Checks again what allowed a stream; throws what the dispatcher would have. @internal */
export type StreamGuard = () => Promise<void>;

/**
 * The re-check of a stream: the services again (503 when sealed), the
 * token's existence (403 once revoked or expired), the ACL on `aclPath`.
 * @internal
 */
export async function streamGuard(g: {
  services: () => ServedBy | Promise<ServedBy>;
  route: Route;
  params: Readonly<Record<string, string>>;
  aclPath: string;
  token: TokenContext | undefined;
}): Promise<StreamGuard> {
  const { token } = g;
  // A limited-use token whose last use was this request is revoked by it:
  // the only token not looked up again. Any other token must still exist,
  // now and at every re-check: one already gone when the stream starts (an
  // entry served from a cache a moment stale, a revocation racing the
  // request) is refused here, before the first byte.
  const tracked = token !== undefined && !spent.has(token);
  const alive = async (s: ServedBy) => {
    if (tracked && !(await s.tokens.exists(token.token))) {
      throw new TransitError('permission_denied', 'permission denied');
    }
  };
  await alive(await g.services());
  return async () => {
    const s = await g.services();
    if (token === undefined) return;
    await alive(s);
    await authorize(s, g.route, g.params, g.aclPath, token);
  };
}

/** One streaming request, as the dispatcher resolved it. @internal */
export interface StreamRequest {
  route: Route;
  served: ServedBy;
  params: Readonly<Record<string, string>>;
  query: URLSearchParams;
  req: HttpRequest;
  requestId: string;
  ctx: CallContext;
  /** Re-checked every {@link STREAM_RECHECK_MS} while the stream runs. */
  guard?: StreamGuard;
}

type Bytes = Uint8Array;

const ENCODER = /* @__PURE__ */ new TextEncoder();

/** A `Warning` header value (RFC 9111 §5.5 syntax, 299 "miscellaneous persistent warning"). */
function warningHeader(warnings: readonly string[]): string {
  return warnings
    .map((w) => {
      // Printable ASCII only, quotes escaped: a query parameter name cannot split the header.
      const text = w
        .replace(/[\\"]/g, (c) => `\\${c}`)
        .replace(/[^\x20-\x7e]/g, (c) => encodeURIComponent(c));
      return `299 transitkit "${text}"`;
    })
    .join(', ');
}

/** A stream of one chunk (or none). */
function oneChunk(bytes: Bytes): ReadableStream<Bytes> {
  return new ReadableStream<Bytes>({
    start(c) {
      if (bytes.byteLength > 0) c.enqueue(bytes);
      c.close();
    },
  });
}

/** The request body as a byte stream: the binding's own, or its buffered body. */
async function bodyOf(req: HttpRequest, maxRequestBytes: number): Promise<ReadableStream<Bytes>> {
  if (req.stream) return req.stream();
  const got = req.body ? await req.body(maxRequestBytes) : undefined;
  if (got === undefined) return oneChunk(new Uint8Array(0));
  if (got instanceof Uint8Array) return oneChunk(got);
  if (typeof got === 'string') return oneChunk(ENCODER.encode(got));
  throw new TransitError(
    'invalid_request',
    'the body of a stream must be raw bytes (application/octet-stream), not parsed JSON',
  );
}

/** Counts the body's bytes; past `max` the stream fails with `payload_too_large`. */
function byteLimit(max: number): TransformStream<Bytes, Bytes> {
  let total = 0;
  return new TransformStream<Bytes, Bytes>({
    transform(chunk, controller) {
      if (!(chunk instanceof Uint8Array)) {
        throw new TransitError('invalid_request', 'the body of a stream must be bytes');
      }
      total += chunk.byteLength;
      if (total > max) throw tooLarge();
      if (chunk.byteLength > 0) controller.enqueue(chunk);
    },
  });
}

const isTransform = (t: unknown): t is TransformStream<Bytes, Bytes> =>
  typeof t === 'object' &&
  t !== null &&
  (t as TransformStream).readable instanceof ReadableStream &&
  (t as TransformStream).writable instanceof WritableStream;

/** Whether an error is the caller's (answered as is), not one to log. */
const known = (e: unknown) => e instanceof TransitError && e.code !== 'internal';

/**
 * Run a streaming row: resolves with the 200 reply once the first output
 * chunk exists; rejects (for the dispatcher's JSON error) before that.
 * @internal
 */
export async function streamReply(r: StreamRequest, o: StreamOptions): Promise<HttpReply> {
  const { route, req, requestId } = r;
  const mode = route.ignoreUnknown ? 'warn' : o.unknownFields;
  const { body, unknown } = route.parse(r.params, queryFields(r.query), mode);
  const declared = Number(req.headers('content-length'));
  if (Number.isFinite(declared) && declared > o.maxStreamBytes) throw tooLarge();

  const transform = route.call(r.served, { path: r.params, body }, r.ctx);
  if (!isTransform(transform)) {
    throw new TransitError('internal', `${route.path} did not return a TransformStream`);
  }
  const headers: Record<string, string> = {
    'content-type': 'application/octet-stream',
    'cache-control': 'no-store',
    'x-request-id': requestId,
  };
  if (unknown.length > 0) headers.warning = warningHeader([unknownFieldsWarning(unknown)]);
  const logged = (e: unknown) => {
    if (!known(e)) {
      o.logger.error(
        `transitkit/http: stream failed after the reply began (request_id ${requestId})`,
        e,
      );
    }
    return e;
  };

  // The Node binding drives the row's coder itself (stream-push.ts); the
  // TransformStream, never written to, is dropped.
  const coder = coderOf(transform);
  const pushed = coder && pushSourceOf(req)?.();
  if (coder && pushed) {
    return pushReply({
      coder,
      source: pushed,
      maxStreamBytes: o.maxStreamBytes,
      clock: o.clock,
      recheckMs: STREAM_RECHECK_MS,
      ...(r.guard ? { guard: r.guard } : {}),
      failedLate: logged,
      headers,
    });
  }

  let source: ReadableStream<Bytes>;
  try {
    source = await bodyOf(req, o.maxRequestBytes);
  } catch (e) {
    await transform.writable.abort(e).catch(() => undefined);
    throw e;
  }
  const limited = Number.isFinite(o.maxStreamBytes)
    ? source.pipeThrough(byteLimit(o.maxStreamBytes))
    : source;
  const reader = limited.pipeThrough(transform).getReader();
  // Before the first output chunk a failure is an ordinary JSON error (the
  // pipe has already cancelled the body and aborted the transform).
  const first = await reader.read();

  let nextCheck = o.clock.now() + STREAM_RECHECK_MS;
  let ended = false;
  const output = new ReadableStream<Bytes>(
    {
      start(c) {
        if (first.done) c.close();
        else c.enqueue(first.value);
      },
      async pull(c) {
        let next: ReadableStreamReadResult<Bytes>;
        try {
          if (r.guard && o.clock.now() >= nextCheck) {
            nextCheck = o.clock.now() + STREAM_RECHECK_MS;
            await r.guard();
          }
          next = await reader.read();
          // Small pieces (decrypt releases 16 KiB chunks) go out gathered:
          // fewer writes and chunk headers on the wire.
          if (!next.done && next.value.byteLength < GATHER_BYTES) {
            const parts = [next.value];
            let size = next.value.byteLength;
            while (size < GATHER_BYTES) {
              const more = await reader.read();
              if (more.done) {
                ended = true;
                break;
              }
              parts.push(more.value);
              size += more.value.byteLength;
            }
            next = { done: false, value: concatChunks(parts, size) };
          }
        } catch (e) {
          // The transform and the body are released too.
          reader.cancel(e).catch(() => {});
          throw logged(e);
        }
        if (next.done) c.close();
        else {
          c.enqueue(next.value);
          if (ended) c.close();
        }
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  return { status: 200, headers, body: undefined, stream: output };
}
