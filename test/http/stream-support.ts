/**
 * Shared pieces of the streaming-route tests (stream-*.test.ts): in-process
 * services behind every binding on a real loopback socket, a node:http
 * client that streams a body and reports exactly how the response ended,
 * and a deterministic data generator with its SHA-256. Not a test file.
 */
import { createCipheriv, createHash } from 'node:crypto';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  request,
  type Server,
  type ServerResponse,
} from 'node:http';
import { Readable } from 'node:stream';
import express from 'express';
import Koa from 'koa';
import {
  AclPolicyStore,
  createHandler,
  type HandlerOptions,
  TokenStore,
  type TransitHandler,
} from '../../adapters/http/index.js';
import { createServer as createListServer } from '../../adapters/http/node-server.js';
import { MemoryStorage, Transit } from '../../src/index.js';

/** Engine, token store and policies on one memory store, with a root token and key `k`. */
export async function streamServices() {
  const storage = new MemoryStorage();
  const tokens = new TokenStore({ storage });
  const root = await tokens.createRoot();
  const transit = new Transit({ storage, autoRotate: false });
  await transit.createKey('k');
  const policies = new AclPolicyStore({ storage });
  return { storage, tokens, root, transit, policies, services: { transit, tokens, policies } };
}

/** A started server and how to stop it. */
export interface Started {
  url: string;
  close(): Promise<void>;
}

function listen(server: Server, prefix = ''): Promise<Started> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const a = server.address();
      const port = typeof a === 'object' && a ? a.port : 0;
      resolve({
        url: `http://127.0.0.1:${port}${prefix}`,
        close: () =>
          new Promise<void>((r) => {
            server.closeAllConnections();
            server.close(() => r());
          }),
      });
    });
  });
}

/**
 * Serve a fetch handler on node:http the way a fetch runtime does (Deno,
 * Bun, @hono/node-server): the request body as a `ReadableStream`, the
 * response body written as it is read, the connection destroyed if it errors.
 */
function fetchOnNode(fetchHandler: (r: Request) => Promise<Response>): Server {
  return createHttpServer(async (req: IncomingMessage, res: ServerResponse) => {
    const method = req.method ?? 'GET';
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) {
      if (typeof v === 'string') headers.set(k, v);
    }
    const hasBody = method !== 'GET' && method !== 'HEAD';
    // `ReadableStream.from` (not `Readable.toWeb`, which throws on data after a cancel).
    const from = (
      ReadableStream as unknown as { from(i: AsyncIterable<Uint8Array>): ReadableStream }
    ).from;
    const body = hasBody ? from(req) : null;
    const init = { method, headers, body, duplex: 'half' } as RequestInit;
    const response = await fetchHandler(new Request(`http://127.0.0.1${req.url}`, init));
    res.statusCode = response.status;
    response.headers.forEach((v, k) => {
      res.setHeader(k, v);
    });
    if (!response.body) {
      res.end();
      return;
    }
    const reader = response.body.getReader();
    res.on('close', () => {
      if (!res.writableFinished) reader.cancel().catch(() => {});
    });
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (!res.write(value)) await new Promise((r) => res.once('drain', r));
      }
      res.end();
    } catch {
      res.destroy();
    }
  });
}

/** The bindings a streaming route is served through. */
export const BINDINGS = ['node', 'node-server', 'express', 'koa', 'fetch'] as const;
export type Binding = (typeof BINDINGS)[number];

/**
 * Serve `handler` through one binding on a loopback port. Express and Koa
 * mount it under `/vault` with a JSON body parser in front (which must leave
 * octet streams alone); the returned URL includes the prefix.
 */
export async function serve(binding: Binding, handler: TransitHandler): Promise<Started> {
  switch (binding) {
    case 'node':
      return listen(createHttpServer(handler.node));
    case 'node-server': {
      const s = createListServer(handler);
      const { url } = await s.listen(0);
      return { url, close: () => s.close({ drainMs: 0 }) };
    }
    case 'express': {
      const app = express();
      app.use(express.json());
      app.use('/vault', handler.node);
      return listen(createHttpServer(app), '/vault');
    }
    case 'koa': {
      const app = new Koa();
      app.use(handler.koa);
      return listen(createHttpServer(app.callback()));
    }
    case 'fetch':
      return listen(fetchOnNode(handler.fetch));
  }
}

/** Services and a handler served through `binding`. */
export async function served(binding: Binding, options: HandlerOptions = {}) {
  const s = await streamServices();
  const handler = createHandler(s.services, { logger: { error: () => {} }, ...options });
  const server = await serve(binding, handler);
  return {
    ...s,
    handler,
    url: server.url,
    async close() {
      await server.close();
      await s.transit.close();
    },
  };
}

/** How a streamed response ended. */
export interface StreamResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** The response body ended cleanly (for chunked: the terminating chunk arrived). */
  complete: boolean;
  /** The response (or the request, before a response) failed. */
  error?: Error;
}

/** A body to send: bytes, or chunks produced on demand. */
export type Body = Uint8Array | AsyncIterable<Uint8Array> | Iterable<Uint8Array>;

/**
 * POST `body` to `url + path` with node:http, streaming it with
 * backpressure; collects the response, whatever way it ends.
 */
export function streamPost(
  url: string,
  path: string,
  body: Body,
  opts: { token?: string | null; headers?: Record<string, string> } = {},
): Promise<StreamResult> {
  const headers: Record<string, string> = {
    'content-type': 'application/octet-stream',
    // Bytes go with their length; chunks produced on demand are sent chunked.
    ...(body instanceof Uint8Array ? { 'content-length': String(body.byteLength) } : {}),
    ...(opts.token ? { 'x-vault-token': opts.token } : {}),
    ...(opts.headers ?? {}),
  };
  return new Promise((resolve) => {
    let settled = false;
    let responded = false;
    const done = (r: StreamResult) => {
      if (!settled) {
        settled = true;
        resolve(r);
      }
    };
    const req = request(url + path, { method: 'POST', headers }, (res) => {
      responded = true;
      const chunks: Buffer[] = [];
      const finish = (error?: Error) =>
        done({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks),
          complete: res.complete && !error,
          ...(error ? { error } : {}),
        });
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => finish());
      res.on('error', (e) => finish(e));
      res.on('close', () => finish(res.complete ? undefined : new Error('response closed early')));
    });
    // Once a response began, its own events tell how it ended (an upload cut
    // by the server's reset fails the request too).
    req.on('error', (e) => {
      if (!responded)
        done({ status: 0, headers: {}, body: Buffer.alloc(0), complete: false, error: e });
    });
    const source =
      body instanceof Uint8Array ? Readable.from([Buffer.from(body)]) : Readable.from(body);
    source.on('error', (e) => req.destroy(e));
    source.pipe(req);
  });
}

/**
 * `total` bytes of deterministic pseudo-random data, in `chunk`-byte pieces
 * (an AES-256-CTR keystream: fast and incompressible), and its SHA-256 once
 * iterated.
 */
export function generated(total: number, chunk = 256 * 1024) {
  const digest = createHash('sha256');
  const zeros = Buffer.alloc(chunk);
  function* chunks(): Generator<Uint8Array> {
    const ctr = createCipheriv('aes-256-ctr', Buffer.alloc(32, 7), Buffer.alloc(16));
    let left = total;
    while (left > 0) {
      const n = Math.min(chunk, left);
      const out = ctr.update(zeros.subarray(0, n));
      digest.update(out);
      left -= n;
      yield out;
    }
  }
  return { chunks, sha256: () => digest.digest('hex') };
}

/** Bytes of `n` length, deterministic. */
export function bytes(n: number): Buffer {
  const g = generated(n);
  return Buffer.concat([...g.chunks()]);
}

/** SHA-256 hex of bytes. */
export const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');
