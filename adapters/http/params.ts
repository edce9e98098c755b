/**
 * A request's fields: path parameters, query (GET, LIST, DELETE) or JSON body
 * (POST, PUT), merged, checked against the row's endpoint schema
 * (src/schema.ts, compiled once per row by {@link compileFields}) and
 * converted the way Vault's framework converts JSON (`FieldData` with weak
 * decoding).
 *
 * - Path parameters win over query and body values of the same name (Vault's
 *   captures override the raw data).
 * - Only declared fields reach the library; each is converted to its type or
 *   refused with 400 `Field validation failed: error converting input … for
 *   field "…": …`. A JSON `null` counts as absent. A field of a Go struct
 *   (`GoFieldSpec`: `sys/init`, `sys/unseal`) is not converted: a wrong
 *   JSON type is refused with Go's encoding/json text, as Vault; and its
 *   name matches in any case (`"Secret_Shares"`, `"KEY"`), as encoding/json.
 * - Undeclared fields are dropped with Vault's warning `Endpoint ignored these
 *   unrecognized parameters: [a b]`, or refused (400) in strict mode.
 * - A JSON number is read as its literal text, as Vault reads it: a body with
 *   a literal JavaScript cannot carry as written (`3.0`, `1e3`) is parsed
 *   again keeping it (`json-literals.ts`, `src/util/json-number.ts`).
 * - Values of text fields are never echoed in errors (they may be plaintext).
 *
 * Runtime-neutral.
 * @module
 */
import { invalidRequest } from '../../src/errors.js';
import { goUnmarshalError } from '../../src/request.js';
import type { EndpointSchema, FieldSpec, FieldType } from '../../src/schema.js';
import { JsonNumber } from '../../src/util/json-number.js';
import { setOwn } from '../../src/util/own.js';
import {
  isMap,
  weakBool,
  weakInt,
  weakMap,
  weakString,
  weakStrings,
} from '../../src/weak-decode.js';
import {
  checkJsonLimits,
  checkValueLimits,
  DEFAULT_JSON_LIMITS,
  type ResolvedJsonLimits,
} from './json-limits.js';
import { parseKeepingLiterals } from './json-literals.js';
import type { Route } from './route.js';

/** How undeclared fields are treated. @public */
export type UnknownFields = 'warn' | 'reject';

function describe(value: unknown, type: FieldType): string {
  if (value instanceof JsonNumber) value = value.text;
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

type Convert = (value: unknown) => unknown;

/**
 * A field of one of the Go structs some Vault handlers decode a body into
 * with encoding/json instead of the framework (`sys/init`'s `InitRequest`,
 * `sys/unseal`'s `UnsealRequest`): no weak conversion. `go` names the struct
 * field as Go's errors do (`InitRequest.secret_shares`); a value of the wrong
 * JSON type is refused with Go's text, as Vault's `parseJSONRequest` words it
 * (`failed to parse JSON input: json: cannot unmarshal string into Go struct
 * field InitRequest.secret_shares of type int`).
 * @internal
 */
export interface GoFieldSpec extends FieldSpec {
  readonly type: 'int' | 'bool' | 'string' | 'strings';
  readonly go: string;
}

const GO_TYPES = { int: 'int', bool: 'bool', string: 'string', strings: '[]string' } as const;

/**
 * A JSON key as encoding/json folds it to match a struct field when no field
 * has the exact name (Go's `foldName`): ASCII letters in upper case, and the
 * two non-ASCII letters whose simple folds reach ASCII, the Kelvin sign
 * (U+212A, K) and the long s (U+017F, S). Every other character stays, so
 * it can only match itself (the fields here are ASCII).
 */
const goFold = (key: string): string =>
  key.replace(/[a-z\u212a\u017f]/g, (c) =>
    c === '\u212a' ? 'K' : c === '\u017f' ? 'S' : c.toUpperCase(),
  );

/** The converter of a {@link GoFieldSpec}: the value as decoded, or Go's refusal. */
function goConverter(spec: GoFieldSpec): Convert {
  const type = GO_TYPES[spec.type];
  return (v) => {
    const error = goUnmarshalError(v, type, spec.go);
    if (error !== undefined) throw invalidRequest(`failed to parse JSON input: ${error}`);
    // An int literal JavaScript cannot carry as written (`-0`, past 2^53) that Go reads.
    return v instanceof JsonNumber ? Number(v.text) + 0 : v;
  };
}

/** The converter of one field (Vault's weak decoding, or Go's for a GoFieldSpec), chosen once per field. */
function converterOf(field: string, spec: FieldSpec): Convert {
  if (typeof (spec as Partial<GoFieldSpec>).go === 'string')
    return goConverter(spec as GoFieldSpec);
  const type = spec.type;
  const no = (value: unknown, why: string) => refuse(field, value, type, why);
  switch (type) {
    case 'string':
      return (v) => weakString(v) ?? no(v, 'expected a string');
    case 'int':
      return (v) => weakInt(v) ?? no(v, 'expected an integer');
    case 'bool':
      return (v) => weakBool(v) ?? no(v, 'expected a boolean');
    case 'duration':
      // Vault's ParseDurationSecond reads a json.Number as its text.
      return (v) =>
        (typeof v === 'number' && Number.isFinite(v)) || typeof v === 'string'
          ? v
          : v instanceof JsonNumber
            ? v.text
            : no(v, 'expected seconds or a duration string');
    case 'array':
      return (v) => (Array.isArray(v) ? v : no(v, 'expected a list'));
    case 'map':
      return (v) => weakMap(v) ?? no(v, 'expected a map');
    case 'strings':
      return (v) => {
        // Vault lifts a single string into a list whole (`""` is `[""]`); a
        // comma-separated one is split here. Empty names stay for the consumer
        // (a token create's `[""]` names no policy, where `[]` inherits).
        if (typeof v === 'string') return v.split(',').map((s) => s.trim());
        return weakStrings(v) ?? no(v, 'expected a list of strings');
      };
  }
}

/** Convert one value to a field type (Vault's weak decoding). @internal */
export const coerce = (field: string, type: FieldType, value: unknown): unknown =>
  converterOf(field, { type, description: '' })(value);

/** The converted fields of a request and the names it ignored. @internal */
export interface Parsed {
  body: Record<string, unknown>;
  unknown: string[];
}

/**
 * A row's field parser: merges and converts a request's fields.
 * `raw` is the query (as an object of first values) or the parsed JSON body.
 * @throws TransitError `invalid_request` for a field that does not convert, or an
 * undeclared field in `reject` mode.
 * @internal
 */
export type FieldParser = (
  pathParams: Readonly<Record<string, string>>,
  raw: Readonly<Record<string, unknown>>,
  mode: UnknownFields,
) => Parsed;

/**
 * Compile an endpoint schema into its field parser, once (at load): one
 * converter per declared field, looked up by name; no walk of the schema per
 * request.
 * @internal
 */
export function compileFields(schema: EndpointSchema): FieldParser {
  const convert = new Map<string, Convert>();
  // A Go struct's fields also match their names in any case (encoding/json).
  const folded = new Map<string, string>();
  for (const name of schema.names) {
    const spec = schema.fields[name] as FieldSpec;
    convert.set(name, converterOf(name, spec));
    if (typeof (spec as Partial<GoFieldSpec>).go === 'string') folded.set(goFold(name), name);
  }
  return (pathParams, raw, mode) => {
    const body: Record<string, unknown> = {};
    const unknown: string[] = [];
    for (const key of Object.keys(raw)) {
      let name = key;
      let to = convert.get(key);
      if (to === undefined && folded.size > 0) {
        name = folded.get(goFold(key)) ?? key;
        to = convert.get(name);
      }
      if (to === undefined) {
        if (!Object.hasOwn(pathParams, key)) unknown.push(key);
        continue;
      }
      const value = raw[key];
      if (value === null || value === undefined) continue;
      body[name] = to(value); // a later key for the same field wins, as in Go
    }
    for (const key of Object.keys(pathParams)) {
      const to = convert.get(key);
      if (to !== undefined) body[key] = to(pathParams[key]);
    }
    unknown.sort();
    if (unknown.length > 0 && mode === 'reject') {
      throw invalidRequest(`unrecognized parameters: [${unknown.join(' ')}]`);
    }
    return { body, unknown };
  };
}

/**
 * Merge and convert a request's fields for a row (its compiled parser).
 * @internal
 */
export const parseFields = (
  route: Route,
  pathParams: Readonly<Record<string, string>>,
  raw: Readonly<Record<string, unknown>>,
  mode: UnknownFields,
): Parsed => route.parse(pathParams, raw, mode);

/** Vault's warning for ignored fields. @internal */
export const unknownFieldsWarning = (names: readonly string[]): string =>
  `Endpoint ignored these unrecognized parameters: [${names.join(' ')}]`;

/** A query string as an object of first values (`list` is the method, not a field). @internal */
export function queryFields(query: URLSearchParams): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of query) {
    if (k === 'list' || Object.hasOwn(out, k)) continue;
    setOwn(out, k, v);
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
  const literals = checkJsonLimits(text, limits);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw invalidRequest(`failed to parse JSON input: ${jsonErrorWhere(text, e)}`);
  }
  // Vault reads numbers as their text (json-number.ts): `3.0` is no int.
  if (literals) value = parseKeepingLiterals(text);
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

/**
 * The request's raw fields: the JSON body of a POST (read within `maxBytes`;
 * a body parser's object is used as is, checked against the same shape
 * limits, not stringified and parsed again), else the query.
 * @throws TransitError `payload_too_large` past `maxBytes`, `invalid_request` for bad JSON.
 * @internal
 */
export async function rawFields(
  body: ((limit: number) => Promise<unknown>) | undefined,
  post: boolean,
  query: URLSearchParams,
  o: { maxRequestBytes: number; jsonLimits: ResolvedJsonLimits },
  contentType?: string,
): Promise<Record<string, unknown>> {
  if (!post) return queryFields(query);
  const got = body ? await body(o.maxRequestBytes) : undefined;
  const isObject = typeof got === 'object' && got !== null && !(got instanceof Uint8Array);
  if (isObject && checkValueLimits(got as Record<string, unknown>, o.jsonLimits)) {
    return got as Record<string, unknown>;
  }
  if (!isObject && isFormType(contentType)) {
    const form = formFields(got as Uint8Array | string | undefined, o.jsonLimits);
    if (form && checkValueLimits(form, o.jsonLimits)) return form;
  }
  return parseJsonBody(
    isObject ? JSON.stringify(got) : (got as Uint8Array | string | undefined),
    o.jsonLimits,
  );
}

/** Whether a Content-Type names an HTML form (`application/x-www-form-urlencoded`). */
function isFormType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const media = contentType.split(';', 1)[0]?.trim().toLowerCase();
  return media === 'application/x-www-form-urlencoded';
}

/**
 * A form body's fields, as Vault's `parseFormRequest` (`curl -d a=b`): each
 * field its value, a repeated one its values joined with `,`. `undefined`
 * when the body reads as JSON instead (its first non-blank character is `{`
 * or `[`: `curl -d @body.json` sends JSON with the form type, and Vault's
 * `isForm` reads it as JSON).
 * @throws TransitError `invalid_request` for a body that is not UTF-8.
 */
function formFields(
  bytes: Uint8Array | string | undefined,
  limits: ResolvedJsonLimits,
): Record<string, unknown> | undefined {
  let text: string;
  try {
    text = typeof bytes === 'string' ? bytes : bytes ? UTF8.decode(bytes) : '';
  } catch {
    throw invalidRequest('failed to parse form input: the body is not valid UTF-8');
  }
  const first = text.trimStart()[0];
  if (first === undefined || first === '{' || first === '[') return undefined;
  // Counted before anything is built, as a JSON body is scanned before it is
  // parsed: a body of millions of fields is refused at once.
  let fields = 1;
  for (let at = text.indexOf('&'); at >= 0; at = text.indexOf('&', at + 1)) {
    if (++fields > limits.maxListItems) {
      throw invalidRequest(`failed to parse form input: more than ${limits.maxListItems} fields`);
    }
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of new URLSearchParams(text)) {
    const had = Object.hasOwn(out, k) ? out[k] : undefined;
    setOwn(out, k, had === undefined ? v : `${had as string},${v}`);
  }
  return out;
}
