/**
 * Request readers shared by every layer that takes a request object (transit
 * endpoints, leases, tokens, the seal node) and by the HTTP adapter's weak
 * conversions: a request or options argument must be a plain object (or
 * omitted); optional text, integer and boolean fields; Go's
 * `strconv.ParseBool` table; Go's encoding/json type check of the struct
 * fields some Vault handlers decode bodies into; and Vault's
 * `TypeDurationSecond` parsing.
 *
 * A wrong type is an `invalid_request`, never a TypeError or a silent
 * coercion. Durations (reference §13): a JSON number or an integer string is
 * seconds; `"<n>d"` is days; otherwise a Go duration string (`"1h30m"`,
 * `"1.5h"`, `"90m"`, `"3600s"`, `"250ms"`), truncated to whole seconds
 * (`durationValue` keeps the fraction, for millisecond timeouts); `""`
 * is 0; negative values are refused. The reasons are Go's texts (`time:
 * invalid duration "x"`, `time: unknown unit "x" in duration "1x"`,
 * `strconv.ParseInt: parsing "1.5": invalid syntax`, `cannot provide negative
 * value`).
 *
 * A neutral module: it imports only `errors.ts` and `util/`, so any
 * layer may use it.
 * @module
 */
import { invalidRequest } from './errors.js';
import { isDecimalInt, JsonNumber } from './util/json-number.js';

/** A plain object (`{}` literal or `Object.create(null)`), or `{}` when omitted. @internal */
export function asRequest(value: unknown, what = 'request'): Record<string, unknown> {
  if (value === undefined) return {};
  if (typeof value === 'object' && value !== null) {
    const proto = Object.getPrototypeOf(value);
    if (proto === Object.prototype || proto === null) return value as Record<string, unknown>;
  }
  throw invalidRequest(`${what} must be an object`);
}

/** An optional string field (`''` and absent give `undefined`). @internal */
export function optString(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw invalidRequest(`'${field}' must be a string`);
  return value;
}

/** Read an optional integer field. @internal */
export function optInt(value: unknown, field: string): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const n = typeof value === 'string' && /^-?[0-9]+$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n)) {
    throw invalidRequest(`'${field}' must be an integer`);
  }
  return n;
}

/** Read an optional boolean field (Vault's weak parsing of "true"/"false"/1/0). @internal */
export function optBool(value: unknown, field: string): boolean | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === '1' || value === 1) return true;
  if (value === 'false' || value === '0' || value === 0) return false;
  throw invalidRequest(`'${field}' must be a boolean`);
}

/** The texts Go's `strconv.ParseBool` reads as true. @internal */
export const GO_TRUE: ReadonlySet<string> = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
/** The texts Go's `strconv.ParseBool` reads as false. @internal */
export const GO_FALSE: ReadonlySet<string> = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** Go's `strconv.ParseBool` over `text`: `true`, `false`, or `undefined` when it is neither. @internal */
export function goParseBool(text: string): boolean | undefined {
  if (GO_TRUE.has(text)) return true;
  if (GO_FALSE.has(text)) return false;
  return undefined;
}

/** The Go types of the struct fields Vault decodes request bodies into (`sys/init`, `sys/unseal`). @internal */
export type GoFieldType = 'int' | 'bool' | 'string' | '[]string';

/** How Go's encoding/json names a JSON value's kind in its errors. */
const goKind = (value: unknown): string =>
  value instanceof JsonNumber
    ? 'number'
    : Array.isArray(value)
      ? 'array'
      : value === null
        ? 'null'
        : typeof value === 'object'
          ? 'object'
          : typeof value === 'boolean'
            ? 'bool'
            : typeof value;

const INT64 = 2 ** 63;
const INT64_BIG = 2n ** 63n;
const inInt64 = (n: bigint): boolean => n >= -INT64_BIG && n < INT64_BIG;

/**
 * Go's encoding/json storing one decoded JSON value into a struct field
 * (`field`: `InitRequest.secret_shares`, as Go names it) of Go type `type`:
 * `undefined` when it fits, else Go's error text (`json: cannot unmarshal
 * string into Go struct field InitRequest.secret_shares of type int`; a
 * number that is no int64 is `number 2.5`; a wrong list element names the
 * element type). No weak conversion: `"3"` is no int, `"true"` no bool.
 * `null` and absent fit (Go leaves the zero value).
 * @internal
 */
export function goUnmarshalError(
  value: unknown,
  type: GoFieldType,
  field: string,
): string | undefined {
  if (value === undefined || value === null) return undefined;
  const error = (kind: string, into: string) =>
    `json: cannot unmarshal ${kind} into Go struct field ${field} of type ${into}`;
  switch (type) {
    case 'int':
      if (value instanceof JsonNumber) {
        // encoding/json: strconv.ParseInt(literal, 10, 64). JSON has no leading
        // zeros, so an int64 literal has at most 20 characters.
        const t = value.text;
        const ok = t.length <= 20 && isDecimalInt(t) && inInt64(BigInt(t));
        return ok ? undefined : error(`number ${t}`, type);
      }
      if (typeof value !== 'number') return error(goKind(value), type);
      return Number.isInteger(value) && value >= -INT64 && value < INT64
        ? undefined
        : error(`number ${value}`, type);
    case 'bool':
    case 'string':
      return goKind(value) === type ? undefined : error(goKind(value), type);
    case '[]string': {
      if (!Array.isArray(value)) return error(goKind(value), type);
      const bad = value.find((x) => typeof x !== 'string' && x !== null);
      return bad === undefined ? undefined : error(goKind(bad), 'string');
    }
  }
}

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

/** Why a value is not a duration: the kind, and Go's text for it. @internal */
export interface DurationRefusal {
  kind: 'type' | 'negative' | 'syntax' | 'large';
  why: string;
}

/** At most 32 characters of a value, as errors show it. @internal */
export function shownValue(value: unknown): string {
  if (Array.isArray(value)) return '(a list)';
  if (typeof value === 'object' && value !== null) return '(a map)';
  const s = String(value);
  return s.length > 32 ? `${s.slice(0, 32)}…` : s;
}

const quote = (s: string): string => JSON.stringify(s.length > 32 ? `${s.slice(0, 32)}…` : s);

/**
 * Go's `time.ParseDuration` over `s` (reference §13), in seconds; a
 * DurationRefusal with Go's texts. Unlike Vault's `ParseDurationSecond`, a
 * unit is required (`"3600"` is refused) and there are no days.
 * @internal
 */
export function goDuration(s: string): number | DurationRefusal {
  const invalid: DurationRefusal = { kind: 'syntax', why: `time: invalid duration ${quote(s)}` };
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
 * Vault's `parseutil.ParseDurationSecond`, exact: seconds, with the fraction
 * of a Go duration string kept (`"1.5s"` is 1.5, `"250ms"` 0.25), or why the
 * value is refused. No sign or range check (see {@link durationSeconds}).
 * @internal
 */
export function durationValue(value: unknown): number | DurationRefusal {
  if (value === undefined || value === null || value === '') return 0;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) {
      return { kind: 'type', why: 'could not parse duration from input' };
    }
    return value;
  }
  if (typeof value !== 'string')
    return { kind: 'type', why: 'could not parse duration from input' };
  const s = value.trim();
  const days = s.endsWith('d') ? s.slice(0, -1) : undefined;
  if (INTEGER.test(s)) return Number.parseInt(s, 10);
  if (days === undefined) return goDuration(s);
  if (INTEGER.test(days)) return Number.parseInt(days, 10) * 86_400;
  return { kind: 'syntax', why: `strconv.ParseInt: parsing ${quote(days)}: invalid syntax` };
}

/**
 * Vault's `parseutil.ParseDurationSecond` plus the framework's sign check:
 * whole seconds, or why the value is refused.
 * @internal
 */
export function durationSeconds(
  value: unknown,
  subSecond: 'zero' | 'one' = 'zero',
): number | DurationRefusal {
  const seconds = durationValue(value);
  if (typeof seconds !== 'number') return seconds;
  // Truncated to whole seconds first, then the sign checked, as Vault's
  // framework (`field_data.go`: `int(dur.Seconds())`, then `< 0`): `-1ns` is 0.
  const whole = Math.trunc(seconds + (seconds > 0 ? 1e-9 : 0));
  if (whole < 0) return { kind: 'negative', why: 'cannot provide negative value' };
  if (whole > MAX_DURATION_SECONDS) return { kind: 'large', why: 'duration is too large' };
  if (whole === 0) return subSecond === 'one' && seconds > 0 ? 1 : 0;
  return whole;
}

/**
 * Parse a duration field to whole seconds. `subSecond: 'one'`: a positive
 * duration under a second is one second, where 0 would mean "the default" or
 * "no limit" (Vault keeps a token's `time.Duration`, so `500ms` never widens).
 * @throws TransitError `invalid_request` naming the field.
 * @internal
 */
export function parseDurationSeconds(
  value: unknown,
  field: string,
  subSecond: 'zero' | 'one' = 'zero',
): number {
  const r = durationSeconds(value, subSecond);
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
