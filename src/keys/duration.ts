/**
 * Vault's `TypeDurationSecond` parsing (reference §13): a JSON number or an
 * integer string is seconds; `"<n>d"` is days; otherwise a Go duration string
 * (`"1h30m"`, `"1.5h"`, `"90m"`, `"3600s"`, `"250ms"`), truncated to whole
 * seconds; `""` is 0; negative values are refused.
 * @module
 */
import { invalidRequest } from '../errors.js';

const UNIT_SECONDS: Readonly<Record<string, number>> = {
  ns: 1e-9,
  us: 1e-6,
  µs: 1e-6,
  μs: 1e-6,
  ms: 1e-3,
  s: 1,
  m: 60,
  h: 3600,
};
const GO_DURATION = /^([0-9]*(?:\.[0-9]*)?)(ns|us|µs|μs|ms|s|m|h)/;

/**
 * Parse a duration field to whole seconds.
 * @throws TransitError `invalid_request` naming the field.
 * @internal
 */
export function parseDurationSeconds(value: unknown, field: string): number {
  if (value === undefined || value === null || value === '') return 0;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw invalidRequest(`invalid duration for ${field}`);
    if (value < 0) throw invalidRequest(`${field}: cannot provide negative value`);
    return checkMax(Math.trunc(value), field);
  }
  if (typeof value !== 'string') throw invalidRequest(`invalid duration for ${field}`);
  const s = value.trim();
  if (/^-/.test(s)) throw invalidRequest(`${field}: cannot provide negative value`);
  if (/^\+?[0-9]+$/.test(s)) return checkMax(Number.parseInt(s, 10), field);
  const days = /^\+?([0-9]+)d$/.exec(s);
  if (days?.[1]) return checkMax(Number.parseInt(days[1], 10) * 86_400, field);
  let rest = s.startsWith('+') ? s.slice(1) : s;
  if (rest === '0') return 0;
  let total = 0;
  let parts = 0;
  while (rest.length > 0) {
    const m = GO_DURATION.exec(rest);
    const num = m?.[1];
    const unit = m?.[2];
    if (!m || num === undefined || unit === undefined || num === '' || num === '.') {
      throw invalidRequest(`invalid duration for ${field}: ${JSON.stringify(value)}`);
    }
    total += Number.parseFloat(num) * (UNIT_SECONDS[unit] ?? 0);
    rest = rest.slice(m[0].length);
    parts++;
  }
  if (parts === 0 || !Number.isFinite(total)) {
    throw invalidRequest(`invalid duration for ${field}: ${JSON.stringify(value)}`);
  }
  return checkMax(Math.trunc(total + 1e-9), field);
}

/** Largest duration Vault can store: int64 nanoseconds, in whole seconds. @internal */
export const MAX_DURATION_SECONDS = 9_223_372_036;

function checkMax(seconds: number, field: string): number {
  if (seconds > MAX_DURATION_SECONDS) throw invalidRequest(`${field}: duration is too large`);
  return seconds;
}

/** Minimum non-zero auto-rotation period: one hour. @internal */
export const MIN_AUTO_ROTATE_SECONDS = 3600;

/**
 * Parse and check `auto_rotate_period`: 0 or at least one hour.
 * @internal
 */
export function parseAutoRotatePeriod(value: unknown): number {
  const s = parseDurationSeconds(value, 'auto_rotate_period');
  if (s !== 0 && s < MIN_AUTO_ROTATE_SECONDS) {
    throw invalidRequest('auto rotate period must be 0 to disable or at least an hour');
  }
  return s;
}
