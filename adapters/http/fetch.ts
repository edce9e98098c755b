/**
 * The fetch binding: `(Request) => Promise<Response>` for Hono, Bun, Deno,
 * Cloudflare Workers and any WinterTC runtime (`export default { fetch:
 * handler.fetch }`, or `app.all('/v1/*', (c) => handler.fetch(c.req.raw))`).
 *
 * The body is streamed with the size limit (the streaming routes pipe
 * `request.body` through the transform and answer a `Response` whose body
 * is the output `ReadableStream`; a failure after the 200 errors it, and the
 * runtime aborts the response); statuses that cannot carry a
 * body (204, 205, 304) and HEAD get none. Uses only the platform's own
 * `Request`/`Response` (no globals are replaced).
 * @module
 */

import { concatChunks, tooLarge } from './body.js';
import type { Dispatch, HttpRequest } from './dispatch.js';
import { bodyless } from './reply.js';

/**
 * A fetch handler.
 * @public
 */
export type FetchHandler = (request: Request) => Promise<Response>;

/** Read a fetch body with a byte limit. @internal */
async function readFetchBody(request: Request, limit: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) throw tooLarge();
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return concatChunks(chunks, total);
}

/**
 * Wrap a dispatcher as a fetch handler.
 * @internal
 */
export function toFetchHandler(dispatch: Dispatch): FetchHandler {
  return async (request) => {
    const u = new URL(request.url);
    const req: HttpRequest = {
      method: request.method,
      url: u.pathname + u.search,
      headers: (name) => request.headers.get(name) ?? undefined,
      body: (limit) => readFetchBody(request, limit),
      stream: () => request.body ?? new ReadableStream<Uint8Array>({ start: (c) => c.close() }),
    };
    const reply = await dispatch(req);
    // A streamed reply: if it errors, the runtime aborts the response.
    if (reply?.stream) return new Response(reply.stream, reply);
    const status = reply?.status ?? 404;
    const empty = reply?.body === undefined || bodyless(status) || request.method === 'HEAD';
    return new Response(empty ? null : reply?.body, { status, headers: reply?.headers ?? {} });
  };
}
