/**
 * `transitkit server`'s command line: its options, its usage text and its
 * parser (`parseServerArgs`, called by args.ts for the `server` command).
 * @module
 */
import {
  flagValue,
  parseApiAddr,
  parseDurationMs,
  parseListen,
  parseMount,
  positiveInt,
  UsageError,
} from './flags.js';

/** `transitkit server` options. */
export interface ServerArgs {
  dev: boolean;
  devRootToken?: string;
  listen?: string;
  storage?: string;
  config?: string;
  mount?: string;
  maxRequestBytes?: number;
  /** Largest body of encrypt-stream / decrypt-stream (`--max-stream-bytes`; default unlimited). */
  maxStreamBytes?: number;
  /** Auto-unseal: a file holding the base64 of the 32-byte root key. */
  rootKeyFile?: string;
  /** With `rootKeyFile`: the root token created when the store is initialised. */
  initialRootToken?: string;
  /** Time of the leader lock, ms (`--leader-ttl`). */
  leaderTtlMs?: number;
  /** How often the leader lock is refreshed or tried, ms (`--leader-refresh`). */
  leaderRefreshMs?: number;
  /** How often the active node runs an auto-rotation pass, ms (`--auto-rotate-interval`). */
  autoRotateIntervalMs?: number;
  /** `HOST:PORT` of a separate, unauthenticated Prometheus scrape listener (`--metrics-listen`). */
  metricsListen?: string;
  /** `sys/metrics` without a token (`--unauthenticated-metrics-access`). */
  unauthenticatedMetricsAccess?: boolean;
  /** This node's API address, named by `sys/leader` while it is active (`--api-addr`). */
  apiAddr?: string;
}

export const USAGE = `Usage: transitkit server [options]

Start Vault's transit API (HTTP) on transitkit.

Options:
  --dev                       initialised and unsealed, in memory unless --storage (a new
                              persistent store gets one unseal key, printed), root token printed
  --dev-root-token TOKEN      use TOKEN as the dev root token
  --listen HOST:PORT          listen address (default 127.0.0.1:8200; port 0 picks one)
  --storage memory|file:DIR|redis://HOST:PORT|postgres://USER@HOST:PORT/DB
                              where keys, tokens and policies live (encrypted at rest)
  --root-key-file PATH        auto-unseal: base64 of a 32-byte root key; a new store is
                              initialised on first start, and unsealed on every start
                              (without it the server waits for sys/init and sys/unseal)
  --initial-root-token TOKEN  with --root-key-file: the root token of a new store
                              (default: generated and printed once)
  --config FILE               JSON config: listen, storage, mount, max_request_bytes,
                              max_stream_bytes, policies,
                              leader_ttl, leader_refresh, auto_rotate_interval,
                              metrics_listen, unauthenticated_metrics_access, api_addr,
                              allow_audit_log_prefixing (Vault's: lets sys/audit set an
                              audit device's prefix option; default false)
  --mount PATH                transit mount path (default /v1/transit)
  --api-addr URL              this node's address for clients (Vault's api_addr, e.g.
                              https://vault-1.example:8200): while it is the active node,
                              sys/leader names it as leader_address on every node
  --leader-ttl DURATION       time of the leader lock on shared storage: a standby takes
                              over within about this plus one refresh after the active
                              node dies (default 10s; e.g. 15s, 2500ms)
  --leader-refresh DURATION   how often the active node refreshes the leader lock and a
                              standby tries to take it; at most half the TTL
                              (default a quarter of the TTL)
  --auto-rotate-interval DURATION
                              how often the active node rotates the keys whose
                              auto_rotate_period has elapsed (default 1m; standby nodes
                              never rotate)
  --max-request-bytes N       largest request body (default 33554432)
  --max-stream-bytes N        largest body of encrypt-stream / decrypt-stream, which are
                              streamed, not buffered (default: no limit)
  --metrics-listen HOST:PORT  also serve Prometheus metrics, without a token, at
                              http://HOST:PORT/metrics (a separate scrape port: keep it
                              private, never expose it publicly; GET /v1/sys/metrics on
                              the main listener needs read on sys/metrics)
  --unauthenticated-metrics-access
                              serve GET /v1/sys/metrics without a token, also while
                              sealed (Vault's unauthenticated_metrics_access)
  -h, --help                  show this help
  --version                   print the version
`;

/** The flags of `transitkit server` that take a value. */
export const VALUE_FLAGS = new Set([
  'dev-root-token',
  'listen',
  'storage',
  'config',
  'mount',
  'max-request-bytes',
  'max-stream-bytes',
  'root-key-file',
  'initial-root-token',
  'leader-ttl',
  'leader-refresh',
  'auto-rotate-interval',
  'metrics-listen',
  'api-addr',
]);

/** Default `--leader-ttl`, as the lease manager's `leaderTtlMs`. */
const DEFAULT_LEADER_TTL_MS = 10_000;

/**
 * Check `--leader-refresh` against `--leader-ttl` (or its default): at most half.
 * @throws UsageError when the refresh is too long for the TTL.
 */
export function checkLeaderTiming(ttlMs: number | undefined, refreshMs: number | undefined): void {
  const ttl = ttlMs ?? DEFAULT_LEADER_TTL_MS;
  if (refreshMs !== undefined && refreshMs > Math.floor(ttl / 2)) {
    throw new UsageError(
      `--leader-refresh (${refreshMs} ms) must be at most half of --leader-ttl (${ttl} ms)`,
    );
  }
}

/**
 * The options after `transitkit server`.
 * @throws UsageError for an unknown flag, or a missing or bad value.
 */
export function parseServerArgs(
  rest: readonly string[],
): { kind: 'server'; args: ServerArgs } | { kind: 'help' } {
  const args: ServerArgs = { dev: false };
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i] as string;
    if (arg === '-h' || arg === '--help') return { kind: 'help' };
    if (!arg.startsWith('--')) throw new UsageError(`unexpected argument ${JSON.stringify(arg)}`);
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    if (name === 'dev') {
      if (eq >= 0) throw new UsageError('--dev takes no value');
      args.dev = true;
      continue;
    }
    if (name === 'unauthenticated-metrics-access') {
      if (eq >= 0) throw new UsageError('--unauthenticated-metrics-access takes no value');
      args.unauthenticatedMetricsAccess = true;
      continue;
    }
    if (!VALUE_FLAGS.has(name)) throw new UsageError(`unknown flag --${name}`);
    const value = flagValue(rest, i, eq, name);
    if (eq < 0) i++;
    switch (name) {
      case 'dev-root-token':
        args.devRootToken = value;
        break;
      case 'listen':
        parseListen(value); // checked here, so a bad value names its source
        args.listen = value;
        break;
      case 'storage':
        args.storage = value;
        break;
      case 'config':
        args.config = value;
        break;
      case 'mount':
        args.mount = parseMount(value);
        break;
      case 'root-key-file':
        args.rootKeyFile = value;
        break;
      case 'initial-root-token':
        args.initialRootToken = value;
        break;
      case 'leader-ttl':
        args.leaderTtlMs = parseDurationMs(name, value);
        break;
      case 'leader-refresh':
        args.leaderRefreshMs = parseDurationMs(name, value);
        break;
      case 'auto-rotate-interval':
        args.autoRotateIntervalMs = parseDurationMs(name, value);
        break;
      case 'metrics-listen':
        parseListen(value, name);
        args.metricsListen = value;
        break;
      case 'max-request-bytes':
        args.maxRequestBytes = positiveInt(value, name);
        break;
      case 'api-addr':
        args.apiAddr = parseApiAddr(value);
        break;
      case 'max-stream-bytes':
        args.maxStreamBytes = positiveInt(value, name);
        break;
    }
  }
  if (args.devRootToken !== undefined && !args.dev) {
    throw new UsageError('--dev-root-token needs --dev');
  }
  if (args.initialRootToken !== undefined && args.rootKeyFile === undefined) {
    throw new UsageError('--initial-root-token needs --root-key-file');
  }
  if (args.initialRootToken !== undefined && args.dev) {
    throw new UsageError('--initial-root-token does not go with --dev: use --dev-root-token');
  }
  checkLeaderTiming(args.leaderTtlMs, args.leaderRefreshMs);
  return { kind: 'server', args };
}
