/**
 * Go `encoding/json` compatibility for Vault's backup blobs (reference §0.2).
 *
 * - Writing: struct fields in declaration order, map keys sorted as Go sorts
 *   them (byte order: `"1" < "10" < "2"`), big integers as bare decimal
 *   numbers, `<`, `>`, `&`, U+2028 and U+2029 escaped as `json.Encoder` does,
 *   and the trailing newline it adds. `JSON.stringify` can do none of the
 *   ordering or bigint parts, so objects are written from explicit field lists.
 * - Reading: `lossless-json` keeps every number exact (`ec_d` and RSA values
 *   exceed doubles); field lookup is case-insensitive after an exact match, as
 *   Go's decoder is.
 * @module
 */
import { isLosslessNumber, parse } from 'lossless-json';
import { tryDecodeBase64 } from '../encoding.js';
import { invalidRequest } from '../errors.js';

/** An object written with its fields in this order. @internal */
export class GoStruct {
  constructor(readonly fields: ReadonlyArray<readonly [string, unknown]>) {}
}

/** A map written with its keys sorted in Go's byte order. @internal */
export class GoMap {
  constructor(readonly entries: ReadonlyArray<readonly [string, unknown]>) {}
}

const HTML = /[<>&\u2028\u2029]/g;
const escapeHtml = (s: string): string =>
  s.replace(HTML, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** Byte order of UTF-8 strings (Go's `sort.Strings`). */
function goLess(a: string, b: string): number {
  const ea = new TextEncoder().encode(a);
  const eb = new TextEncoder().encode(b);
  const n = Math.min(ea.length, eb.length);
  for (let i = 0; i < n; i++) {
    const d = (ea[i] as number) - (eb[i] as number);
    if (d !== 0) return d;
  }
  return ea.length - eb.length;
}

/** Serialise a value as Go's `json.Encoder` would, including the trailing newline. @internal */
export function goJsonEncode(value: unknown): string {
  return `${write(value)}\n`;
}

function write(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new RangeError('non-finite number in Go JSON');
    return String(v);
  }
  if (typeof v === 'string') return escapeHtml(JSON.stringify(v));
  if (Array.isArray(v)) return `[${v.map(write).join(',')}]`;
  if (v instanceof GoStruct) {
    return `{${v.fields.map(([k, x]) => `${write(k)}:${write(x)}`).join(',')}}`;
  }
  if (v instanceof GoMap) {
    const sorted = [...v.entries].sort(([a], [b]) => goLess(a, b));
    return `{${sorted.map(([k, x]) => `${write(k)}:${write(x)}`).join(',')}}`;
  }
  throw new TypeError('unsupported value in Go JSON');
}

/** A parsed JSON object with Go's case-insensitive field lookup. @internal */
export class GoObject {
  readonly #raw: Record<string, unknown>;
  readonly #folded: Map<string, string>;

  constructor(raw: Record<string, unknown>) {
    this.#raw = raw;
    this.#folded = new Map();
    for (const k of Object.keys(raw)) {
      const f = k.toLowerCase();
      if (!this.#folded.has(f)) this.#folded.set(f, k);
    }
  }

  /** The field's value (exact name first, then case-insensitive), or `undefined`. */
  get(name: string): unknown {
    if (Object.hasOwn(this.#raw, name)) return this.#raw[name];
    const k = this.#folded.get(name.toLowerCase());
    return k === undefined ? undefined : this.#raw[k];
  }

  /** The object's own keys. */
  keys(): string[] {
    return Object.keys(this.#raw);
  }
}

/**
 * Parse JSON keeping every number exact.
 * @throws TransitError `invalid_request` when the text is not JSON.
 * @internal
 */
export function goJsonParse(text: string, what: string): unknown {
  try {
    return parse(text);
  } catch {
    throw invalidRequest(`${what} is not valid JSON`);
  }
}

/** A nested object, or `undefined` for null/absent. @internal */
export function objectField(o: GoObject, name: string, what: string): GoObject | undefined {
  const v = o.get(name);
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v) || isLosslessNumber(v)) {
    throw invalidRequest(`${what}: '${name}' must be an object`);
  }
  return new GoObject(v as Record<string, unknown>);
}

/** An integer field (a safe JS number); `dflt` when absent or null. @internal */
export function intField(o: GoObject, name: string, what: string, dflt = 0): number {
  const v = o.get(name);
  if (v === undefined || v === null) return dflt;
  if (isLosslessNumber(v) && /^-?[0-9]+$/.test(v.toString())) {
    const n = Number(v.toString());
    if (Number.isSafeInteger(n)) return n;
  }
  throw invalidRequest(`${what}: '${name}' must be an integer`);
}

/** A big integer field; `undefined` when absent or null. @internal */
export function bigField(o: GoObject, name: string, what: string): bigint | undefined {
  const v = o.get(name);
  if (v === undefined || v === null) return undefined;
  if (isLosslessNumber(v) && /^-?[0-9]+$/.test(v.toString())) return BigInt(v.toString());
  throw invalidRequest(`${what}: '${name}' must be an integer`);
}

/** A base64 field (Go's `[]byte`); undefined when absent or null. @internal */
export function bytesField(o: GoObject, name: string, what: string): Uint8Array | undefined {
  const v = o.get(name);
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw invalidRequest(`${what}: '${name}' must be base64`);
  const b = tryDecodeBase64(v);
  if (!b) throw invalidRequest(`${what}: '${name}' is not valid base64`);
  return b;
}

/** A boolean field; false when absent or null. @internal */
export function boolField(o: GoObject, name: string, what: string): boolean {
  const v = o.get(name);
  if (v === undefined || v === null) return false;
  if (typeof v === 'boolean') return v;
  throw invalidRequest(`${what}: '${name}' must be a boolean`);
}

/** A string field; `''` when absent or null. @internal */
export function stringField(o: GoObject, name: string, what: string): string {
  const v = o.get(name);
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  throw invalidRequest(`${what}: '${name}' must be a string`);
}
