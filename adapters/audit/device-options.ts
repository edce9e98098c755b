/**
 * Options shared by the Node audit devices: the size of the bounded buffer
 * (`buffer_entries`, default 8,192 lines; `buffer_bytes`, default 16 MiB) and
 * durations such as the socket's `write_timeout` (`2s`, `500ms`, or seconds).
 *
 * Runtime-neutral.
 * @module
 */

import { DEFAULT_BUFFER_BYTES, DEFAULT_BUFFER_ENTRIES } from '../../src/audit/queue.js';
import { invalidRequest } from '../../src/errors.js';

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

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000 };

/** A duration option in ms (`2s`, `500ms`, `1m`, or whole seconds). @throws TransitError `invalid_request`. @internal */
export function durationOption(
  options: Readonly<Record<string, string>>,
  name: string,
  dfltMs: number,
): number {
  const v = options[name];
  if (v === undefined || v === '') return dfltMs;
  const m = /^([0-9]{1,9})(ms|s|m)?$/.exec(v);
  const ms = m ? Number(m[1]) * (UNIT_MS[m[2] ?? 's'] as number) : 0;
  if (ms < 1) {
    throw invalidRequest(
      `options.${name} must be a duration such as 2s or 500ms, got ${JSON.stringify(v)}`,
    );
  }
  return ms;
}
