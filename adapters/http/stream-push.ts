/**
 * The push path of a streaming row (encrypt-stream, decrypt-stream), for a
 * binding that receives the body as events and writes the response itself
 * — the Node binding (`node:http`, Express, Koa). The row's coder
 * (`src/stream/coders.ts`) runs synchronously inside each `data` event and
 * its output goes straight to the response: no WHATWG stream, no promise and
 * no extra copy per chunk. Output produced in one event leaves in one
 * socket write (Node corks a response's writes within a tick), and encrypt's
 * output pieces are recycled once the binding reports them written
 * (output-pool.ts).
 *
 * It keeps every rule of the stream path (stream-reply.ts):
 * - nothing is answered before the coder's first output (encrypt's envelope
 *   header; decrypt's first authenticated chunk) or its clean end; a
 *   failure before that rejects, so the dispatcher answers the usual JSON
 *   error;
 * - after the 200 a failure aborts the response (never a clean end) and is
 *   logged unless it is the caller's;
 * - the body is read only as fast as the client takes the output: the
 *   request is paused while the response is full, while the coder awaits
 *   (decrypt's key unwrap), while a re-check runs, and while more than
 *   {@link HOLD_BYTES} wait for the binding to attach;
 * - `maxStreamBytes`: the body failing past it is `payload_too_large`;
 * - a body cut short fails the stream (the coder never finishes, so encrypt
 *   cannot seal a truncated input);
 * - what allowed the stream is checked again every {@link STREAM_RECHECK_MS}.
 *
 * The binding's hooks are out of the public types ({@link offerPush},
 * {@link pushedBodyOf}), and any other binding takes the stream path.
 *
 * Runtime-neutral (the Node specifics are in stream-node.ts).
 * @module
 */
import type { Clock } from '../../src/clock.js';
import { asStreamError } from '../../src/stream/cobblestone.js';
import type { ByteCoder } from '../../src/stream/coders.js';
import { tooLarge } from './body.js';
import type { HttpRequest } from './dispatch.js';
import { OutputPool } from './output-pool.js';
import type { HttpReply } from './reply.js';

type Bytes = Uint8Array;

/** Output held while the binding has not attached yet, before the body is paused. */
const HOLD_BYTES = 256 * 1024;

/** Callbacks of a pushed body: `data` per piece, then `end` or `error` once. @internal */
export interface PushHandlers {
  data(bytes: Bytes): void;
  end(): void;
  error(e: unknown): void;
}

/** A request body delivered by events (Node's `data` / `end`). @internal */
export interface PushSource {
  /** Start delivering to `h`. */
  start(h: PushHandlers): void;
  pause(): void;
  resume(): void;
  /** Stop delivering and leave the body unread (after a failure or when the client left). */
  stop(): void;
}

/** Where a pushed reply's bytes go (the Node response). @internal */
export interface ReplySink {
  /**
   * Write a piece; `false`: the binding calls `drain()` when it can take
   * more. A binding that can tell calls `written` once it holds no reference
   * to the piece any more (the memory is then reused); one that cannot
   * ignores it.
   */
  write(bytes: Bytes, written?: () => void): boolean;
  /** The output is complete. */
  end(): void;
  /** The stream failed after the 200: abort the response, never end it cleanly. */
  abort(): void;
}

/** The binding's signals to a pushed reply. @internal */
export interface ReplyControl {
  /** The response can take more. */
  drain(): void;
  /** The client went away before the end. */
  gone(): void;
}

/** A pushed reply's body: attach the sink, get the controls. @internal */
export type PushedBody = (sink: ReplySink) => ReplyControl;

/**
 * Where a binding leaves its push source on the request: a symbol-keyed
 * property, so `{ ...request }` copies keep it (the Koa binding adds its own
 * url that way) and the public `HttpRequest` type is unchanged.
 */
const PUSH_SOURCE = Symbol('transitkit.pushSource');
type Offering = HttpRequest & { [PUSH_SOURCE]?: () => PushSource | undefined };
const BODIES = new WeakMap<HttpReply, PushedBody>();

/** A binding offers its body by push. @internal */
export function offerPush(req: HttpRequest, source: () => PushSource | undefined): void {
  (req as Offering)[PUSH_SOURCE] = source;
}

/**
 * Marks a request whose reply cannot show a failure after it began: an
 * HTTP/1.0 reply has no chunked framing, so ending it early looks exactly
 * like its end. The streaming rows refuse such a request before the 200.
 */
const UNFRAMED = Symbol('transitkit.unframed');
type Framing = HttpRequest & { [UNFRAMED]?: true };

/** A binding marks a request whose reply would not be chunked (HTTP/1.0). @internal */
export function markUnframed(req: HttpRequest): void {
  (req as Framing)[UNFRAMED] = true;
}

/** Whether a binding marked `req` with {@link markUnframed}. @internal */
export function unframed(req: HttpRequest): boolean {
  return (req as Framing)[UNFRAMED] === true;
}

/** The push source a binding offered for `req`, if any. @internal */
export function pushSourceOf(req: HttpRequest): (() => PushSource | undefined) | undefined {
  return (req as Offering)[PUSH_SOURCE];
}

/**
 * Drop a pushed reply no response will carry: its body is stopped and left
 * unread, and nothing is written.
 * @internal
 */
export function abandonPushed(body: PushedBody): void {
  body({ write: () => true, end: () => {}, abort: () => {} }).gone();
}

/** The pushed body of a reply from {@link pushReply}, if it is one. @internal */
export function pushedBodyOf(reply: HttpReply): PushedBody | undefined {
  return BODIES.get(reply);
}

/** One pushed stream, as stream-reply.ts set it up. @internal */
export interface PushRequest {
  coder: ByteCoder;
  source: PushSource;
  maxStreamBytes: number;
  clock: Clock;
  recheckMs: number;
  /** Re-checks what allowed the stream; throws what the dispatcher would have. */
  guard?: () => Promise<void>;
  /** A failure after the 200 (for the log); returns nothing. */
  failedLate(e: unknown): void;
  /** Headers of the 200. */
  headers: Record<string, string>;
}

/**
 * Run a streaming row on a pushed body: resolves with the 200 reply (its
 * body in {@link pushedBodyOf}) once the first output exists or the output
 * ended; rejects with the failure before that.
 * @internal
 */
export async function pushReply(p: PushRequest): Promise<HttpReply> {
  const { coder, source } = p;
  const first = await coder.start();

  type State = 'running' | 'ended' | 'failed' | 'gone';
  let state: State = 'running';
  let sink: ReplySink | undefined;
  const pool = new OutputPool();
  const held: Bytes[] = [];
  let heldBytes = 0;
  let sinkFull = false;
  let busy = false; // awaiting the coder or a re-check
  let paused = false;
  const queue: Bytes[] = [];
  let inputEnded = false;
  let total = 0;
  let nextCheck = p.clock.now() + p.recheckMs;
  let began = false;
  let settle: { resolve: () => void; reject: (e: unknown) => void } | undefined;
  const ready = new Promise<void>((resolve, reject) => {
    settle = { resolve, reject };
  });
  const begin = () => {
    if (began) return;
    began = true;
    settle?.resolve();
  };

  const pause = () => {
    if (!paused) {
      paused = true;
      source.pause();
    }
  };
  const blocked = () => busy || sinkFull || (sink === undefined && heldBytes >= HOLD_BYTES);
  const maybeResume = () => {
    if (paused && state === 'running' && !blocked()) {
      paused = false;
      source.resume();
    }
  };

  const emit = (b: Bytes) => {
    if (b.byteLength === 0) return;
    if (sink) {
      if (!sink.write(b, pool.returner(b))) {
        sinkFull = true;
        pause();
      }
    } else {
      held.push(b);
      heldBytes += b.byteLength;
      if (heldBytes >= HOLD_BYTES) pause();
    }
    begin();
  };

  const fail = (e: unknown) => {
    if (state !== 'running') return;
    state = 'failed';
    const failure = asStreamError(e);
    queue.length = 0;
    source.stop();
    if (!began) {
      settle?.reject(failure);
      return;
    }
    p.failedLate(failure);
    sink?.abort(); // else when the binding attaches
  };

  const finishUp = () => {
    try {
      coder.finish(emit);
    } catch (e) {
      fail(e);
      return;
    }
    state = 'ended';
    begin();
    sink?.end(); // else when the binding attaches
  };

  /** Wait for `work` with the body paused, then carry on with the queue. */
  const waitFor = (work: Promise<void>, then: () => void) => {
    busy = true;
    pause();
    work.then(
      () => {
        busy = false;
        if (state !== 'running') return;
        then();
        pump();
        maybeResume();
      },
      (e: unknown) => {
        busy = false;
        fail(e);
      },
    );
  };

  const decode = (piece: Bytes) => {
    let r: void | Promise<void>;
    try {
      r = coder.push(piece, emit, pool.alloc);
    } catch (e) {
      fail(e);
      return;
    }
    if (r) waitFor(r, () => {});
  };

  const take = (piece: Bytes) => {
    total += piece.byteLength;
    if (total > p.maxStreamBytes) {
      fail(tooLarge());
      return;
    }
    if (p.guard && p.clock.now() >= nextCheck) {
      nextCheck = p.clock.now() + p.recheckMs;
      waitFor(p.guard(), () => decode(piece));
      return;
    }
    decode(piece);
  };

  const pump = () => {
    while (!busy && state === 'running' && queue.length > 0) take(queue.shift() as Bytes);
    if (!busy && state === 'running' && inputEnded && queue.length === 0) finishUp();
  };

  if (first !== undefined) emit(first);
  source.start({
    data(bytes) {
      if (state !== 'running') return;
      if (busy || queue.length > 0) {
        queue.push(bytes);
        pause();
        return;
      }
      take(bytes);
    },
    end() {
      inputEnded = true;
      pump();
    },
    error(e) {
      fail(e);
    },
  });

  await ready;
  const reply: HttpReply = { status: 200, headers: p.headers, body: undefined };
  BODIES.set(reply, (s) => {
    sink = s;
    for (const b of held) if (!s.write(b, pool.returner(b))) sinkFull = true;
    held.length = 0;
    heldBytes = 0;
    if (state === 'ended') s.end();
    else if (state === 'failed') s.abort();
    else if (sinkFull) pause();
    else maybeResume();
    return {
      drain() {
        sinkFull = false;
        maybeResume();
      },
      gone() {
        if (state !== 'running') return;
        state = 'gone';
        queue.length = 0;
        source.stop();
      },
    };
  });
  return reply;
}
