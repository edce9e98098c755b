/**
 * The Node binding: a `(req, res, next?)` handler for `node:http` servers and
 * for Express (`app.use(handler.node)`; Express strips its mount path from
 * `req.url`, so `app.use('/vault', handler.node)` serves `/vault/v1/…`).
 *
 * - With `next` (Express), a request outside the transit mount that no row
 *   serves goes on to the next middleware; without it, it gets a 404.
 * - The body is read from the stream with the size limit (413, and the
 *   connection is closed rather than drained); if a body parser ran first,
 *   its `req.body` (bytes, text or parsed JSON) is used instead.
 * - Only converts at the edge: no globals touched, no `node:*` import (the
 *   request and response are typed structurally).
 * - Node's HTTP parser rejects the `LIST` method before any handler runs;
 *   `GET ?list=true` means the same, and `createServer` from
 *   `transitkit/http/node` accepts `LIST` itself.
 * @module
 */
import { TransitError } from '../../src/errors.js';
import { concatChunks, tooLarge } from './body.js';
import type { Dispatch, HttpRequest } from './dispatch.js';
import { bodyless, type HttpReply } from './reply.js';
import {
  consumedBodyStream,
  nodeBodyStream,
  nodePushSource,
  writeNodePush,
  writeNodeStream,
} from './stream-node.js';
import { markUnframed, offerPush, pushedBodyOf } from './stream-push.js';

/**
 * The members of a `node:http` `IncomingMessage` (or Express request) the
 * binding uses; structural, so the declarations need no Node types.
 * @public
 */
export interface NodeRequestLike {
  method?: string | undefined;
  url?: string | undefined;
  headers: Record<string, string | string[] | undefined>;
  readableEnded?: boolean;
  complete?: boolean;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  off(event: string, listener: (...args: unknown[]) => void): unknown;
  pause(): unknown;
  /** Resume a paused body (the streaming routes' backpressure). */
  resume?(): unknown;
  /** `'1.0'` or `'1.1'` (`node:http`): the streaming routes refuse HTTP/1.0. */
  httpVersion?: string | undefined;
  /** The connection, for the audit entries' `remote_address` and `remote_port`. */
  socket?: { remoteAddress?: string | undefined; remotePort?: number | undefined } | null;
}

/**
 * The members of a `node:http` `ServerResponse` (or Express response) the binding uses.
 * @public
 */
export interface NodeResponseLike {
  statusCode: number;
  readonly headersSent: boolean;
  setHeader(name: string, value: string | number): unknown;
  /**
   * Status and headers in one call (merged with headers set before), used
   * when present: with `Content-Length` given, Node skips its own header
   * bookkeeping. Every `node:http` and Express response has it.
   */
  writeHead?(status: number, headers: Record<string, string | number>): unknown;
  end(chunk?: string): unknown;
  /**
   * The streaming routes also need `write`, `on`/`off` (`drain`, `close`)
   * and `destroy` (to abort a failed stream); every `node:http` response has them.
   */
  write?(chunk: Uint8Array): boolean;
  on?(event: string, listener: () => void): unknown;
  off?(event: string, listener: () => void): unknown;
  destroy?(error?: Error): unknown;
}

/**
 * A `node:http` request listener that is also Express middleware.
 * @public
 */
export type NodeHandler = (
  req: NodeRequestLike,
  res: NodeResponseLike,
  next?: (err?: unknown) => void,
) => void;

const ENCODER = /* @__PURE__ */ new TextEncoder();

/**
 * Read a Node request body with a byte limit (Content-Length checked first).
 * @throws TransitError `payload_too_large` past the limit; `invalid_request` when the client aborts.
 * @internal
 */
export function readNodeBody(req: NodeRequestLike, limit: number): Promise<Uint8Array> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(tooLarge());
  if (req.readableEnded) return Promise.resolve(new Uint8Array(0)); // already consumed upstream
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let total = 0;
    // Once settled, the listeners do nothing. They stay on the request after
    // its end (the request is done with; removing four listeners costs more
    // than leaving them) but are taken off when the body is refused, so the
    // paused rest of it is not collected.
    let settled = false;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onError);
    };
    const onData = (c: unknown) => {
      if (settled) return;
      const bytes = typeof c === 'string' ? ENCODER.encode(c) : (c as Uint8Array);
      total += bytes.byteLength;
      if (total > limit) {
        settled = true;
        cleanup();
        req.pause();
        reject(tooLarge());
        return;
      }
      chunks.push(bytes);
    };
    const onEnd = () => {
      if (settled) return;
      settled = true;
      resolve(concatChunks(chunks, total));
    };
    const onError = () => {
      if (settled) return;
      settled = true;
      cleanup();
      reject(new TransitError('invalid_request', 'request body was not fully received'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onError); // closed before 'end': the client went away
  });
}

/** A body already read by a body parser (Express `req.body`, Koa `ctx.request.body`). @internal */
export function preParsed(
  body: unknown,
): Uint8Array | string | Record<string, unknown> | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  if (typeof body === 'object' && !Array.isArray(body)) return body as Record<string, unknown>;
  return JSON.stringify(body);
}

/** The dispatcher's view of a Node request. @internal */
export function nodeRequest(req: NodeRequestLike, parsed?: () => unknown): HttpRequest {
  // A body a body parser already read to the end (Express `req.body`, Koa `ctx.request.body`).
  // Only a stream read to its end: `req.complete` (Node has received the message) is true
  // too when a parser set a placeholder `{}` for a type it skipped (body-parser 1.x,
  // koa-bodyparser) and left the real body unread in the stream.
  const consumed = () => {
    const pre = preParsed(parsed?.());
    return pre !== undefined && req.readableEnded ? pre : undefined;
  };
  const request: HttpRequest = {
    method: req.method ?? 'GET',
    url: req.url ?? '/',
    remoteAddress: req.socket?.remoteAddress,
    remotePort: req.socket?.remotePort,
    headers: (name) => {
      const v = req.headers[name];
      return Array.isArray(v) ? v[0] : v;
    },
    // Not `async`: the body's own promise is handed back (no extra turn to adopt it).
    body: (limit) => {
      const pre = consumed();
      return pre === undefined ? readNodeBody(req, limit) : Promise.resolve(pre);
    },
    stream: () => {
      const pre = consumed();
      return pre === undefined ? nodeBodyStream(req) : consumedBodyStream(pre);
    },
  };
  // The streaming rows drive their coder from the request's events
  // (stream-push.ts), unless a body parser has consumed the body.
  offerPush(request, () => (consumed() === undefined ? nodePushSource(req) : undefined));
  // An HTTP/1.0 reply is not chunked: a stream failing after its 200 could
  // not be told from its end, so the streaming rows refuse it up front.
  if (req.httpVersion === '1.0') markUnframed(request);
  return request;
}

/**
 * Write a reply to a Node response. An error answered before the request's
 * body was received (a 403 or 413 to an upload, a stream refused) closes the
 * connection instead of draining the rest of the body.
 * @internal
 */
export function writeNodeReply(
  res: NodeResponseLike,
  reply: HttpReply,
  req?: NodeRequestLike,
): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const pushed = pushedBodyOf(reply);
  if (pushed) {
    writeNodePush(res, reply, pushed);
    return;
  }
  if (reply.stream) {
    void writeNodeStream(res, { ...reply, stream: reply.stream });
    return;
  }
  // No Content-Length (and no body) where the status allows no body.
  if (reply.body !== undefined && bodyless(reply.status)) reply = { ...reply, body: undefined };
  const close = reply.status === 413 || (reply.status >= 400 && unreceivedBody(req));
  if (res.writeHead) {
    // One call for status and headers, Content-Length included; one end() with
    // the body. The reply's own header object is completed (each reply has a
    // fresh one) rather than copied.
    const headers: Record<string, string | number> = reply.headers;
    if (reply.body !== undefined) headers['content-length'] = utf8Length(reply.body);
    if (close) headers.connection = 'close';
    res.writeHead(reply.status, headers);
    if (reply.body === undefined) res.end();
    else res.end(reply.body);
    return;
  }
  res.statusCode = reply.status;
  for (const k in reply.headers) res.setHeader(k, reply.headers[k] as string);
  if (close) res.setHeader('connection', 'close');
  // A string body goes out in one write with the headers; Node sets Content-Length.
  if (reply.body === undefined) res.end();
  else res.end(reply.body);
}

/** A request whose body has not been read to the end (an early error answer). */
const unreceivedBody = (req: NodeRequestLike | undefined): boolean =>
  req !== undefined && !req.complete && !req.readableEnded;

/** Node's global `Buffer`, looked up (no `node:` import): its native `byteLength`. */
const NodeBuffer = (globalThis as { Buffer?: { byteLength(s: string, e: 'utf8'): number } }).Buffer;

/** Bytes of `s` in UTF-8 (lone surrogates count as U+FFFD, as Node encodes them). @internal */
export function utf8Length(s: string): number {
  return NodeBuffer ? NodeBuffer.byteLength(s, 'utf8') : utf8LengthPortable(s);
}

/** {@link utf8Length} in plain JavaScript, for a runtime without `Buffer`. @internal */
export function utf8LengthPortable(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 2; // a pair: 4 bytes for 2 code units
        i++;
      } else n += 2;
    } else n += 2;
  }
  return n;
}

/**
 * Wrap a dispatcher as a Node handler.
 * @internal
 */
export function toNodeHandler(dispatch: Dispatch): NodeHandler {
  return (req, res, next) => {
    const request = nodeRequest(req, () => (req as { body?: unknown }).body);
    dispatch(request, { fallthrough: next !== undefined }).then(
      (reply) => {
        if (reply) writeNodeReply(res, reply, req);
        else next?.();
      },
      (err: unknown) => {
        if (next) next(err);
        else writeNodeReply(res, { status: 500, headers: {}, body: undefined });
      },
    );
  };
}
