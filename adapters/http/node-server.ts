/**
 * `transitkit/http/node`: a `node:http` server for the handler that
 *
 * - accepts Vault's `LIST` method (each connection's bytes go through a
 *   rewriter to `GET ?list=true`, since Node's parser refuses unknown methods);
 *   {@link acceptListMethod} does the same for a server you create yourself
 *   (`app.listen()`, `https.createServer()`);
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
import { Duplex } from 'node:stream';
import { type TLSSocket, Server as TlsServer } from 'node:tls';
import { ListMethodRewriter } from './list-method.js';

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

/** A TCP socket seen through the rewriter; delegates the socket API Node's server uses. */
class ListSocket extends Duplex {
  readonly raw: Socket;
  readonly #rewriter = new ListMethodRewriter();

  constructor(raw: Socket) {
    super({ allowHalfOpen: true });
    this.raw = raw;
    raw.on('data', (chunk: Buffer) => {
      if (!this.push(this.#rewriter.feed(chunk))) raw.pause();
    });
    raw.on('end', () => this.push(null));
    raw.on('error', (err) => this.destroy(err));
    raw.on('close', () => this.destroy());
    raw.on('timeout', () => this.emit('timeout'));
    raw.on('drain', () => this.emit('drain'));
  }
  override _read(): void {
    this.raw.resume();
  }
  override _write(chunk: Buffer, encoding: BufferEncoding, cb: (e?: Error | null) => void): void {
    this.raw.write(chunk, encoding, cb);
  }
  /**
   * Everything buffered in one go (a chunked response writes size, data and
   * CRLF per chunk while corked): one corked batch to the socket instead of
   * one socket write, and one callback round trip, per piece.
   */
  override _writev(
    chunks: { chunk: Buffer; encoding: BufferEncoding }[],
    cb: (e?: Error | null) => void,
  ): void {
    const raw = this.raw;
    raw.cork();
    const last = chunks.length - 1;
    for (let i = 0; i < last; i++) {
      const c = chunks[i] as { chunk: Buffer; encoding: BufferEncoding };
      raw.write(c.chunk, c.encoding);
    }
    const end = chunks[last] as { chunk: Buffer; encoding: BufferEncoding };
    raw.write(end.chunk, end.encoding, cb);
    raw.uncork();
  }
  override _final(cb: (e?: Error | null) => void): void {
    this.raw.end(cb);
  }
  override _destroy(err: Error | null, cb: (e?: Error | null) => void): void {
    this.raw.destroy(err ?? undefined);
    cb(err);
  }
  setTimeout(ms: number, cb?: () => void): this {
    this.raw.setTimeout(ms, cb);
    return this;
  }
  setNoDelay(noDelay?: boolean): this {
    this.raw.setNoDelay(noDelay);
    return this;
  }
  setKeepAlive(enable?: boolean, delay?: number): this {
    this.raw.setKeepAlive(enable, delay);
    return this;
  }
  get remoteAddress(): string | undefined {
    return this.raw.remoteAddress;
  }
  get remotePort(): number | undefined {
    return this.raw.remotePort;
  }
  get remoteFamily(): string | undefined {
    return this.raw.remoteFamily;
  }
  get localAddress(): string | undefined {
    return this.raw.localAddress;
  }
  get localPort(): number | undefined {
    return this.raw.localPort;
  }
  // TLS: what `req.socket` answers on an https server (Express's `req.secure`, client certificates).
  get encrypted(): boolean {
    return (this.raw as Partial<TLSSocket>).encrypted === true;
  }
  get authorized(): boolean | undefined {
    return (this.raw as Partial<TLSSocket>).authorized;
  }
  get authorizationError(): Error | undefined {
    return (this.raw as Partial<TLSSocket>).authorizationError;
  }
  get alpnProtocol(): string | false | null | undefined {
    return (this.raw as Partial<TLSSocket>).alpnProtocol;
  }
  getPeerCertificate(detailed?: boolean): ReturnType<TLSSocket['getPeerCertificate']> | undefined {
    return (this.raw as Partial<TLSSocket>).getPeerCertificate?.(detailed as true);
  }
  getProtocol(): string | null | undefined {
    return (this.raw as Partial<TLSSocket>).getProtocol?.();
  }
}

const LIST_ACCEPTED = Symbol('transitkit.acceptListMethod');

/**
 * Make a `node:http` or `node:https` server you created yourself accept
 * Vault's `LIST` method, which Node's HTTP parser otherwise answers with a
 * bare 400 before any handler runs: each connection's request lines
 * `LIST /p HTTP/1.1` become `GET /p?list=true HTTP/1.1` (Vault's equivalent)
 * before Node parses them; bodies and every other request pass unchanged.
 * Call it right after creating or starting the server, before the first
 * connection; a second call does nothing. {@link createServer} does this itself.
 *
 * @example
 * ```ts
 * const server = https.createServer({ key, cert }, app); // or app.listen(8200)
 * acceptListMethod(server);
 * ```
 * @public
 */
export function acceptListMethod(server: Server | HttpsServer): void {
  const marked = server as (Server | HttpsServer) & { [LIST_ACCEPTED]?: true };
  if (marked[LIST_ACCEPTED]) return;
  marked[LIST_ACCEPTED] = true;
  // https: the HTTP parser starts on 'secureConnection' (the decrypted socket).
  const event = server instanceof TlsServer ? 'secureConnection' : 'connection';
  const listeners = server.listeners(event) as ((socket: Duplex) => void)[];
  server.removeAllListeners(event);
  server.on(event, (socket: Socket) => {
    const wrapped = new ListSocket(socket);
    for (const l of listeners) l.call(server, wrapped);
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
 * @public
 */
export function createServer(
  handler: { node: RequestListener } | RequestListener,
  options: NodeServerOptions = {},
): TransitkitServer {
  const node: RequestListener = typeof handler === 'function' ? handler : handler.node;
  const active = new Set<ServerResponse>();
  let draining = false;
  let idle: (() => void) | undefined;
  const server = createHttpServer((req, res) => {
    active.add(res);
    res.once('close', () => {
      active.delete(res);
      if (active.size === 0) idle?.();
    });
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
