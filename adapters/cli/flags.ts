/**
 * The pieces every command's flag parsing shares: the usage error (exit
 * status 2), a flag's value, and the checked forms of an address, a count
 * and a duration.
 * @module
 */

import { isApiAddr } from '../../src/node/leader-advert.js';
import { redactedValue } from '../../src/util/redact-url.js';
import { isPathOption, mountConflict } from '../http/path-option.js';

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

/**
 * The transit mount (`--mount`, config `mount`): a path such as `/v1/transit`,
 * below `/v1` but not under `/v1/sys` or `/v1/auth`.
 * @param what - the source as the message names it.
 * @throws UsageError otherwise.
 * @internal
 */
export function parseMount(value: unknown, what = '--mount'): string {
  if (!isPathOption(value)) {
    throw new UsageError(`${what} must be a path such as /v1/transit (no trailing slash)`);
  }
  const conflict = mountConflict(value, '/v1');
  if (conflict !== undefined) throw new UsageError(`${what}: ${conflict}`);
  return value;
}

/**
 * An API address (`--api-addr`, config `api_addr`): an absolute `http:` or
 * `https:` URL, as Vault's `api_addr`.
 * @param what - the source as the message names it.
 * @throws UsageError otherwise.
 */
export function parseApiAddr(value: string, what = '--api-addr'): string {
  if (!isApiAddr(value)) {
    throw new UsageError(
      `${what} must be an http or https URL such as https://vault.example:8200, got ${JSON.stringify(redactedValue(value))}`,
    );
  }
  return value;
}
