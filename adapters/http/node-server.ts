/**
 * `transitkit/http/node`: a `node:http` server for the handler that
 *
 * - accepts Vault's `LIST` method, which Node's parser refuses: a connection
 *   is parsed natively until its first `LIST`, and from that request line on
 *   its bytes go through a rewriter to `GET ?list=true`
 *   (./list-switch.ts, ./list-method.ts); {@link acceptListMethod} does the
 *   same for a server you create yourself (`app.listen()`,
 *   `https.createServer()`);
 * - shuts down gracefully: {@link TransitkitServer.close} stops accepting,
 *   lets in-flight requests finish (answering them with `Connection: close`),
 *   closes idle keep-alive connections, and after `drainMs` closes the rest.
 *
 * Node only. The `transitkit/http` handlers work on any `node:http` server
 * too; there, call {@link acceptListMethod} on it, or list with `GET ?list=true`.
 * @packageDocumentation
 */
import type { Buffer } from 'node:buffer';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import { Server as TlsServer } from 'node:tls';
import { invalidRequest } from '../../src/errors.js';
import { lingerClose } from './linger.js';
import { ListMethodRewriter } from './list-method.js';
import { switchOnList } from './list-switch.js';

export { fileAuditDevice, nodeAuditDevices, socketAuditDevice } from '../audit/index.js';
export type { MetricsExporter } from './metrics.js';
export type {
  VaultGaugeValue,
  VaultMetricsSummary,
  VaultSampledValue,
} from './metrics-json.js';
export type { PrometheusMetricsOptions } from './metrics-prometheus.js';
export { PrometheusMetrics } from './metrics-prometheus.js';
export type {
  MetricsListenerOptions,
  ScrapeRequestLike,
  ScrapeResponseLike,
} from './metrics-server.js';
export { metricsListener } from './metrics-server.js';

/** The internals of a socket the rewriter relies on (Node 18 to 24). */
interface RewritableSocket {
  push(chunk: Buffer | string | null, encoding?: BufferEncoding): boolean;
  _handle?: { isStreamBase?: boolean; _consumed?: boolean } | null;
}

/**
 * Rewrite `LIST` request lines on a connection before Node's HTTP parser
 * sees them, on the socket itself (no wrapper stream: writes, addresses and
 * TLS members stay the socket's own):
 *
 * - Node's server lets its native parser read straight from the socket's
 *   handle unless the handle is marked consumed; marking it makes the
 *   server parse what the socket emits, in JavaScript, as it does for any
 *   socket it cannot consume natively;
 * - every received chunk goes through the rewriter on its way into the
 *   socket's readable side (`push`, which Node's stream layer calls per
 *   read), so `data` listeners — the parser's among them — see rewritten
 *   bytes.
 *
 * Bodies pass as slices of the received chunk, so the cost per byte is a
 * bound check; per request, one scan of the head. Returns the rewriter's
 * `feed`, for bytes put back in front of the socket's buffer.
 */
function rewriteListLines(socket: Socket): (chunk: Buffer) => Buffer {
  const s = socket as unknown as RewritableSocket;
  if (s._handle) s._handle._consumed = true;
  const rewriter = new ListMethodRewriter();
  const push = s.push;
  s.push = function (this: Socket, chunk, encoding) {
    if (chunk === null || typeof chunk === 'string') return push.call(this, chunk, encoding);
    return push.call(this, rewriter.feed(chunk));
  };
  return (chunk) => rewriter.feed(chunk);
}

/**
 * Node closes a connection after an answer (`Connection: close`, e.g. a 403
 * or 413 to an upload whose body was never read) through `destroySoon`: here
 * that close lingers (./linger.ts) instead of resetting the connection under
 * unread data, which can destroy the answer before the client reads it.
 */
function lingeringClose(socket: Socket): void {
  const s = socket as Socket & { destroySoon?: () => void };
  s.destroySoon = function (this: Socket) {
    lingerClose(this);
  };
}

const LIST_ACCEPTED = Symbol('transitkit.acceptListMethod');

/**
 * Make a `node:http` or `node:https` server you created yourself accept
 * Vault's `LIST` method, which Node's HTTP parser otherwise answers with a
 * bare 400 before any handler runs: a request line `LIST /p HTTP/1.1` is
 * answered as `GET /p?list=true HTTP/1.1` (Vault's equivalent); bodies and
 * every other request pass unchanged. A connection keeps Node's native
 * parser until its first `LIST` and is parsed in JavaScript from there on
 * (from its first byte when the server has a `clientError` listener of its
 * own, or on a runtime whose parser lacks what the switch needs). Call it
 * right after creating or starting the server, before the first connection;
 * a second call does nothing. {@link createServer} does this itself.
 *
 * @example
 * ```ts
 * const server = https.createServer({ key, cert }, app); // or app.listen(8200)
 * acceptListMethod(server);
 * ```
 * @public
 * @throws TransitError `invalid_request` for anything but a node:http or node:https server.
 */
export function acceptListMethod(server: Server | HttpsServer): void {
  if (typeof (server as Partial<Server> | null)?.prependListener !== 'function') {
    throw invalidRequest('acceptListMethod needs a node:http or node:https server');
  }
  const marked = server as (Server | HttpsServer) & { [LIST_ACCEPTED]?: true };
  if (marked[LIST_ACCEPTED]) return;
  marked[LIST_ACCEPTED] = true;
  // https: the HTTP parser starts on 'secureConnection' (the decrypted
  // socket). First in line, before Node's own listener sets the parser up.
  const event = server instanceof TlsServer ? 'secureConnection' : 'connection';
  // Native parsing until a connection's first LIST (./list-switch.ts).
  const native = switchOnList(server, event, rewriteListLines);
  server.prependListener(event, (socket: Socket) => {
    if (!native()) rewriteListLines(socket);
    lingeringClose(socket);
  });
}

/**
 * A request listener: `handler.node` of `transitkit/http`, or any `(req, res)` function.
 * @public
 */
export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Options of {@link createServer}.
 * @public
 */
export interface NodeServerOptions {
  /** Accept the `LIST` method (default true). */
  listMethod?: boolean;
  /** Keep-alive idle timeout in ms (Node's default 5,000). */
  keepAliveTimeout?: number;
}

/**
 * A running (or startable) server.
 * @public
 */
export interface TransitkitServer {
  /** The underlying `node:http` server. */
  readonly server: Server;
  /** Start listening; port 0 picks a free one. Resolves with the bound address. */
  listen(port: number, host?: string): Promise<{ host: string; port: number; url: string }>;
  /**
   * Stop accepting, let in-flight requests finish, then close every
   * connection; after `drainMs` (default 10,000) the rest are cut.
   */
  close(options?: { drainMs?: number }): Promise<void>;
  /** Requests being handled right now. */
  readonly inFlight: number;
}

/**
 * Create a `node:http` server for a handler, with `LIST` support and a draining close.
 *
 * @example
 * ```ts
 * const server = createServer(createHandler({ transit, tokens, policies }));
 * const { url } = await server.listen(8200, '127.0.0.1');
 * process.on('SIGTERM', () => server.close().then(() => process.exit(0)));
 * ```
 * @throws TransitError `invalid_request` when `handler` is neither a handler nor a listener.
 * @public
 */
export function createServer(
  handler: { node: RequestListener } | RequestListener,
  options: NodeServerOptions = {},
): TransitkitServer {
  const node = typeof handler === 'function' ? handler : handler?.node;
  if (typeof node !== 'function') {
    // A TransitNode or a services object in its place listened, then threw on the
    // first request, outside any handler: the process went down.
    throw invalidRequest(
      'createServer needs a handler: createHandler(services) or its .node listener',
    );
  }
  const active = new Set<ServerResponse>();
  let draining = false;
  let idle: (() => void) | undefined;
  // One listener function for every response ('close' comes once): no closure
  // and no once-wrapper per request.
  function closed(this: ServerResponse): void {
    active.delete(this);
    if (active.size === 0) idle?.();
  }
  const server = createHttpServer((req, res) => {
    active.add(res);
    res.on('close', closed);
    if (draining) res.setHeader('connection', 'close');
    node(req, res);
  });
  if (options.keepAliveTimeout !== undefined) server.keepAliveTimeout = options.keepAliveTimeout;
  if (options.listMethod !== false) acceptListMethod(server);
  return {
    server,
    get inFlight() {
      return active.size;
    },
    listen(port, host = '127.0.0.1') {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          const a = server.address();
          const bound = typeof a === 'object' && a ? a : { address: host, port };
          const h = bound.address.includes(':') ? `[${bound.address}]` : bound.address;
          resolve({ host: bound.address, port: bound.port, url: `http://${h}:${bound.port}` });
        });
      });
    },
    close({ drainMs = 10_000 } = {}) {
      draining = true;
      // Requests already running end their connection when they finish.
      for (const res of active) if (!res.headersSent) res.setHeader('connection', 'close');
      return new Promise<void>((resolve) => {
        const timer = setTimeout(() => server.closeAllConnections(), drainMs);
        timer.unref();
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        idle = () => setImmediate(() => server.closeIdleConnections());
        server.closeIdleConnections();
        if (active.size === 0) idle();
      });
    },
  };
}
