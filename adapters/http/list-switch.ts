/**
 * `LIST` without a JavaScript parse of every request: a connection keeps
 * Node's native parser (llhttp reading straight from the socket's handle)
 * until its first `LIST` request line, and only then moves to the rewriting
 * path of `./list-method.ts`, from that request line on.
 *
 * llhttp refuses `LIST` at its `S` (`L` and `LI` begin `LINK`) with
 * `HPE_INVALID_METHOD`, and Node reports that as the server's `clientError`
 * with the bytes of the read it was parsing (`rawPacket`) and the offset of
 * the refused byte (`bytesParsed`): the request line starts two bytes before
 * it. The switch then does, on the same socket, what Node does itself when a
 * connection leaves HTTP for an upgrade (`_http_server.js`):
 *
 * 1. pause the socket (reads wait in its buffer), take the refused parser off
 *    the handle and out of the server's connection list, and detach the
 *    server's listeners of that connection;
 * 2. wait until the answers to the requests before the `LIST` have been
 *    written (HTTP/1.1 answers go out in request order);
 * 3. set up the connection again with the server's own connection listener,
 *    the socket now parsed in JavaScript through a fresh rewriter, and put
 *    the `LIST` request and everything after it back in front of the
 *    socket's buffer.
 *
 * Everything it needs of Node's internals (the parser's `unconsume`,
 * `remove` and `close`, the names of the server's socket listeners, its
 * `connectionListener`) is checked first: on a runtime without it, and on a
 * server with a `clientError` listener of its own (which would see the
 * refused `LIST`), connections take the rewriting path from their first
 * byte, as they always did.
 *
 * What the native parser alone cannot tell: whether the `LI` before the
 * refused `S` began the method, when those bytes arrived in an earlier read
 * (a method split after its first or second byte) or when the two bytes
 * before them are `UN` (llhttp also fails `UNLIST` at the `S`: refused here
 * when both are in the same read). Such a split request is taken as `LIST`;
 * it is then an ordinary `GET ?list=true`, with the token and ACL checks of
 * any request.
 * @module
 */
import { Buffer } from 'node:buffer';
import type { EventEmitter } from 'node:events';
import type { Server } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';

/** What the switch uses of Node's HTTP parser (not public API). */
interface NodeParser {
  unconsume(): void;
  remove(): void;
  close(): void;
  _consumed?: boolean;
  socket?: unknown;
  onIncoming?: unknown;
}

/** A server socket as Node's HTTP server leaves it. */
type ParsedSocket = Socket & {
  parser?: NodeParser | null;
  _httpMessage?: (EventEmitter & { writableFinished?: boolean }) | null;
  _handle?: { _consumed?: boolean } | null;
};

/** A `clientError` of Node's parser. */
type ParseError = Error & { code?: string; bytesParsed?: unknown; rawPacket?: unknown };

/** The listeners Node's HTTP server puts on a connection's socket (Node 18–24). */
const SERVER_SOCKET_LISTENERS: Readonly<Record<string, string>> = {
  data: 'bound socketOnData',
  end: 'bound socketOnEnd',
  close: 'bound socketOnClose',
  drain: 'bound socketOnDrain',
  timeout: 'socketOnTimeout',
  pause: 'onSocketPause',
  resume: 'onSocketResume',
};

const LI = Buffer.from('LI', 'latin1');
const ST_SP = Buffer.from('ST ', 'latin1');
const UN = Buffer.from('UN', 'latin1');

/**
 * Whether this runtime's HTTP parser has the methods the switch calls
 * (Node's `_http_common`, loaded as any builtin is: the base path is unused).
 */
const parserHasSwitch = ((): boolean => {
  try {
    const mod = createRequire('/')('node:_http_common') as {
      HTTPParser?: { prototype?: Partial<NodeParser> };
    };
    const p = mod.HTTPParser?.prototype;
    return (
      typeof p?.unconsume === 'function' &&
      typeof p.remove === 'function' &&
      typeof p.close === 'function'
    );
  } catch {
    return false;
  }
})();

/**
 * The bytes to parse again from a `clientError` that refused a `LIST`
 * request line: that line and the rest of the read, or `undefined` when the
 * refused bytes are not a `LIST` (or cannot be located).
 * @internal
 */
export function listReplay(raw: unknown, at: unknown): Buffer | undefined {
  if (!Buffer.isBuffer(raw) || typeof at !== 'number' || !Number.isSafeInteger(at))
    return undefined;
  if (at < 0 || at >= raw.length) return undefined;
  // The refused byte and what follows it: `S`, then `T `, as far as this read goes.
  const after = raw.subarray(at, Math.min(at + ST_SP.length, raw.length));
  if (!after.equals(ST_SP.subarray(0, after.length))) return undefined;
  // The `LI` before it, as much of it as this read holds (the rest was accepted earlier).
  const held = Math.min(at, LI.length);
  if (!raw.subarray(at - held, at).equals(LI.subarray(LI.length - held))) return undefined;
  if (at >= 4 && raw.subarray(at - 4, at - 2).equals(UN)) return undefined; // UNLIST
  const line = raw.subarray(at - held);
  return held === LI.length
    ? Buffer.from(line)
    : Buffer.concat([LI.subarray(0, LI.length - held), line]);
}

/** Node's answer to a client error when the server has no `clientError` listener. */
const CANNED: Readonly<Record<string, string>> = {
  HPE_HEADER_OVERFLOW: '431 Request Header Fields Too Large',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: '413 Payload Too Large',
  ERR_HTTP_REQUEST_TIMEOUT: '408 Request Timeout',
};

/**
 * What Node does with a client error when no one listens to `clientError`
 * (`socketOnError` in `_http_server.js`): a canned answer unless one has
 * begun, then the socket is destroyed.
 */
function nodeDefault(socket: ParsedSocket, err: ParseError): void {
  const inFlight = socket._httpMessage as { _headerSent?: boolean } | null | undefined;
  if (socket.writable && !inFlight?._headerSent) {
    const status = CANNED[err.code ?? ''] ?? '400 Bad Request';
    socket.write(`HTTP/1.1 ${status}\r\nConnection: close\r\n\r\n`);
  }
  socket.destroy(err);
}

/** The server's own per-connection setup (`connectionListener` of `_http_server.js`). */
type ConnectionListener = (this: Server | HttpsServer, socket: Socket) => void;

/** The server's {@link ConnectionListener} for `event`, found by its name. */
function connectionListenerOf(
  server: Server | HttpsServer,
  event: string,
): ConnectionListener | undefined {
  return server
    .listeners(event)
    .find((f) => (f as { name?: string }).name === 'connectionListener') as
    | ConnectionListener
    | undefined;
}

/** Wait until the socket has no answer in flight (each one finished, in order). */
function afterAnswers(socket: ParsedSocket, then: () => void): void {
  const current = socket._httpMessage;
  if (socket.destroyed || !current || current.writableFinished) {
    then();
    return;
  }
  // Node's own 'finish' listener (registered first) attaches the next answer.
  current.once('finish', () => setImmediate(() => afterAnswers(socket, then)));
}

/** Installs the rewriting path on a socket; returns its rewriter's `feed`. */
export type RewriteSocket = (socket: Socket) => (chunk: Buffer) => Buffer;

/**
 * Let `server` parse each connection natively until its first `LIST`, then
 * move it to the rewriting path. Returns whether a new connection may start
 * native now (else the caller installs the rewriting path on it at once).
 * @internal
 */
export function switchOnList(
  server: Server | HttpsServer,
  event: 'connection' | 'secureConnection',
  rewrite: RewriteSocket,
): () => boolean {
  const listen = connectionListenerOf(server, event);
  // Without what the switch needs, every connection rewrites from its first
  // byte and Node keeps its own answers to refused requests.
  if (!parserHasSwitch || !listen) return () => false;
  server.prependListener('clientError', (err: ParseError, socket: ParsedSocket) => {
    const replay =
      err.code === 'HPE_INVALID_METHOD' ? listReplay(err.rawPacket, err.bytesParsed) : undefined;
    if (replay && moveToRewriting(server, listen, socket, replay, rewrite)) return;
    // Alone, this listener stands in for Node's default; beside others, they decide.
    if (server.listenerCount('clientError') === 1) nodeDefault(socket, err);
  });
  return () => server.listenerCount('clientError') === 1;
}

/** Steps 1–3 of the module comment; `false` (nothing changed) when a piece is missing. */
function moveToRewriting(
  server: Server | HttpsServer,
  listen: ConnectionListener,
  socket: ParsedSocket,
  replay: Buffer,
  rewrite: RewriteSocket,
): boolean {
  const parser = socket.parser;
  if (!parser?._consumed || !socket._handle?._consumed) return false;
  const found: [string, (...args: unknown[]) => void][] = [];
  for (const [ev, name] of Object.entries(SERVER_SOCKET_LISTENERS)) {
    const f = socket.listeners(ev).find((l) => (l as { name?: string }).name === name);
    if (!f) return false;
    found.push([ev, f as (...args: unknown[]) => void]);
  }
  // 1. Reads wait (and are rewritten from now on, after the replayed line).
  socket.pause();
  for (const [ev, f] of found) socket.removeListener(ev, f);
  parser.unconsume();
  parser._consumed = false;
  parser.remove();
  parser.socket = null;
  parser.onIncoming = null;
  socket.parser = null;
  // Node closes a parser only once its own call stack has unwound.
  setImmediate(() => parser.close());
  const feed = rewrite(socket);
  const first = feed(replay);
  // Should anything resume the socket meanwhile, what it reads is kept here.
  const early: Buffer[] = [];
  const hold = (chunk: Buffer) => {
    early.push(chunk);
    socket.pause();
  };
  socket.on('data', hold);
  // 2. and 3.
  afterAnswers(socket, () => {
    socket.removeListener('data', hold);
    if (socket.destroyed) return;
    // The keep-alive timeout of the last answer, which the old parser would
    // have cleared when the next request began.
    socket.setTimeout(0);
    // The handle stays marked consumed, so the new parser reads in JavaScript.
    listen.call(server, socket);
    for (const chunk of early.reverse()) socket.unshift(chunk);
    if (first.length > 0) socket.unshift(first);
    socket.resume();
  });
  return true;
}
