/**
 * Options shared by the Node audit devices: the size of the bounded buffer
 * (`buffer_entries`, default 8,192 lines; `buffer_bytes`, default 16 MiB) and
 * durations such as the socket's `write_timeout` (as Vault: seconds, or a Go
 * duration string such as `2s`, `1.5s`, `1m30s`, `500ms`).
 *
 * Runtime-neutral.
 * @module
 */

import { DEFAULT_BUFFER_BYTES, DEFAULT_BUFFER_ENTRIES } from '../../src/audit/queue.js';
import { invalidRequest } from '../../src/errors.js';
import { durationValue } from '../../src/request.js';

function positiveInt(
  options: Readonly<Record<string, string>>,
  name: string,
  dflt: number,
): number {
  const v = options[name];
  if (v === undefined || v === '') return dflt;
  const n = /^[0-9]{1,12}$/.test(v) ? Number(v) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1) {
    throw invalidRequest(`options.${name} must be a positive integer, got ${JSON.stringify(v)}`);
  }
  return n;
}

/** `buffer_entries` and `buffer_bytes`. @throws TransitError `invalid_request`. @internal */
export function bufferOptions(options: Readonly<Record<string, string>>): {
  maxEntries: number;
  maxBytes: number;
} {
  return {
    maxEntries: positiveInt(options, 'buffer_entries', DEFAULT_BUFFER_ENTRIES),
    maxBytes: positiveInt(options, 'buffer_bytes', DEFAULT_BUFFER_BYTES),
  };
}

/** The longest wait a Node timer keeps (2^31 - 1 ms, about 24.8 days); past it, it fires at once. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * A duration option in ms, read as Vault reads it (`parseutil.ParseDurationSecond`,
 * src/request.ts): a plain integer is seconds, `<n>d` days, anything else a
 * Go duration string (`1.5s`, `1m30s`, `250ms`, `1h`), kept to the
 * millisecond (a positive duration under 1 ms is 1 ms). Zero, negative, or
 * past what a timer can wait is refused.
 * @throws TransitError `invalid_request` naming the option, the value and why.
 * @internal
 */
export function durationOption(
  options: Readonly<Record<string, string>>,
  name: string,
  dfltMs: number,
): number {
  const v = options[name];
  if (v === undefined || v === '') return dfltMs;
  const seconds = durationValue(v);
  const refuse = (why: string) =>
    invalidRequest(
      `options.${name} must be a duration such as 2s, 1.5s or 500ms, got ${JSON.stringify(v)}: ${why}`,
    );
  if (typeof seconds !== 'number') throw refuse(seconds.why);
  if (seconds < 0) throw refuse('cannot provide negative value');
  if (seconds === 0) throw refuse('must be positive');
  const ms = Math.max(1, Math.round(seconds * 1000));
  if (ms > MAX_TIMER_MS) throw refuse(`at most ${MAX_TIMER_MS} ms (about 24 days)`);
  return ms;
}
