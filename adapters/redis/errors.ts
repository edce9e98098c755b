/**
 * How Redis failures become `TransitError`s.
 *
 * Every failure of a Redis command surfaces as `TransitError` `internal` (an
 * unexpected backend failure) whose message starts with `RedisStorage:` and names
 * the operation. Connection problems (refused, reset, closed, retries exhausted)
 * say `Redis is unreachable`. Messages and causes never carry command arguments:
 * ioredis attaches them (values, keys) to its reply errors, so the original error
 * is replaced by a copy holding only its name and message.
 *
 * @module
 */
import { internal, isTransitError, type TransitError } from '../../src/errors.js';

const CONNECTION =
  /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|EPIPE|Connection is closed|max retries per request|Stream isn't writeable|enableOfflineQueue|LOADING/i;

/** True when `e` looks like a lost or refused connection. @internal */
export function isConnectionError(e: unknown): boolean {
  return e instanceof Error && (CONNECTION.test(e.message) || CONNECTION.test(e.name));
}

/** The message of `e` (never its attached command). @internal */
export function describe(e: unknown): string {
  if (e instanceof Error) return e.message.split('\n')[0] ?? e.name;
  return String(e);
}

/**
 * Wrap a failure of `op` as `TransitError` `internal`, without command arguments;
 * `unknownOutcome`: a write that may have run says so. TransitErrors pass through.
 * @internal
 */
export function redisFailure(op: string, e: unknown, unknownOutcome = false): TransitError {
  if (isTransitError(e)) return e;
  const what = isConnectionError(e) ? 'Redis is unreachable' : 'Redis command failed';
  const outcome = unknownOutcome
    ? '; the write may have reached Redis before the connection was lost, so it may or may not have been applied'
    : '';
  const cause = new Error(describe(e));
  cause.name = e instanceof Error ? e.name : 'Error';
  return internal(`RedisStorage: ${op} failed: ${what} (${describe(e)})${outcome}`, cause);
}
