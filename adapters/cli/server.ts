/**
 * `transitkit server`: a {@link TransitNode} (engine, token store, ACL
 * policies, leases behind the encrypting barrier) serving Vault's HTTP API on
 * memory, file, Redis or PostgreSQL storage.
 *
 * - `--dev`: in-memory unless `--storage` says otherwise; initialised and
 *   unsealed with a random root key; a root token (from `--dev-root-token`, or
 *   random) is printed. With persistent storage and no `--root-key-file`, a new
 *   store is initialised with one unseal key, printed once, and unsealed; a
 *   store initialised before starts sealed and waits for it on `sys/unseal`
 *   (a random key could not unseal it again).
 * - `--root-key-file PATH` (base64 of 32 bytes, auto-unseal): the first start on
 *   a new store initialises it (root token from `--initial-root-token`, or
 *   generated and printed once); every start unseals.
 * - Neither: the server starts uninitialised or sealed and waits for
 *   `PUT /v1/sys/init` and `PUT /v1/sys/unseal` (Vault's `operator init` and
 *   `operator unseal`); every other route but health answers 503 meanwhile.
 * - `--config FILE` (JSON) gives `listen`, `storage`, `mount`,
 *   `max_request_bytes`, `max_stream_bytes` and `policies` (name → HCL or JSON policy, written on
 *   every unseal); flags win.
 * - The lease manager expires due leases every second, on the node holding
 *   the storage's leader lock (`active` in health; the others are `standby`).
 *   `--leader-ttl` (default 10 s) and `--leader-refresh` (default a quarter of
 *   it) set the lock's timing: a standby takes over within about their sum
 *   after the active node dies. Config keys `leader_ttl`, `leader_refresh`.
 * - Auto-rotation runs on the same node (one leader lock for every background
 *   duty), every `--auto-rotate-interval` (default 1 m; config key
 *   `auto_rotate_interval`): a due key is rotated once, by the active node.
 * - Metrics are always on (`GET /v1/sys/metrics`, `read` on `sys/metrics`;
 *   `--unauthenticated-metrics-access` drops the token, as Vault's
 *   `unauthenticated_metrics_access`), with Node's process metrics.
 *   `--metrics-listen HOST:PORT` also serves `/metrics` without a token on a
 *   separate port, for a Prometheus scrape job: keep that port private.
 *   Config keys `metrics_listen`, `unauthenticated_metrics_access`.
 * - `--api-addr URL` (`VAULT_API_ADDR`, config `api_addr`): the address the
 *   node advertises while active, which `sys/leader` names on every node.
 * - Audit devices (`sys/audit`, Vault's `file` and `socket` types) are
 *   stored in the barrier and opened on every instance; each request's entry
 *   is written before it runs. SIGTERM drains in-flight requests, then closes
 *   the node, which flushes and closes the devices (no entry of an answered
 *   request is lost); SIGHUP reopens audit files after a log rotation
 *   ({@link RunningServer.reopenAudit}; main.ts owns the signal handlers).
 * - Start-up can be stopped (startup-stop.ts `StartOptions.signal`, aborted by main.ts on
 *   SIGTERM or SIGINT): every step that waits (config, storage connection,
 *   initialisation and unsealing, binding the ports) races the signal, so a
 *   storage that never answers does not hold the stop. What was opened is then
 *   closed (listeners, the node with its audit devices, storage), the node and
 *   storage within `STOP_DEADLINE_MS`; nothing more is printed, and
 *   `StartupStopped` is thrown.
 * - Prints one line with `http://HOST:PORT` once listening. Never prints or
 *   logs the root key.
 * @module
 */

import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { MemoryStorage, type StorageAdapter, TransitNode } from '../../src/index.js';
import { redactedValue } from '../../src/util/redact-url.js';
import { nodeAuditDevices } from '../audit/index.js';
import { FileStorage } from '../file/index.js';
import { createHandler } from '../http/index.js';
import { PrometheusMetrics } from '../http/metrics-prometheus.js';
import { metricsListener } from '../http/metrics-server.js';
import { createServer, type TransitkitServer } from '../http/node-server.js';
import { parseListen, UsageError } from './flags.js';
import { checkLeaderTiming, type ServerArgs } from './server-args.js';
import { configDuration, loadConfig } from './server-config.js';
import {
  abortable,
  STOP_DEADLINE_MS,
  type StartOptions,
  StartupStopped,
  settlesBy,
} from './startup-stop.js';

interface OpenedStorage {
  storage: StorageAdapter;
  label: string;
  /** seal-status `storage_type`, as Vault names its backends. */
  type: string;
}

/** The kind of a `--storage` value (`inmem`, `file`, `redis`, `postgresql`: seal-status `storage_type`). */
function storageKind(spec: string): 'inmem' | 'file' | 'redis' | 'postgresql' {
  if (spec === 'memory') return 'inmem';
  if (spec.startsWith('file:') && spec.length > 5) return 'file';
  if (spec.startsWith('redis://') || spec.startsWith('rediss://')) return 'redis';
  if (spec.startsWith('postgres://') || spec.startsWith('postgresql://')) return 'postgresql';
  throw new UsageError(
    `--storage must be memory or file:DIR (or redis://HOST:PORT, postgres://USER@HOST:PORT/DB), got ${JSON.stringify(redactedValue(spec))}`,
  );
}

async function openStorage(spec: string): Promise<OpenedStorage> {
  const type = storageKind(spec);
  if (type === 'inmem') return { storage: new MemoryStorage(), label: 'memory', type };
  if (type === 'file') {
    const dir = spec.slice(5);
    return { storage: await FileStorage.open(dir), label: `file ${dir}`, type };
  }
  if (type === 'postgresql') {
    // Loaded on demand: pg is an optional peer dependency.
    const { PostgresStorage } = await import('../postgres/index.js');
    const storage = await PostgresStorage.connect(spec);
    return { storage, label: `postgres ${hostOf(spec)}`, type };
  }
  // Loaded on demand: ioredis is an optional peer dependency.
  const { RedisStorage } = await import('../redis/index.js');
  const storage = await RedisStorage.connect(spec);
  return { storage, label: `redis ${hostOf(spec)}`, type };
}

/**
 * The host a storage URL names, for the start-up banner. pg also takes URLs the
 * WHATWG parser refuses (`postgres://u:p@/db?host=/run/postgresql`, a Unix
 * socket): those are labelled, not failed on after the pool is open.
 */
function hostOf(spec: string): string {
  try {
    return new URL(spec).host || 'local socket';
  } catch {
    return 'local socket';
  }
}

/**
 * The root key of `--root-key-file`: base64 of exactly 32 bytes (surrounding
 * whitespace ignored). Messages name the file, never its content.
 */
async function readRootKey(file: string): Promise<Uint8Array> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new UsageError(
      `cannot read --root-key-file ${file}: ${(e as NodeJS.ErrnoException).code}`,
    );
  }
  const b64 = text.trim();
  const key = /^[A-Za-z0-9+/]+={0,2}$/.test(b64) ? Buffer.from(b64, 'base64') : undefined;
  if (key?.length !== 32) {
    throw new UsageError(`--root-key-file ${file} must hold the base64 of 32 random bytes`);
  }
  return new Uint8Array(key);
}

/** A started server. */
export interface RunningServer {
  url: string;
  /** Drain in-flight requests, then release the engine and storage. */
  close(): Promise<void>;
  /** Reopen the audit files (SIGHUP, after a log rotation), as Vault; nothing while sealed. */
  reopenAudit(): void;
}

/**
 * Start the server; `print` receives the start-up lines (stdout).
 * @throws UsageError for bad flags or config; {@link StartupStopped} when
 * `options.signal` stopped start-up; other errors for storage failures.
 */
export async function startServer(
  args: ServerArgs,
  print: (line: string) => void,
  version: string,
  options: StartOptions = {},
): Promise<RunningServer> {
  const { signal } = options;
  const step = <T>(p: Promise<T>, late?: (value: T) => void) => abortable(signal, p, late);
  const config = await step(loadConfig(args.config));
  const storageSpec = args.storage ?? config.storage ?? (args.dev ? 'memory' : undefined);
  if (storageSpec === undefined) {
    throw new UsageError('--storage (or "storage" in --config) is required without --dev');
  }
  // --dev on persistent storage without a root key file: Vault's dev flow, one
  // unseal key (printed) — a new store is initialised and unsealed; a store
  // initialised before starts sealed and waits for that key on sys/unseal.
  const devShamir =
    args.dev && storageKind(storageSpec) !== 'inmem' && args.rootKeyFile === undefined;
  const { host, port } = parseListen(args.listen ?? config.listen ?? '127.0.0.1:8200');
  const metricsListen = args.metricsListen ?? config.metrics_listen;
  const metricsAddr =
    metricsListen === undefined ? undefined : parseListen(metricsListen, 'metrics-listen');
  const openMetrics =
    args.unauthenticatedMetricsAccess ?? config.unauthenticated_metrics_access ?? false;
  if (typeof openMetrics !== 'boolean') {
    throw new UsageError('config: unauthenticated_metrics_access must be true or false');
  }
  const allowLogPrefixing = config.allow_audit_log_prefixing ?? false;
  if (typeof allowLogPrefixing !== 'boolean') {
    throw new UsageError('config: allow_audit_log_prefixing must be true or false');
  }
  // Metrics are always on (as Vault's telemetry): GET /v1/sys/metrics needs read
  // on sys/metrics; --metrics-listen adds an unauthenticated scrape port.
  const metrics = new PrometheusMetrics({ processMetrics: true });
  const rootKey =
    args.rootKeyFile !== undefined
      ? await step(readRootKey(args.rootKeyFile), (key) => key.fill(0))
      : args.dev && !devShamir
        ? globalThis.crypto.getRandomValues(new Uint8Array(32))
        : undefined;
  const apiAddr = args.apiAddr ?? config.api_addr; // both checked when read
  const leaderTtlMs = args.leaderTtlMs ?? configDuration('leader-ttl', config.leader_ttl);
  const leaderRefreshMs =
    args.leaderRefreshMs ?? configDuration('leader-refresh', config.leader_refresh);
  checkLeaderTiming(leaderTtlMs, leaderRefreshMs);
  const autoRotateIntervalMs =
    args.autoRotateIntervalMs ??
    configDuration('auto-rotate-interval', config.auto_rotate_interval);
  // The root token start-up is given (a generated one is printed once).
  const givenRoot = args.dev ? args.devRootToken : args.initialRootToken;
  const persistent = storageKind(storageSpec) !== 'inmem';
  // What start-up has opened, closed again when it fails or is stopped.
  let storage: StorageAdapter | undefined;
  let node: TransitNode | undefined;
  let server: TransitkitServer | undefined;
  let scrape: TransitkitServer | undefined;
  // A one-time secret of a persistent store this start-up initialised, not printed yet.
  let unshown: string | undefined;
  try {
    const opened = await step(openStorage(storageSpec), (late) => {
      // Connected after the stop: nothing will use it.
      void late.storage.close?.().catch(() => undefined);
    });
    storage = opened.storage;
    const transitNode = new TransitNode({
      storage: opened.storage,
      metrics,
      ...(rootKey ? { rootKey } : {}),
      initialRootToken: givenRoot,
      ...(apiAddr === undefined ? {} : { apiAddr }),
      transit: {
        autoRotate: {
          ...(autoRotateIntervalMs === undefined ? {} : { intervalMs: autoRotateIntervalMs }),
          onResult({ rotated, errors }) {
            for (const name of rotated) console.log(`transitkit: auto-rotated key ${name}`);
            for (const { name, error } of errors) {
              console.error(`transitkit: auto-rotation of ${name} failed: ${error}`);
            }
          },
        },
      },
      leases: {
        leaderTtlMs,
        leaderRefreshMs,
        onError: (e) =>
          console.error('transitkit: lease expiry:', e instanceof Error ? e.message : e),
      },
      // Audit devices (sys/audit): file and socket; entries are written before
      // each reply, and closing the node (SIGTERM) flushes and closes them.
      audit: {
        devices: nodeAuditDevices(),
        allowLogPrefixing,
        logger: { error: (message, error) => console.error(message, error ?? '') },
      },
      async onUnseal({ policies }) {
        for (const [name, policy] of Object.entries(config.policies ?? {})) {
          await policies.write(name, typeof policy === 'string' ? policy : JSON.stringify(policy));
        }
      },
      version,
      storageType: opened.type,
    });
    node = transitNode;
    rootKey?.fill(0);
    // Listening before the store is touched, as Vault binds its listeners before
    // `operator init`: a port in use (or any other failure here) stops start-up
    // before a new store is initialised, so no one-time secret is made unshown.
    // Until start-up's own steps are done (start, the dev init and unseal, the
    // dev root token), every request is answered 503: none can race them (a
    // client's sys/init before the dev server's own would take its store).
    const mount = args.mount ?? config.mount ?? '/v1/transit';
    const handler = createHandler(transitNode, {
      mount,
      maxRequestBytes: args.maxRequestBytes ?? config.max_request_bytes,
      maxStreamBytes: args.maxStreamBytes ?? config.max_stream_bytes,
      version,
      logger: { error: (message, error) => console.error(message, error) },
      metrics,
      unauthenticatedMetricsAccess: openMetrics,
    });
    let ready = false;
    server = createServer((req, res) => {
      if (ready) handler.node(req, res);
      else starting(res);
    });
    const { url } = await step(server.listen(port, host));
    let scrapeUrl: string | undefined;
    if (metricsAddr) {
      scrape = createServer(metricsListener(metrics), { listMethod: false });
      scrapeUrl = (await step(scrape.listen(metricsAddr.port, metricsAddr.host))).url;
    }
    // A stop while the node writes a new store lets it finish (the node runs one
    // operation at a time, and close() waits its turn): no half-initialised store.
    const started = await step(transitNode.start(), (late) => {
      if (late.root_token !== undefined && persistent && givenRoot === undefined)
        unshown = 'initial root token';
    });
    let root = started.root_token;
    if (root !== undefined && persistent && givenRoot === undefined) unshown = 'initial root token';
    let unsealKey: string | undefined;
    if (devShamir && !(await step(transitNode.initStatus())).initialized) {
      const secrets = args.devRootToken === undefined ? 'unseal key and root token' : 'unseal key';
      const init = await step(transitNode.init({ secret_shares: 1, secret_threshold: 1 }), () => {
        unshown = secrets;
      });
      unshown = secrets;
      unsealKey = init.keys_base64[0] as string;
      await step(transitNode.unseal({ key: unsealKey }));
      if (args.devRootToken === undefined) root = init.root_token;
      else await step(transitNode.tokens.revoke(init.root_token)); // replaced by the dev root token below
    }
    if (
      root === undefined &&
      args.dev &&
      args.devRootToken !== undefined &&
      !(await step(transitNode.sealStatus())).sealed
    ) {
      root = await step(transitNode.tokens.createRoot({ id: args.devRootToken }));
    }
    // The last step that waits: from here to the return nothing stops start-up,
    // so the lines below (one-time secrets among them) are printed whole or not at all.
    const status = await step(transitNode.sealStatus());
    ready = true;
    print(`==> transitkit server started: ${url}`);
    print(
      `    Storage: ${opened.label}${args.dev && storageSpec === 'memory' ? ' (dev mode: lost on exit)' : ''}`,
    );
    if (scrapeUrl !== undefined) {
      print(`    Metrics: ${scrapeUrl}/metrics (no token: keep this port private)`);
    }
    print(`    Transit mount: ${mount}`);
    if (!status.initialized) print('    Seal: not initialized (PUT /v1/sys/init)');
    else if (status.sealed)
      print(`    Seal: sealed (PUT /v1/sys/unseal, ${status.t} of ${status.n})`);
    else print(`    Seal: unsealed (${status.type})`);
    if (unsealKey !== undefined) {
      print(`    Unseal Key (shown once; the store is sealed after a restart): ${unsealKey}`);
    }
    if (root !== undefined) {
      print(`    ${args.dev ? 'Root Token' : 'Initial Root Token (shown once)'}: ${root}`);
    }
    const running = server;
    const scraping = scrape;
    const store = opened.storage;
    return {
      url,
      async close() {
        await running.close({ drainMs: 10_000 });
        await scraping?.close({ drainMs: 1_000 });
        await transitNode.close();
        await store.close?.();
      },
      reopenAudit() {
        if (!transitNode.sealed) void transitNode.audit.reopen().catch(() => undefined);
      },
    };
  } catch (e) {
    rootKey?.fill(0);
    const deadline = Date.now() + STOP_DEADLINE_MS;
    await server?.close({ drainMs: 0 }).catch(() => undefined);
    await scrape?.close({ drainMs: 0 }).catch(() => undefined);
    // Sealing closes the audit devices; it waits for a step the node has under way.
    const nodeClosed = node === undefined || (await settlesBy(node.close(), deadline));
    const storageClosed =
      storage?.close === undefined || (await settlesBy(storage.close(), deadline));
    if (e instanceof StartupStopped) throw new StartupStopped(nodeClosed && storageClosed, unshown);
    if (unshown !== undefined) {
      console.error(
        `transitkit: start-up failed after it initialised the store; its ${unshown} (shown once) was not printed; the store holds nothing else yet: remove it and start again`,
      );
    }
    throw e;
  }
}

/** The answer to a request that comes while start-up still runs its own steps. */
function starting(res: ServerResponse): void {
  const body = JSON.stringify({ errors: ['transitkit is starting; retry shortly'] });
  res.writeHead(503, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'retry-after': '1',
    'cache-control': 'no-store',
  });
  res.end(body);
}
