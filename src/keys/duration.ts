/**
 * Vault's `TypeDurationSecond` parsing (reference §13): a JSON number or an
 * integer string is seconds; `"<n>d"` is days; otherwise a Go duration string
 * (`"1h30m"`, `"1.5h"`, `"90m"`, `"3600s"`, `"250ms"`), truncated to whole
 * seconds; `""` is 0; negative values are refused. The reasons are Go's texts
 * (`time: invalid duration "x"`, `time: unknown unit "x" in duration "1x"`,
 * `strconv.ParseInt: parsing "1.5": invalid syntax`, `cannot provide negative
 * value`); `auto_rotate_period` shows them in Vault's framework wording.
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
const INTEGER = /^[+-]?[0-9]+$/;

/** Why a value is not a duration: the kind, and Go's text for it. */
interface Refusal {
  kind: 'type' | 'negative' | 'syntax' | 'large';
  why: string;
}

/** At most 32 characters of a value, as errors show it. */
function shown(value: unknown): string {
  if (Array.isArray(value)) return '(a list)';
  if (typeof value === 'object' && value !== null) return '(a map)';
  const s = String(value);
  return s.length > 32 ? `${s.slice(0, 32)}…` : s;
}

const quote = (s: string): string => JSON.stringify(s.length > 32 ? `${s.slice(0, 32)}…` : s);

/** Go's `time.ParseDuration` over `s` (reference §13), in seconds; a Refusal with Go's texts. */
function goDuration(s: string): number | Refusal {
  const invalid: Refusal = { kind: 'syntax', why: `time: invalid duration ${quote(s)}` };
  let rest = s;
  const neg = rest.startsWith('-');
  if (neg || rest.startsWith('+')) rest = rest.slice(1);
  if (rest === '0') return 0;
  if (rest === '') return invalid;
  let total = 0;
  while (rest.length > 0) {
    const m = /^([0-9]*)(?:\.([0-9]*))?/.exec(rest);
    const pre = m?.[1] ?? '';
    const post = m?.[2] ?? '';
    if (!m || (pre === '' && post === '')) return invalid;
    rest = rest.slice(m[0].length);
    const unit = /^[^0-9.]*/.exec(rest)?.[0] ?? '';
    if (unit === '') return { kind: 'syntax', why: `time: missing unit in duration ${quote(s)}` };
    const scale = UNIT_SECONDS[unit];
    if (scale === undefined) {
      return { kind: 'syntax', why: `time: unknown unit ${quote(unit)} in duration ${quote(s)}` };
    }
    total += Number.parseFloat(`${pre || '0'}.${post || '0'}`) * scale;
    rest = rest.slice(unit.length);
  }
  if (!Number.isFinite(total)) return invalid;
  return neg ? -total : total;
}

/**
 * Vault's `parseutil.ParseDurationSecond` plus the framework's sign check:
 * whole seconds, or why the value is refused.
 */
function durationSeconds(value: unknown): number | Refusal {
  if (value === undefined || value === null || value === '') return 0;
  let seconds: number | Refusal;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) {
      return { kind: 'type', why: 'could not parse duration from input' };
    }
    seconds = value;
  } else if (typeof value === 'string') {
    const s = value.trim();
    const days = s.endsWith('d') ? s.slice(0, -1) : undefined;
    if (INTEGER.test(s)) seconds = Number.parseInt(s, 10);
    else if (days === undefined) seconds = goDuration(s);
    else if (INTEGER.test(days)) seconds = Number.parseInt(days, 10) * 86_400;
    else {
      return { kind: 'syntax', why: `strconv.ParseInt: parsing ${quote(days)}: invalid syntax` };
    }
  } else {
    return { kind: 'type', why: 'could not parse duration from input' };
  }
  if (typeof seconds !== 'number') return seconds;
  const whole = Math.trunc(seconds + (seconds > 0 ? 1e-9 : 0));
  if (whole < 0) return { kind: 'negative', why: 'cannot provide negative value' };
  if (whole > MAX_DURATION_SECONDS) return { kind: 'large', why: 'duration is too large' };
  return whole === 0 ? 0 : whole;
}

/**
 * Parse a duration field to whole seconds.
 * @throws TransitError `invalid_request` naming the field.
 * @internal
 */
export function parseDurationSeconds(value: unknown, field: string): number {
  const r = durationSeconds(value);
  if (typeof r === 'number') return r;
  switch (r.kind) {
    case 'type':
      throw invalidRequest(`invalid duration for ${field}`);
    case 'syntax':
      throw invalidRequest(`invalid duration for ${field}: ${JSON.stringify(value)}`);
    default:
      throw invalidRequest(`${field}: ${r.why}`);
  }
}

/** Largest duration Vault can store: int64 nanoseconds, in whole seconds. @internal */
export const MAX_DURATION_SECONDS = 9_223_372_036;

/** Minimum non-zero auto-rotation period: one hour. @internal */
export const MIN_AUTO_ROTATE_SECONDS = 3600;

/**
 * Parse and check `auto_rotate_period`: 0 or at least one hour. A value that
 * is not a duration is refused with Vault's framework text (the field is a
 * `TypeDurationSecond`): `Field validation failed: error converting input <v>
 * for field "auto_rotate_period": <why>` (reference §9, §13); a period under
 * an hour with the handler's own text.
 * @internal
 */
export function parseAutoRotatePeriod(value: unknown): number {
  const s = durationSeconds(value);
  if (typeof s !== 'number') {
    throw invalidRequest(
      `Field validation failed: error converting input ${shown(value)} for field "auto_rotate_period": ${s.why}`,
    );
  }
  if (s !== 0 && s < MIN_AUTO_ROTATE_SECONDS) {
    throw invalidRequest('auto rotate period must be 0 to disable or at least an hour');
  }
  return s;
}
