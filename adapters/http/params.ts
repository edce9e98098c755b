/**
 * A request's fields: path parameters, query (GET, LIST, DELETE) or JSON body
 * (POST, PUT), merged, checked against the row's schema and converted the way
 * Vault's framework converts JSON (`FieldData` with weak decoding).
 *
 * - Path parameters win over query and body values of the same name (Vault's
 *   captures override the raw data).
 * - Only declared fields reach the library; each is converted to its type or
 *   refused with 400 `Field validation failed: error converting input … for
 *   field "…": …`. A JSON `null` counts as absent.
 * - Undeclared fields are dropped with Vault's warning `Endpoint ignored these
 *   unrecognized parameters: [a b]`, or refused (400) in strict mode.
 * - Values of text fields are never echoed in errors (they may be plaintext).
 *
 * Runtime-neutral.
 * @module
 */
import { invalidRequest } from '../../src/errors.js';
import { GO_FALSE, GO_TRUE } from '../../src/request.js';
import { checkJsonLimits, DEFAULT_JSON_LIMITS, type ResolvedJsonLimits } from './json-limits.js';
import type { Fields, FieldType, Route } from './route.js';

const INT = /^[+-]?[0-9]+$/;

/** How undeclared fields are treated. @public */
export type UnknownFields = 'warn' | 'reject';

function describe(value: unknown, type: FieldType): string {
  const echo =
    typeof value === 'number' ||
    typeof value === 'boolean' ||
    (typeof value === 'string' && (type === 'int' || type === 'bool' || type === 'duration'));
  if (echo) {
    const s = String(value);
    return s.length > 32 ? `${s.slice(0, 32)}…` : s;
  }
  if (Array.isArray(value)) return '(a list)';
  return `(a ${typeof value === 'object' ? 'map' : typeof value})`;
}

function refuse(field: string, value: unknown, type: FieldType, why: string): never {
  throw invalidRequest(
    `Field validation failed: error converting input ${describe(value, type)} for field "${field}": ${why}`,
  );
}

const isMap = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Convert one value to a field type (Vault's weak decoding). @internal */
export function coerce(field: string, type: FieldType, value: unknown): unknown {
  switch (type) {
    case 'string':
      if (typeof value === 'string') return value;
      if (typeof value === 'number' || typeof value === 'boolean') return String(value);
      return refuse(field, value, type, 'expected a string');
    case 'int':
      if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
      if (typeof value === 'string' && INT.test(value.trim())) {
        const n = Number(value.trim());
        if (Number.isSafeInteger(n)) return n;
      }
      return refuse(field, value, type, 'expected an integer');
    case 'bool':
      if (typeof value === 'boolean') return value;
      if (value === 1 || value === 0) return value === 1;
      if (typeof value === 'string' && GO_TRUE.has(value)) return true;
      if (typeof value === 'string' && GO_FALSE.has(value)) return false;
      return refuse(field, value, type, 'expected a boolean');
    case 'duration':
      if (typeof value === 'number' && Number.isFinite(value)) return value;
      if (typeof value === 'string') return value;
      return refuse(field, value, type, 'expected seconds or a duration string');
    case 'array':
      if (Array.isArray(value)) return value;
      return refuse(field, value, type, 'expected a list');
    case 'map':
      if (isMap(value)) return value;
      return refuse(field, value, type, 'expected a map');
    case 'strings':
      if (typeof value === 'string') {
        return value
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== '');
      }
      if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value;
      return refuse(field, value, type, 'expected a list of strings');
  }
}

/** The converted fields of a request and the names it ignored. @internal */
export interface Parsed {
  body: Record<string, unknown>;
  unknown: string[];
}

/**
 * Merge and convert a request's fields for a row.
 * @param raw - the query (as an object of first values) or the parsed JSON body
 * @throws TransitError `invalid_request` for a field that does not convert, or an
 * undeclared field in `reject` mode.
 * @internal
 */
export function parseFields(
  route: Route,
  pathParams: Readonly<Record<string, string>>,
  raw: Readonly<Record<string, unknown>>,
  mode: UnknownFields,
): Parsed {
  const fields: Fields = route.fields;
  const body: Record<string, unknown> = {};
  const unknown: string[] = [];
  for (const key of Object.keys(raw)) {
    const type = Object.hasOwn(fields, key) ? fields[key] : undefined;
    if (type === undefined) {
      if (!Object.hasOwn(pathParams, key)) unknown.push(key);
      continue;
    }
    const value = raw[key];
    if (value === null || value === undefined) continue;
    body[key] = coerce(key, type, value);
  }
  for (const [key, value] of Object.entries(pathParams)) {
    const type = Object.hasOwn(fields, key) ? fields[key] : undefined;
    if (type !== undefined) body[key] = coerce(key, type, value);
  }
  unknown.sort();
  if (unknown.length > 0 && mode === 'reject') {
    throw invalidRequest(`unrecognized parameters: [${unknown.join(' ')}]`);
  }
  return { body, unknown };
}

/** Vault's warning for ignored fields. @internal */
export const unknownFieldsWarning = (names: readonly string[]): string =>
  `Endpoint ignored these unrecognized parameters: [${names.join(' ')}]`;

/** A query string as an object of first values (`list` is the method, not a field). @internal */
export function queryFields(query: URLSearchParams): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of query) {
    if (k === 'list' || Object.hasOwn(out, k)) continue;
    Object.defineProperty(out, k, {
      value: v,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/**
 * Parse a JSON body: empty is `{}`; anything but an object is refused, and
 * so is a body past the nesting, list-size or value-count limits (checked
 * before anything is built, json-limits.ts).
 * @throws TransitError `invalid_request` `failed to parse JSON input: …`.
 * @internal
 */
export function parseJsonBody(
  bytes: Uint8Array | string | undefined,
  limits: ResolvedJsonLimits = DEFAULT_JSON_LIMITS,
): Record<string, unknown> {
  let text = '';
  try {
    text = typeof bytes === 'string' ? bytes : bytes ? UTF8.decode(bytes) : '';
  } catch {
    throw invalidRequest('failed to parse JSON input: the body is not valid UTF-8');
  }
  if (text.trim() === '') return {};
  checkJsonLimits(text, limits);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw invalidRequest(`failed to parse JSON input: ${jsonErrorWhere(text, e)}`);
  }
  if (!isMap(value)) {
    throw invalidRequest('failed to parse JSON input: the request body must be a JSON object');
  }
  return value;
}

const UTF8 = /* @__PURE__ */ new TextDecoder('utf-8', { fatal: true });

/** Where JSON.parse failed, without quoting the input (it may hold plaintext). */
function jsonErrorWhere(text: string, e: unknown): string {
  const msg = e instanceof Error ? e.message : '';
  if (/end of JSON input|Unterminated/i.test(msg)) return 'unexpected end of JSON input';
  const pos = /position (\d+)/.exec(msg)?.[1];
  if (pos === undefined) return 'invalid JSON';
  const at = Number(pos);
  const before = text.slice(0, at);
  const line = before.split('\n').length;
  const column = at - before.lastIndexOf('\n');
  return `invalid JSON at line ${line}, column ${column}`;
}
