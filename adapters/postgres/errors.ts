/**
 * How PostgreSQL failures become `TransitError`s, and which of them may be retried.
 *
 * Every failure surfaces as `TransitError` `internal` whose message starts with
 * `PostgresStorage:` and names the operation. Connection problems say
 * `PostgreSQL is unreachable`; a statement cancelled by `statement_timeout` says
 * so. Messages and causes never carry values or keys: node-postgres errors hold
 * only the server's message and fields such as `detail` (which can quote a row),
 * so the original error is replaced by one holding its SQLSTATE and first line.
 *
 * @module
 */
import { internal, invalidRequest, isTransitError, type TransitError } from '../../src/errors.js';

/** Node socket errors of a refused, reset or unreachable connection. */
const SOCKET =
  /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EPIPE|EAI_AGAIN/;
/** node-postgres messages of a connection lost or not yet made. */
const LOST =
  /Connection terminated|connection timeout|Client has encountered a connection error|Client was closed|timeout exceeded when trying to connect/i;

/**
 * SQLSTATEs of a server that is going away or not there yet: admin_shutdown,
 * crash_shutdown, cannot_connect_now (starting up / shutting down), and class
 * 08 (connection exceptions).
 */
function connectionState(code: unknown): boolean {
  return (
    typeof code === 'string' &&
    (code === '57P01' || code === '57P02' || code === '57P03' || code.startsWith('08'))
  );
}

/** True when `e` is a lost, refused or not-yet-possible connection. @internal */
export function isConnectionError(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  const code = (e as { code?: unknown }).code;
  return (
    connectionState(code) ||
    (typeof code === 'string' && SOCKET.test(code)) ||
    SOCKET.test(e.message) ||
    LOST.test(e.message)
  );
}

/** The first line of `e`'s message. @internal */
export function describe(e: unknown): string {
  if (e instanceof Error) {
    const msg = e.message.split('\n')[0] || e.name;
    // AggregateError (several addresses refused) has an empty message.
    const errors = (e as { errors?: unknown }).errors;
    if (msg === e.name && Array.isArray(errors) && errors[0] instanceof Error) {
      return describe(errors[0]);
    }
    return msg;
  }
  return String(e);
}

/**
 * Wrap a failure of `op` as `TransitError` `internal`, with only the SQLSTATE and
 * first line of the original. TransitErrors pass through.
 * @internal
 */
export function pgFailure(op: string, e: unknown, unknownOutcome = false): TransitError {
  if (isTransitError(e)) return e;
  const code = (e as { code?: unknown } | undefined)?.code;
  if (code === '54000') {
    // program_limit_exceeded: here, a sort_key too large for its btree index row.
    return invalidRequest(
      `PostgresStorage: ${op} failed: the key is too long for PostgreSQL's index (an index row holds about 2,700 bytes of the key's UTF-16 code units after compression; keys of up to 1,000 code units always fit) [54000]`,
    );
  }
  let what = 'PostgreSQL statement failed';
  if (isConnectionError(e)) what = 'PostgreSQL is unreachable';
  else if (code === '57014') what = 'PostgreSQL cancelled the statement (statement timeout)';
  const outcome = unknownOutcome
    ? '; the connection was lost while the write was in flight, so it may or may not have been applied'
    : '';
  const cause = new Error(describe(e));
  cause.name = e instanceof Error ? e.name : 'Error';
  if (typeof code === 'string') (cause as Error & { code?: string }).code = code;
  return internal(
    `PostgresStorage: ${op} failed: ${what}${typeof code === 'string' ? ` [${code}]` : ''} (${describe(e)})${outcome}`,
    cause,
  );
}
