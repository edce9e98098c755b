/**
 * Streaming for the Node binding (node.ts, and through it Express and Koa):
 * a request body as a WHATWG `ReadableStream`, and a streamed reply written
 * to a `ServerResponse`, both with backpressure and both freeing everything
 * when either side goes away.
 *
 * - The body stream pauses the request when its queue (64 KiB) is full and
 *   resumes it when pulled; a request that closes or fails before its end
 *   errors the stream (never a clean end, so a cut upload cannot be
 *   encrypted as if it were whole). Cancelling it stops reading.
 * - The reply is written chunk by chunk, waiting for `drain` when the socket
 *   buffer is full. If the reply stream errors after the 200 went out, the
 *   response is aborted: everything written reaches the client, then the
 *   connection ends without the chunked terminator (an incomplete body, never
 *   a clean end) while the rest of the request is drained. If the client goes
 *   away, the reply stream is cancelled.
 *
 * No `node:*` import (structural types), as the rest of the binding.
 * @module
 */
import { TransitError } from '../../src/errors.js';
import { type Drainable, type LingerSocket, lingerClose } from './linger.js';
import type { NodeRequestLike, NodeResponseLike } from './node.js';
import type { HttpReply } from './reply.js';
import { abandonPushed, type PushedBody, type PushSource } from './stream-push.js';

type Bytes = Uint8Array;

const ENCODER = /* @__PURE__ */ new TextEncoder();
/** Bytes queued from the request before it is paused. */
const BODY_QUEUE_BYTES = 256 * 1024;

const cut = () => new TransitError('invalid_request', 'request body was not fully received');

/**
 * A Node request body as a byte stream.
 * @internal
 */
export function nodeBodyStream(req: NodeRequestLike): ReadableStream<Bytes> {
  const source = nodePushSource(req);
  return new ReadableStream<Bytes>(
    {
      start(controller) {
        source.start({
          data(bytes) {
            controller.enqueue(bytes);
            if ((controller.desiredSize ?? 0) <= 0) source.pause();
          },
          end: () => controller.close(),
          error: (e) => controller.error(e),
        });
      },
      pull() {
        source.resume();
      },
      cancel() {
        source.stop();
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark: BODY_QUEUE_BYTES }),
  );
}

/**
 * A Node request body delivered by push (stream-push.ts): each `data` event
 * straight to the coder, `pause`/`resume` for backpressure. A request that
 * closes or fails before its end is an error (never an end).
 * @internal
 */
export function nodePushSource(req: NodeRequestLike): PushSource {
  let detach = () => {};
  return {
    start(h) {
      if (req.readableEnded) {
        h.end();
        return;
      }
      const onData = (c: unknown) =>
        h.data(typeof c === 'string' ? ENCODER.encode(c) : (c as Bytes));
      const onEnd = () => {
        detach();
        h.end();
      };
      const onError = () => {
        detach();
        h.error(cut());
      };
      detach = () => {
        req.off('data', onData);
        req.off('end', onEnd);
        req.off('error', onError);
        req.off('close', onError);
      };
      req.on('data', onData);
      req.on('end', onEnd);
      req.on('error', onError);
      req.on('close', onError); // closed before 'end': the client went away
    },
    pause: () => req.pause(),
    resume: () => req.resume?.(),
    stop() {
      detach();
      req.pause();
    },
  };
}

/**
 * A body a body parser already consumed: bytes (`express.raw()`) are the
 * body; text or parsed JSON cannot be the exact bytes, so the request is
 * refused here, before anything is sent (encrypt's header would otherwise
 * start a 200 that the body's failure then cuts).
 * @throws TransitError `invalid_request` for a body that is not bytes.
 * @internal
 */
export function consumedBodyStream(body: Bytes | string | object): ReadableStream<Bytes> {
  if (!(body instanceof Uint8Array)) {
    throw new TransitError(
      'invalid_request',
      'the body was parsed by a body parser before transitkit: mount the handler before it, or use a raw parser',
    );
  }
  return new ReadableStream<Bytes>({
    start(c) {
      if (body.byteLength > 0) c.enqueue(body);
      c.close();
    },
  });
}

/** The response members the stream writer needs beyond {@link NodeResponseLike}. */
interface StreamingResponse extends NodeResponseLike {
  write(chunk: Bytes, callback?: (error?: Error | null) => void): boolean;
  on(event: string, listener: () => void): unknown;
  off(event: string, listener: () => void): unknown;
  destroy(error?: Error): unknown;
  readonly writableFinished?: boolean;
}

const canStream = (res: NodeResponseLike): res is StreamingResponse => {
  const r = res as Partial<StreamingResponse>;
  return (
    typeof r.write === 'function' &&
    typeof r.on === 'function' &&
    typeof r.off === 'function' &&
    typeof r.destroy === 'function'
  );
};

/**
 * Abort a response after its 200 (never a clean end): what was written still
 * reaches the client, then the connection ends without the chunked body's
 * terminator, and the rest of the request is drained, lingering (./linger.ts).
 * Destroying the socket under the unread request body instead would reset the
 * connection and throw away authenticated output the client had not read yet.
 * A response without a socket of its own is destroyed.
 */
function abortResponse(res: StreamingResponse): void {
  const r = res as StreamingResponse & { socket?: Partial<LingerSocket> | null; req?: unknown };
  const socket = r.socket;
  const lingers =
    socket !== null &&
    socket !== undefined &&
    typeof socket.end === 'function' &&
    typeof socket.once === 'function' &&
    typeof socket.removeAllListeners === 'function';
  if (!lingers || socket.destroyed) {
    res.destroy();
    return;
  }
  const req = r.req as Partial<Drainable> | undefined;
  const drainable =
    req !== undefined &&
    typeof req.on === 'function' &&
    typeof req.removeAllListeners === 'function' &&
    typeof req.resume === 'function';
  lingerClose(socket as LingerSocket, drainable ? (req as Drainable) : undefined);
}

type WriteFn = (...args: never[]) => unknown;
type HttpModule = { OutgoingMessage: { prototype: { write: WriteFn } } };
type NetModule = { Socket: { prototype: { _write: WriteFn; _writev?: WriteFn } } };
type Builtins = { getBuiltinModule?: (id: string) => unknown };
const builtins = (globalThis as { process?: Builtins }).process;
const nodeHttp = builtins?.getBuiltinModule?.('node:http') as HttpModule | undefined;
const nodeNet = builtins?.getBuiltinModule?.('node:net') as NetModule | undefined;

/**
 * Whether a write's callback means the bytes have left this process's
 * hands: Node's own response `write` (no middleware's wrapper, which may
 * call back before it is done with a piece) over a socket that writes
 * through its handle (not a stream that may keep a piece by reference).
 * Only then are written pieces recycled (output-pool.ts).
 * @internal
 */
export function writesThrough(res: NodeResponseLike): boolean {
  if (nodeHttp === undefined || nodeNet === undefined) return false;
  if (res.write !== (nodeHttp.OutgoingMessage.prototype.write as unknown)) return false;
  type RawSocket = { _write?: unknown; _writev?: unknown; _handle?: unknown };
  const socket: unknown = (res as { socket?: unknown }).socket;
  const base = nodeNet.Socket.prototype;
  return (
    socket instanceof (nodeNet.Socket as unknown as new () => RawSocket) &&
    socket._write === base._write &&
    socket._writev === base._writev &&
    typeof socket._handle === 'object' &&
    socket._handle !== null
  );
}

/**
 * Write a pushed reply (stream-push.ts): status and headers, then every
 * piece as the coder produces it; `drain` and `close` go back to it. A
 * failure after the 200 aborts the response (never a clean end).
 * @internal
 */
export function writeNodePush(res: NodeResponseLike, reply: HttpReply, body: PushedBody): void {
  if (!canStream(res)) {
    abandonPushed(body);
    res.statusCode = 500;
    res.end();
    return;
  }
  res.statusCode = reply.status;
  for (const k in reply.headers) res.setHeader(k, reply.headers[k] as string);
  let control: { drain(): void; gone(): void } | undefined;
  const onDrain = () => control?.drain();
  const onClose = () => {
    res.off('drain', onDrain);
    res.off('close', onClose);
    if (!res.writableFinished) control?.gone();
  };
  res.on('drain', onDrain);
  res.on('close', onClose);
  const recycle = writesThrough(res);
  control = body({
    write: (b, written) =>
      recycle && written
        ? res.write(b, (e?: Error | null) => {
            if (!e) written();
          })
        : res.write(b),
    end: () => res.end(),
    abort: () => abortResponse(res),
  });
}

/**
 * Write a streamed reply (status and headers first, then the chunks as they
 * come). Resolves when the response ended, was aborted, or the client left.
 * @internal
 */
export async function writeNodeStream(
  res: NodeResponseLike,
  reply: HttpReply & { stream: ReadableStream<Bytes> },
): Promise<void> {
  const reader = reply.stream.getReader();
  if (!canStream(res)) {
    await reader.cancel(new TypeError('the response cannot be streamed to'));
    res.statusCode = 500;
    res.end();
    return;
  }
  res.statusCode = reply.status;
  for (const k in reply.headers) res.setHeader(k, reply.headers[k] as string);
  let gone = false;
  let wake: (() => void) | undefined;
  const onClose = () => {
    if (res.writableFinished) return;
    gone = true;
    reader.cancel(new TransitError('invalid_request', 'the client went away')).catch(() => {});
    wake?.();
  };
  const onDrain = () => wake?.();
  res.on('close', onClose);
  res.on('drain', onDrain);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (gone) return;
      if (done) break;
      if (!res.write(value)) {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
        if (gone) return;
      }
    }
    res.end();
  } catch {
    // The 200 is out: abort the response rather than end it cleanly.
    abortResponse(res);
  } finally {
    res.off('close', onClose);
    res.off('drain', onDrain);
  }
}
