/**
 * The Koa binding: `app.use(handler.koa)`. Requests outside the transit mount
 * that no row serves go on to `next()`. If a body parser ran first, its
 * `ctx.request.rawBody` (or parsed `ctx.request.body`) is used; otherwise the
 * body is read from `ctx.req` with the size limit.
 *
 * A streamed reply (encrypt-stream, decrypt-stream) is written to `ctx.res`
 * by the Node binding's writer, with `ctx.respond = false`.
 *
 * Written against the few members of Koa's context it uses (no dependency on
 * Koa's types); headers are set before the body so Koa keeps the exact
 * `application/json` content type Vault clients compare against.
 * @module
 */
import type { Dispatch } from './dispatch.js';
import {
  type NodeRequestLike,
  type NodeResponseLike,
  nodeRequest,
  writeNodeReply,
} from './node.js';
import { abandonPushed, pushedBodyOf } from './stream-push.js';

/**
 * The parts of a Koa context the middleware uses.
 * @public
 */
export interface KoaContextLike {
  req: NodeRequestLike;
  /** Path and query, after any mount prefix was stripped (`koa-mount`). */
  url: string;
  request: { body?: unknown; rawBody?: unknown };
  status: number;
  body: unknown;
  set(field: string, value: string): void;
  /** The Node response: a streamed reply is written to it directly. */
  res?: NodeResponseLike;
  /** Set to `false` when the middleware wrote the response itself (a stream). */
  respond?: boolean;
}

/**
 * A Koa middleware.
 * @public
 */
export type KoaMiddleware = (ctx: KoaContextLike, next: () => Promise<unknown>) => Promise<void>;

/**
 * Wrap a dispatcher as Koa middleware.
 * @internal
 */
export function toKoaMiddleware(dispatch: Dispatch): KoaMiddleware {
  return async (ctx, next) => {
    const base = nodeRequest(ctx.req, () => ctx.request.rawBody ?? ctx.request.body);
    const reply = await dispatch({ ...base, url: ctx.url }, { fallthrough: true });
    if (!reply) {
      await next();
      return;
    }
    const pushed = pushedBodyOf(reply);
    if (reply.stream || pushed) {
      // Koa would pipe a stream and end it cleanly on error; the binding
      // writes it itself, so a failure after the 200 aborts the response.
      if (!ctx.res) {
        await reply.stream?.cancel();
        if (pushed) abandonPushed(pushed);
        throw new TypeError('transitkit/http: a streamed reply needs ctx.res');
      }
      ctx.respond = false;
      writeNodeReply(ctx.res, reply, ctx.req);
      return;
    }
    ctx.status = reply.status;
    if (reply.body === undefined) {
      ctx.body = null;
      ctx.status = reply.status;
      for (const [k, v] of Object.entries(reply.headers)) ctx.set(k, v);
    } else {
      for (const [k, v] of Object.entries(reply.headers)) ctx.set(k, v);
      ctx.body = reply.body;
    }
  };
}
