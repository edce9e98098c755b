/**
 * `transitkit server`: a Transit engine, token store and ACL policies behind
 * Vault's HTTP API, on memory or file storage.
 *
 * - `--dev`: in-memory unless `--storage` says otherwise; a root token (from
 *   `--dev-root-token`, or random) is printed.
 * - Without `--dev`: storage is required (flag or config); the first start
 *   on a new store prints an initial root token once (Vault's `operator
 *   init`; the sealed/unsealed life cycle arrives with the durable-storage
 *   work, issue 7).
 * - `--config FILE` (JSON) gives `listen`, `storage`, `mount`,
 *   `max_request_bytes` and `policies` (name → HCL or JSON policy); flags win.
 * - A LeaseManager serves `/v1/sys/leases/*` and expires due leases every
 *   second (on the instance holding the storage's leader lock).
 * - Prints one line with `http://HOST:PORT` once listening.
 * @module
 */
import { readFile } from 'node:fs/promises';
import { defaultBackend } from '#default-backend';
import { LeaseManager, MemoryStorage, type StorageAdapter, Transit } from '../../src/index.js';
import { FileStorage } from '../file/index.js';
import { AclPolicyStore, createHandler, TokenStore } from '../http/index.js';
import { createServer, type TransitkitServer } from '../http/node-server.js';
import { parseListen, type ServerArgs, UsageError } from './args.js';

/** The JSON config file. */
interface ConfigFile {
  listen?: string;
  storage?: string;
  mount?: string;
  max_request_bytes?: number;
  policies?: Record<string, unknown>;
}

const CONFIG_KEYS = new Set(['listen', 'storage', 'mount', 'max_request_bytes', 'policies']);

async function loadConfig(file: string | undefined): Promise<ConfigFile> {
  if (file === undefined) return {};
  let doc: unknown;
  try {
    doc = JSON.parse(await readFile(file, 'utf8'));
  } catch (e) {
    throw new UsageError(`cannot read config ${file}: ${(e as Error).message}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw new UsageError(`config ${file} must be a JSON object`);
  }
  for (const key of Object.keys(doc)) {
    if (!CONFIG_KEYS.has(key))
      throw new UsageError(`config ${file}: unknown key ${JSON.stringify(key)}`);
  }
  return doc as ConfigFile;
}

async function openStorage(spec: string): Promise<{ storage: StorageAdapter; label: string }> {
  if (spec === 'memory') return { storage: new MemoryStorage(), label: 'memory' };
  if (spec.startsWith('file:') && spec.length > 5) {
    const dir = spec.slice(5);
    return { storage: await FileStorage.open(dir), label: `file ${dir}` };
  }
  if (spec.startsWith('redis://') || spec.startsWith('rediss://')) {
    throw new UsageError('redis storage is not available yet (it arrives with issue 7)');
  }
  throw new UsageError(`--storage must be memory or file:DIR, got ${JSON.stringify(spec)}`);
}

/** A started server. */
export interface RunningServer {
  url: string;
  /** Drain in-flight requests, then release the engine and storage. */
  close(): Promise<void>;
}

/**
 * Start the server; `print` receives the start-up lines (stdout).
 * @throws UsageError for bad flags or config; other errors for storage failures.
 */
export async function startServer(
  args: ServerArgs,
  print: (line: string) => void,
  version: string,
): Promise<RunningServer> {
  const config = await loadConfig(args.config);
  const storageSpec = args.storage ?? config.storage ?? (args.dev ? 'memory' : undefined);
  if (storageSpec === undefined) {
    throw new UsageError('--storage (or "storage" in --config) is required without --dev');
  }
  const { host, port } = parseListen(args.listen ?? config.listen ?? '127.0.0.1:8200');
  const { storage, label } = await openStorage(storageSpec);
  const transit = new Transit({ storage });
  const policies = new AclPolicyStore({ storage });
  const leases: LeaseManager = new LeaseManager({
    storage,
    // tidy() asks whether a lease's token still exists (without spending a use).
    tokenExists: (token: string): Promise<boolean> => tokens.exists(token),
    onError: (e) => console.error('transitkit: lease expiry:', e instanceof Error ? e.message : e),
  });
  const tokens: TokenStore = new TokenStore({ storage, leases, crypto: defaultBackend });
  leases.start(1_000);
  let server: TransitkitServer | undefined;
  try {
    for (const [name, policy] of Object.entries(config.policies ?? {})) {
      await policies.write(name, typeof policy === 'string' ? policy : JSON.stringify(policy));
    }
    const root = args.dev
      ? await tokens.createRoot(args.devRootToken === undefined ? {} : { id: args.devRootToken })
      : await tokens.bootstrapRoot();
    const mount = args.mount ?? config.mount ?? '/v1/transit';
    const handler = createHandler(
      { transit, tokens, policies, leases },
      {
        mount,
        maxRequestBytes: args.maxRequestBytes ?? config.max_request_bytes,
        version,
        logger: { error: (message, error) => console.error(message, error) },
      },
    );
    server = createServer(handler);
    const { url } = await server.listen(port, host);
    print(`==> transitkit server started: ${url}`);
    print(
      `    Storage: ${label}${args.dev && storageSpec === 'memory' ? ' (dev mode: lost on exit)' : ''}`,
    );
    print(`    Transit mount: ${mount}`);
    if (root !== undefined)
      print(`    ${args.dev ? 'Root Token' : 'Initial Root Token (shown once)'}: ${root}`);
    const running = server;
    return {
      url,
      async close() {
        await running.close({ drainMs: 10_000 });
        await leases.stop();
        await transit.close();
        await storage.close?.();
      },
    };
  } catch (e) {
    await server?.close({ drainMs: 0 }).catch(() => undefined);
    await leases.stop().catch(() => undefined);
    await transit.close().catch(() => undefined);
    await storage.close?.().catch(() => undefined);
    throw e;
  }
}
