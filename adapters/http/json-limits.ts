/**
 * Bounds on a JSON request body, checked by one linear scan of the text
 * before `JSON.parse` builds anything: nesting depth, items per list,
 * entries per object, and values in all. A body within the byte limit can
 * otherwise hold millions of tiny values (`[{},{},…]`: 11 million objects in
 * 32 MiB, close to a gigabyte of heap and seconds of a blocked event loop)
 * or nesting deep enough to exhaust the stack of whatever walks it later.
 *
 * The scan only counts: it tracks strings (and their escapes) so brackets
 * inside them do not count, and leaves every syntax error to `JSON.parse`.
 * On the way it notes a number literal JavaScript cannot carry as written.
 *
 * Runtime-neutral.
 * @module
 */
import { invalidRequest } from '../../src/errors.js';
import { carriedExactly } from '../../src/util/json-number.js';

/**
 * Limits on the shape of a JSON body.
 * @public
 */
export interface JsonLimits {
  /** Deepest nesting of lists and objects. Default 64. */
  maxDepth?: number;
  /**
   * Most items in one list, and most entries in one object. Default 100,000
   * (ten times the engine's default `maxBatchSize`, so an oversized batch
   * still gets the engine's message naming its limit).
   */
  maxListItems?: number;
  /** Most values (scalars, lists and objects) in the whole body. Default 500,000. */
  maxValues?: number;
}

/** Resolved limits. @internal */
export type ResolvedJsonLimits = Required<JsonLimits>;

/** The defaults. @internal */
export const DEFAULT_JSON_LIMITS: ResolvedJsonLimits = {
  maxDepth: 64,
  maxListItems: 100_000,
  maxValues: 500_000,
};

/**
 * Resolve and check the handler's option.
 * @throws TransitError `invalid_request` for a limit that is not a positive integer.
 * @internal
 */
export function resolveJsonLimits(o: JsonLimits | undefined): ResolvedJsonLimits {
  const out = { ...DEFAULT_JSON_LIMITS };
  for (const k of Object.keys(out) as (keyof ResolvedJsonLimits)[]) {
    const v = o?.[k];
    if (v === undefined) continue;
    if (!Number.isSafeInteger(v) || v < 1) {
      throw invalidRequest(`jsonLimits.${k} must be a positive integer`);
    }
    out[k] = v;
  }
  return out;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_LIST = 0x5b;
const CLOSE_LIST = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

const refuse = (what: string): never => {
  throw invalidRequest(`failed to parse JSON input: ${what}`);
};

/**
 * The index of the quote closing the string opened at `open` (or the end of
 * the text when it is unterminated: `JSON.parse` reports that). Jumps from
 * quote to quote with `indexOf`; a quote after an odd run of backslashes is
 * escaped.
 */
function stringEnd(text: string, open: number): number {
  let from = open + 1;
  for (;;) {
    const q = text.indexOf('"', from);
    if (q < 0) return text.length;
    let b = q - 1;
    while (b > open && text.charCodeAt(b) === BACKSLASH) b--;
    if ((q - 1 - b) % 2 === 0) return q;
    from = q + 1;
  }
}

/**
 * Check a JSON text against the limits, without parsing it.
 * @returns whether the text holds a number literal that JavaScript cannot
 *   carry as written (`3.0`, `1e3`: `json-literals.ts` parses such a body again).
 * @throws TransitError `invalid_request` (400) naming the limit exceeded (never the content).
 * @internal
 */
export function checkJsonLimits(text: string, limits: ResolvedJsonLimits): boolean {
  let inexact = false;
  // Per open container: its item count so far (commas seen + 1 once a value appeared).
  const counts: number[] = [];
  const empty: boolean[] = [];
  let values = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (isSpace(c)) continue;
    const top = counts.length - 1;
    if (c === CLOSE_LIST || c === CLOSE_OBJECT) {
      counts.pop();
      empty.pop();
      continue;
    }
    if (c === COMMA) {
      if (top < 0) continue;
      const items = (counts[top] ?? 0) + 1;
      if (items > limits.maxListItems) {
        refuse(`a list or object has more than ${limits.maxListItems} items`);
      }
      counts[top] = items;
      continue;
    }
    if (c === 0x3a) continue; // ':' — an object's value follows; its key was counted below
    // The start of a value (or of an object key, a string: counted as a value too).
    if (top >= 0 && empty[top]) {
      empty[top] = false;
      counts[top] = 1;
    }
    if (++values > limits.maxValues) refuse(`more than ${limits.maxValues} values`);
    if (c === QUOTE) {
      i = stringEnd(text, i);
    } else if (c === OPEN_LIST || c === OPEN_OBJECT) {
      if (counts.length >= limits.maxDepth) {
        refuse(`nesting deeper than ${limits.maxDepth} levels`);
      }
      counts.push(0);
      empty.push(true);
    } else {
      // A number or literal: skip to its end.
      const from = i;
      while (i + 1 < n) {
        const d = text.charCodeAt(i + 1);
        if (isSpace(d) || d === COMMA || d === CLOSE_LIST || d === CLOSE_OBJECT || d === 0x3a) {
          break;
        }
        i++;
      }
      if (!inexact && (c === 0x2d || (c >= 0x30 && c <= 0x39))) {
        inexact = !carriedExactly(text.slice(from, i + 1));
      }
    }
  }
  return inexact;
}

/** A value JSON.parse could have built: `null`, a boolean, a finite number, a string, a list, an object. */
const isJsonScalar = (v: unknown): boolean =>
  v === null ||
  typeof v === 'boolean' ||
  typeof v === 'string' ||
  (typeof v === 'number' && Number.isFinite(v));

/**
 * Check an already-parsed body (a body parser such as `express.json()` ran
 * first) against the same limits, in the order the text scan meets them:
 * every value and object key counts as a value, a container opened at the
 * limit depth is refused, and so is an item past the list or object limit.
 * @returns `false` when the value holds something JSON cannot (`undefined`,
 *   a function, a class instance, a non-finite number): the caller then
 *   falls back to a JSON round trip.
 * @throws TransitError `invalid_request` (400) naming the limit exceeded, as {@link checkJsonLimits}.
 * @internal
 */
export function checkValueLimits(value: unknown, limits: ResolvedJsonLimits): boolean {
  let values = 0;
  const count = () => {
    if (++values > limits.maxValues) refuse(`more than ${limits.maxValues} values`);
  };
  const walk = (v: unknown, depth: number): boolean => {
    count();
    if (isJsonScalar(v)) return true;
    if (typeof v !== 'object' || v === null) return false;
    if (depth >= limits.maxDepth) refuse(`nesting deeper than ${limits.maxDepth} levels`);
    const tooMany = (i: number) => {
      if (i + 1 > limits.maxListItems) {
        refuse(`a list or object has more than ${limits.maxListItems} items`);
      }
    };
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        if (i > 0) tooMany(i);
        if (!walk(v[i], depth + 1)) return false;
      }
      return true;
    }
    const proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) return false;
    const keys = Object.keys(v);
    for (let i = 0; i < keys.length; i++) {
      if (i > 0) tooMany(i);
      count();
      if (!walk((v as Record<string, unknown>)[keys[i] as string], depth + 1)) return false;
    }
    return true;
  };
  return walk(value, 0);
}
