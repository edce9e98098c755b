/**
 * An in-process transitkit server for the reliability suites: the real
 * engine, token store, ACL policies and lease manager on one
 * {@link MemoryStorage}, behind the package's Node binding
 * (`transitkit/http/node`) on a real `node:http` listener at 127.0.0.1, and a
 * keep-alive client that sends any method, path and body bytes.
 *
 * Every storage write is counted through the storage's own `watch`
 * capability (no wrapper, no mock), so a test can tell whether a request
 * changed state. Unexpected errors the handler logs are collected.
 */
import { Agent, request } from 'node:http';
import { AclPolicyStore, createHandler, TokenStore } from '../../adapters/http/index.js';
import { createServer, type TransitkitServer } from '../../adapters/http/node-server.js';
import { nodeBackend } from '../../src/crypto/node/index.js';
import { LeaseManager } from '../../src/leases/lease-manager.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { Transit, type TransitOptions } from '../../src/transit/transit.js';

/** A request as the fuzzer sends it. */
export interface WireRequest {
  method: string;
  /** Path and query, already encoded as they go on the request line. */
  url: string;
  body?: string | Uint8Array;
  /** Token to send; `null` sends none; default the root token. */
  token?: string | null;
}

/** A response as received. */
export interface WireResponse {
  status: number;
  text: string;
}

/** A running in-process server. */
export interface FuzzServer {
  url: string;
  root: string;
  storage: MemoryStorage;
  transit: Transit;
  tokens: TokenStore;
  /** Storage writes (puts, deletes, successful compare-and-sets) so far. */
  writes(): number;
  /** Unexpected errors the handler logged. */
  logged: unknown[];
  send(req: WireRequest): Promise<WireResponse>;
  close(): Promise<void>;
}

/** Start the server with a body limit (bytes) and engine options. */
export async function startFuzzServer(
  opts: { maxRequestBytes?: number; transit?: TransitOptions } = {},
): Promise<FuzzServer> {
  const storage = new MemoryStorage();
  let writes = 0;
  await storage.watch('', () => {
    writes++;
  });
  const transit = new Transit({ storage, autoRotate: false, ...opts.transit });
  const policies = new AclPolicyStore({ storage });
  const leases: LeaseManager = new LeaseManager({
    storage,
    tokenExists: (t: string) => tokens.exists(t),
  });
  const tokens: TokenStore = new TokenStore({ storage, leases, crypto: nodeBackend });
  const root = await tokens.createRoot();
  const logged: unknown[] = [];
  const handler = createHandler(
    { transit, tokens, policies, leases },
    {
      maxRequestBytes: opts.maxRequestBytes ?? 64 * 1024,
      logger: { error: (message, error) => logged.push({ message, error }) },
    },
  );
  const server: TransitkitServer = createServer(handler);
  const { url } = await server.listen(0, '127.0.0.1');
  const { hostname, port } = new URL(url);
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });

  const send = (req: WireRequest): Promise<WireResponse> =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string> = {};
      const token = req.token === undefined ? root : req.token;
      if (token !== null) headers['x-vault-token'] = token;
      if (req.body !== undefined) headers['content-length'] = String(byteLength(req.body));
      const r = request(
        { host: hostname, port: Number(port), method: req.method, path: req.url, headers, agent },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
          );
          res.on('error', reject);
        },
      );
      r.on('error', reject);
      r.end(req.body === undefined ? undefined : Buffer.from(req.body));
    });

  return {
    url,
    root,
    storage,
    transit,
    tokens,
    writes: () => writes,
    logged,
    send,
    async close() {
      agent.destroy();
      await server.close({ drainMs: 100 });
      await leases.stop();
      await transit.close();
    },
  };
}

const byteLength = (b: string | Uint8Array): number =>
  typeof b === 'string' ? Buffer.byteLength(b) : b.byteLength;

/** Let the storage's change notifications (microtasks) run. */
export const settle = (): Promise<void> => new Promise((r) => setImmediate(r));
