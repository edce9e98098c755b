/**
 * Command-line parsing of the client commands `transitkit encrypt` and
 * `transitkit decrypt` (issue 17): stream a file or stdin through a
 * server's `encrypt-stream` / `decrypt-stream` route. Same rules as the
 * server's flags (args.ts): `--flag value` or `--flag=value`, unknown flags
 * are usage errors (exit 2). The flags are the `encrypt` and `decrypt` rows
 * of args.ts `COMMAND_FLAGS`, so each also comes from `TRANSITKIT_<FLAG>`,
 * and `--addr`, `--token`, `--ca-cert` from `VAULT_ADDR`, `VAULT_TOKEN`,
 * `VAULT_CACERT`. (args.ts imports this module; this one reads args.ts only
 * inside functions, so the import cycle is harmless.)
 * @module
 */
import { redactedValue } from '../../src/util/redact-url.js';
import { COMMAND_FLAGS } from './args.js';
import { flagValue, positiveInt, UsageError } from './flags.js';

/** `transitkit encrypt|decrypt` options. */
export interface StreamArgs {
  op: 'encrypt' | 'decrypt';
  /** The transit key (`--key`). */
  key: string;
  /** Server address, `http(s)://HOST:PORT` (`--addr`). */
  addr?: string;
  /** Token (`--token`); never printed. */
  token?: string;
  /** Base64 context of a derived key (`--context`). */
  context?: string;
  /** Version of the key that wraps the data key (`--key-version`, encrypt only). */
  keyVersion?: number;
  /** Transit mount path (`--mount`, default `/v1/transit`). */
  mount?: string;
  /** PEM file of the CA that signed an `https` server's certificate (`--ca-cert`). */
  caCert?: string;
  /** Input file (`--in`); stdin when absent or `-`. */
  in?: string;
  /** Output file (`--out`), written whole or not at all (a device or FIFO directly); stdout when absent or `-`. */
  out?: string;
}

/** The `--help` section of the client commands. */
export const STREAM_USAGE = `
Usage: transitkit encrypt --key NAME [options]
       transitkit decrypt --key NAME [options]

Encrypt or decrypt a large object of any size through a transitkit server's
encrypt-stream and decrypt-stream routes (a TKS1 envelope: a data key wrapped
by the transit key, then Cobblestone-256 chunks), stdin to stdout by default,
in constant memory. Decryption writes only authenticated plaintext; any
failure exits 1 (a partial --out file is never left behind).

Options:
  --key NAME                  the transit key (required)
  --addr URL                  server address (default $VAULT_ADDR, else http://127.0.0.1:8200)
  --token TOKEN               token with update on transit/encrypt-stream/NAME or
                              transit/decrypt-stream/NAME (default $VAULT_TOKEN)
  --context BASE64            context of a derived key (the same one decrypts)
  --key-version N             encrypt: version of the key that wraps the data key
  --mount PATH                transit mount path (default /v1/transit)
  --ca-cert FILE              CA certificate (PEM) of an https server (default $VAULT_CACERT)
  --in FILE                   read FILE instead of stdin
  --out FILE                  write FILE (via a temporary file in the same directory,
                              renamed only on success; a device or FIFO such as
                              /dev/null is written directly) instead of stdout
  A progress line is shown on stderr when it is a terminal and the input is large.
`;

/**
 * Parse the flags of `transitkit encrypt|decrypt` (after the command).
 * @throws UsageError for an unknown flag, a missing or bad value, or no `--key`.
 */
export function parseStreamArgs(op: 'encrypt' | 'decrypt', rest: readonly string[]): StreamArgs {
  const flags = COMMAND_FLAGS[op]?.value ?? new Set<string>();
  const got: Record<string, string> = {};
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i] as string;
    if (!arg.startsWith('--')) throw new UsageError(`unexpected argument ${JSON.stringify(arg)}`);
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    if (!flags.has(name)) {
      throw new UsageError(
        name === 'key-version'
          ? '--key-version is for encrypt only'
          : `unknown flag --${name} for ${op}`,
      );
    }
    got[name] = flagValue(rest, i, eq, name);
    if (eq < 0) i++;
  }
  const key = got.key;
  if (key === undefined) throw new UsageError(`${op} needs --key NAME`);
  const args: StreamArgs = { op, key };
  if (got.addr !== undefined) {
    if (!/^https?:\/\/[^/]+\/?$/i.test(got.addr)) {
      throw new UsageError(
        `--addr must be http(s)://HOST:PORT, got ${JSON.stringify(redactedValue(got.addr))}`,
      );
    }
    args.addr = got.addr.replace(/\/$/, '');
  }
  if (got.token !== undefined) args.token = got.token;
  if (got.context !== undefined) {
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(got.context)) {
      throw new UsageError('--context must be base64');
    }
    args.context = got.context;
  }
  if (got['key-version'] !== undefined)
    args.keyVersion = positiveInt(got['key-version'], 'key-version');
  if (got.mount !== undefined) {
    if (!/^(\/[A-Za-z0-9_.~-]+)+$/.test(got.mount)) {
      throw new UsageError('--mount must be a path such as /v1/transit');
    }
    args.mount = got.mount;
  }
  if (got['ca-cert'] !== undefined) args.caCert = got['ca-cert'];
  if (got.in !== undefined && got.in !== '-') args.in = got.in;
  if (got.out !== undefined && got.out !== '-') args.out = got.out;
  return args;
}
