/**
 * Command-line parsing for `transitkit`: `--flag value`, `--flag=value` and
 * boolean `--flag`. No dependencies; unknown flags are errors (exit 2), so a
 * typo never starts a server with a default the operator did not want.
 * @module
 */
import { INSPECT_USAGE, parseInspectArgs } from './inspect-command.js';
import { parseStreamArgs, STREAM_USAGE, type StreamArgs } from './stream-args.js';

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
}

/** A parsed command line. */
export type Command =
  | { kind: 'server'; args: ServerArgs }
  | { kind: 'stream'; args: StreamArgs }
  | { kind: 'inspect'; files: string[] }
  | { kind: 'help' }
  | { kind: 'version' };

/** A usage error (exit status 2). */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * The value of flag `--name` at `rest[i]`: after its `=` (`eq` its index),
 * else the next argument (the caller then skips it).
 * @throws UsageError when the value is missing or empty.
 */
export function flagValue(rest: readonly string[], i: number, eq: number, name: string): string {
  const value = eq >= 0 ? (rest[i] as string).slice(eq + 1) : rest[i + 1];
  if (value === undefined || value === '') throw new UsageError(`--${name} needs a value`);
  return value;
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
                              metrics_listen, unauthenticated_metrics_access
  --mount PATH                transit mount path (default /v1/transit)
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

const VALUE_FLAGS = new Set([
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
]);

/** Default `--leader-ttl`, as the lease manager's `leaderTtlMs`. */
const DEFAULT_LEADER_TTL_MS = 10_000;

/**
 * A duration flag: whole `ms`, `s` or `m` (`10s`, `2500ms`, `1m`); a bare
 * integer is seconds. At least 1 ms, at most a day.
 * @throws UsageError otherwise.
 */
export function parseDurationMs(flag: string, value: string): number {
  const m = /^([0-9]{1,9})(ms|s|m)?$/.exec(value);
  const unit = m?.[2] === 'ms' ? 1 : m?.[2] === 'm' ? 60_000 : 1_000;
  const ms = m ? Number(m[1]) * unit : Number.NaN;
  if (!(ms >= 1 && ms <= 86_400_000)) {
    throw new UsageError(
      `--${flag} must be a duration such as 10s or 2500ms, got ${JSON.stringify(value)}`,
    );
  }
  return ms;
}

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
 * The flags of one command, for {@link applyEnv}: every flag can also come
 * from the environment as `TRANSITKIT_<FLAG>` (upper case, `-` → `_`).
 */
export interface CommandFlags {
  /** Flags that take a value (`--name VALUE`). */
  readonly value: ReadonlySet<string>;
  /** Flags without a value (`--name`); from the environment `true`/`1` sets them, `false`/`0` not. */
  readonly boolean: ReadonlySet<string>;
  /** More variables read for a flag when `TRANSITKIT_<FLAG>` is unset, in order. */
  readonly fallback?: Readonly<Record<string, readonly string[]>>;
}

/** Prefix of the variable that gives a flag: `--listen` ← `TRANSITKIT_LISTEN`. */
export const ENV_PREFIX = 'TRANSITKIT_';

/** Flags of the client commands `encrypt` and `decrypt` (stream-args.ts). */
const STREAM_FLAGS: ReadonlySet<string> = new Set([
  'key',
  'addr',
  'token',
  'context',
  'key-version',
  'mount',
  'ca-cert',
  'in',
  'out',
]);

/** Flags of `decrypt`: those of `encrypt` but `--key-version` (the envelope names its version). */
const DECRYPT_FLAGS: ReadonlySet<string> = new Set(
  [...STREAM_FLAGS].filter((f) => f !== 'key-version'),
);

/** Vault's own variables, read by client commands for `--addr` and `--token`. */
export const VAULT_CLIENT_ENV: Readonly<Record<string, readonly string[]>> = {
  addr: ['VAULT_ADDR'],
  token: ['VAULT_TOKEN'],
};

/** The client commands' fallbacks: Vault's variables, and `VAULT_CACERT` for `--ca-cert`. */
const STREAM_FALLBACK = { ...VAULT_CLIENT_ENV, 'ca-cert': ['VAULT_CACERT'] };

/**
 * Every command's flags. A command listed here takes each flag from the
 * environment too (and `--help` lists the variables); add a row with a new command.
 */
export const COMMAND_FLAGS: Record<string, CommandFlags> = {
  server: { value: VALUE_FLAGS, boolean: new Set(['dev', 'unauthenticated-metrics-access']) },
  encrypt: { value: STREAM_FLAGS, boolean: new Set(), fallback: STREAM_FALLBACK },
  decrypt: { value: DECRYPT_FLAGS, boolean: new Set(), fallback: STREAM_FALLBACK },
};

/** `--dev-root-token` → `TRANSITKIT_DEV_ROOT_TOKEN`. */
export function envName(flag: string): string {
  return ENV_PREFIX + flag.toUpperCase().replaceAll('-', '_');
}

/** The variables that can give `flag`, first wins. */
function envNames(spec: CommandFlags, flag: string): string[] {
  return [envName(flag), ...(spec.fallback?.[flag] ?? [])];
}

/**
 * `argv` with the flags of its command that the command line leaves out
 * taken from `env` (`TRANSITKIT_<FLAG>`, then the command's fallbacks such as
 * `VAULT_ADDR`), as `--flag=value` right after the command. The command line
 * wins; an empty variable counts as unset. Returns the new argv and, per
 * flag taken from the environment, the variable's name.
 * @throws UsageError for a boolean variable that is neither true nor false.
 */
export function applyEnv(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  commands: Readonly<Record<string, CommandFlags>> = COMMAND_FLAGS,
): { argv: string[]; fromEnv: Map<string, string> } {
  const [command, ...rest] = argv;
  const fromEnv = new Map<string, string>();
  const spec =
    command === undefined || !Object.hasOwn(commands, command) ? undefined : commands[command];
  if (!spec || rest.includes('-h') || rest.includes('--help')) return { argv: [...argv], fromEnv };
  const given = new Set(
    rest.filter((a) => a.startsWith('--')).map((a) => a.slice(2).split('=', 1)[0] as string),
  );
  const injected: string[] = [];
  for (const flag of [...spec.boolean, ...spec.value]) {
    if (given.has(flag)) continue;
    const name = envNames(spec, flag).find((n) => (env[n] ?? '') !== '');
    if (name === undefined) continue;
    const value = env[name] as string;
    if (spec.boolean.has(flag)) {
      const v = value.toLowerCase();
      if (v === 'false' || v === '0') continue;
      if (v !== 'true' && v !== '1') throw new UsageError(`${name} must be true or false`);
      injected.push(`--${flag}`);
    } else {
      injected.push(`--${flag}=${value}`);
    }
    fromEnv.set(flag, name);
  }
  return { argv: [command as string, ...injected, ...rest], fromEnv };
}

/** Lines of `--help` naming each command's variables. */
function environmentHelp(): string {
  const lines = [
    '',
    'Environment:',
    '  Every option can be given as TRANSITKIT_<OPTION> instead (upper case, - as _):',
    '  TRANSITKIT_LISTEN=0.0.0.0:8200 is --listen 0.0.0.0:8200, TRANSITKIT_DEV=true is',
    '  --dev. The command line wins over the environment, the environment over --config.',
  ];
  for (const [command, spec] of Object.entries(COMMAND_FLAGS)) {
    const names = [...spec.boolean, ...spec.value].map((f) => envNames(spec, f).join(' or '));
    const head = `  ${command}:`;
    let line = head;
    for (const n of names) {
      const piece = `${line === head ? ' ' : ', '}${n}`;
      if (line.length + piece.length > 90) {
        lines.push(`${line},`);
        line = `    ${n}`;
      } else line += piece;
    }
    lines.push(line);
  }
  return `${lines.join('\n')}\n`;
}

/** The full `--help` text: {@link USAGE} and the environment variables of every command. */
export function helpText(): string {
  return USAGE + STREAM_USAGE + INSPECT_USAGE + environmentHelp();
}

/**
 * Parse `argv` (without the node and script paths), taking the flags the
 * command line leaves out from `env` (see {@link applyEnv}).
 * @throws UsageError for a missing or unknown command, an unknown flag, or a
 * missing or bad value (naming the variable when the value came from `env`).
 */
export function parseArgs(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = {},
): Command {
  const { argv: full, fromEnv } = applyEnv(argv, env);
  try {
    return parseCommand(full);
  } catch (e) {
    const flag = e instanceof UsageError ? /^--([a-z0-9-]+)/.exec(e.message)?.[1] : undefined;
    const source = flag === undefined ? undefined : fromEnv.get(flag);
    if (source !== undefined) throw new UsageError(`${(e as Error).message} (from ${source})`);
    throw e;
  }
}

function parseCommand(argv: readonly string[]): Command {
  const [command, ...rest] = argv;
  if (command === undefined) throw new UsageError('no command given');
  if (command === '-h' || command === '--help' || command === 'help') {
    return { kind: 'help' };
  }
  if (command === '--version' || command === 'version') return { kind: 'version' };
  if (command === 'encrypt' || command === 'decrypt') {
    if (rest.includes('-h') || rest.includes('--help')) return { kind: 'help' };
    return { kind: 'stream', args: parseStreamArgs(command, rest) };
  }
  if (command === 'inspect') {
    if (rest.includes('-h') || rest.includes('--help')) return { kind: 'help' };
    return { kind: 'inspect', files: parseInspectArgs(rest) };
  }
  if (command !== 'server') throw new UsageError(`unknown command ${JSON.stringify(command)}`);
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
        args.mount = value;
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
  checkLeaderTiming(args.leaderTtlMs, args.leaderRefreshMs);
  return { kind: 'server', args };
}

/**
 * Split `HOST:PORT` (`[::1]:8200` for IPv6).
 * @throws UsageError for a malformed address.
 */
export function parseListen(value: string, flag = 'listen'): { host: string; port: number } {
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]]+)):([0-9]{1,5})$/.exec(value);
  const port = m ? Number(m[3]) : Number.NaN;
  if (!m || port > 65535)
    throw new UsageError(`--${flag} must be HOST:PORT, got ${JSON.stringify(value)}`);
  return { host: (m[1] ?? m[2]) as string, port };
}

/**
 * A positive integer written in decimal digits (`Number` alone would also take
 * `0x10`, `1e3`, ` 12 ` and `1.0`).
 * @throws UsageError otherwise.
 * @internal
 */
export function positiveInt(value: string, flag: string): number {
  const n = /^[0-9]+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new UsageError(`--${flag} must be a positive integer`);
  }
  return n;
}
