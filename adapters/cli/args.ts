/**
 * Command-line parsing for `transitkit`: `--flag value`, `--flag=value` and
 * boolean `--flag`. No dependencies; unknown flags are errors (exit 2), so a
 * typo never starts a server with a default the operator did not want.
 * @module
 */

import { UsageError } from './flags.js';
import { INSPECT_USAGE, parseInspectArgs } from './inspect-command.js';
import { parseServerArgs, type ServerArgs, USAGE, VALUE_FLAGS } from './server-args.js';
import { parseStreamArgs, STREAM_USAGE, type StreamArgs } from './stream-args.js';

// The names their importers (main.ts, the tests) have always taken from here.
export { parseListen, UsageError } from './flags.js';
export { type ServerArgs, USAGE } from './server-args.js';

/** A parsed command line. */
export type Command =
  | { kind: 'server'; args: ServerArgs }
  | { kind: 'stream'; args: StreamArgs }
  | { kind: 'inspect'; files: string[] }
  | { kind: 'help' }
  | { kind: 'version' };

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
  server: {
    value: VALUE_FLAGS,
    boolean: new Set(['dev', 'unauthenticated-metrics-access']),
    fallback: { 'api-addr': ['VAULT_API_ADDR'] },
  },
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
  return parseServerArgs(rest);
}
