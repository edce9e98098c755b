/**
 * Vault's weak decoding of one JSON value into a Go type: mapstructure's
 * `WeakDecode`, which Vault's framework runs for every typed field
 * (`FieldData.getPrimitive`) and the token store runs over the whole body of
 * `auth/token/create` (`handleCreateCommon`).
 *
 * The rules (mapstructure's `WeaklyTypedInput`): a boolean is `"1"`/`"0"` as
 * a string and `1`/`0` as an int; a string is an int by Go's `ParseInt` with
 * base prefixes (`"0x1f"`, `"0o17"`, `"017"`, `"0b1"`, `"1_000"`; `""` is 0)
 * and a bool by Go's `ParseBool` (`"t"`, `"TRUE"`, …; `""` is false); a
 * number is a bool when it is 1 or 0 (Vault reads JSON numbers as their text,
 * so `ParseBool` sees `"1"` or `"0"`); an empty list is an empty map and a
 * list of maps merges into one; a single value is lifted into a list, and an
 * empty map is an empty list; a `null` inside a map or list is the zero value.
 *
 * A {@link JsonNumber} (a number literal JavaScript cannot carry as written,
 * `util/json-number.ts`) decodes as Vault's `json.Number`: its text as a string or
 * for `ParseBool`, `json.Number.Int64()` as an int.
 *
 * Each function returns the decoded value, or `undefined` when Vault refuses
 * the value; callers word the refusal. Neutral (imports `request.ts` and two
 * utils).
 * @module
 */

import { goParseBool } from './request.js';
import { JsonNumber, jsonNumberInt } from './util/json-number.js';
import { setOwn } from './util/own.js';

/** A JSON object (not a list, not null, not a kept number literal). @internal */
export const isMap = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof JsonNumber);

/** Go's integer literal syntax as `strconv.ParseInt(s, 0, 64)` reads it. */
const GO_INT =
  /^[+-]?(?:0[xX](?:_?[0-9a-fA-F])+|0[bB](?:_?[01])+|0[oO](?:_?[0-7])+|0(?:_?[0-7])*|[1-9](?:_?[0-9])*)$/;

/**
 * The longest integer literal read. Any int64 is far shorter; Go would also
 * read one padded with thousands of leading zeros, but a body of up to 32 MiB
 * must not make one field cost seconds of regular-expression and BigInt work.
 */
const MAX_INT_LITERAL = 128;

/** `strconv.ParseInt(s, 0, 64)`, within JavaScript's safe integers; `undefined` otherwise. @internal */
export function goParseInt(s: string): number | undefined {
  if (s.length > MAX_INT_LITERAL || !GO_INT.test(s)) return undefined;
  const negative = s.startsWith('-');
  let digits = s.replace(/^[+-]/, '').replaceAll('_', '');
  // A leading 0 without a letter is octal in Go.
  if (/^0[0-7]/.test(digits)) digits = `0o${digits.slice(1)}`;
  const magnitude = BigInt(digits);
  const n = Number(negative ? -magnitude : magnitude);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** A Go `string`: text as is, a number as its text, a boolean `"1"`/`"0"`. @internal */
export function weakString(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (value instanceof JsonNumber) return value.text;
  return undefined;
}

/** A Go `int`: a whole number, a boolean `1`/`0`, or a Go integer literal (`""` is 0). @internal */
export function weakInt(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : undefined;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string') return value === '' ? 0 : goParseInt(value);
  if (value instanceof JsonNumber) return jsonNumberInt(value);
  return undefined;
}

/** A Go `bool`: a boolean, the numbers 1 and 0, or `ParseBool`'s texts (`""` is false). @internal */
export function weakBool(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (value === 1 || value === 0) return value === 1;
  if (typeof value === 'string') return value === '' ? false : goParseBool(value);
  if (value instanceof JsonNumber) return goParseBool(value.text);
  return undefined;
}

/** A Go `map[string]interface{}`: a map, `[]` as `{}`, or a list of maps merged in order. @internal */
export function weakMap(value: unknown): Record<string, unknown> | undefined {
  if (isMap(value)) return value;
  if (!Array.isArray(value) || !value.every(isMap)) return undefined;
  const merged: Record<string, unknown> = {};
  for (const m of value) {
    for (const [k, v] of Object.entries(m)) {
      setOwn(merged, k, v);
    }
  }
  return merged;
}

/** A Go `map[string]string`: {@link weakMap} with each value a {@link weakString} (`null` is `""`). @internal */
export function weakStringMap(value: unknown): Record<string, string> | undefined {
  const map = weakMap(value);
  if (map === undefined) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(map)) {
    const s = v === null ? '' : weakString(v);
    if (s === undefined) return undefined;
    setOwn(out, k, s);
  }
  return out;
}

/**
 * A Go `[]string`: a list of {@link weakString} elements (`null` is `""`), a
 * single number or boolean lifted into a list, `{}` as `[]`. A single string
 * is left to the caller (Vault lifts it whole; transitkit's list fields also
 * split it at commas). @internal
 */
export function weakStrings(value: unknown): string[] | undefined {
  if (Array.isArray(value)) {
    const out: string[] = [];
    for (const v of value) {
      const s = v === null ? '' : weakString(v);
      if (s === undefined) return undefined;
      out.push(s);
    }
    return out;
  }
  if (typeof value === 'number' || typeof value === 'boolean' || value instanceof JsonNumber) {
    const s = weakString(value);
    return s === undefined ? undefined : [s];
  }
  if (isMap(value) && Object.keys(value).length === 0) return [];
  return undefined;
}
