/**
 * JSON numbers as their literal text (src/util/json-number.ts): which literals
 * JavaScript carries as written, Go's `json.Number.Int64()`, the weak
 * decoders' reading of a kept literal, the JSON limits scan that notices one,
 * the second parse that keeps it, and the audit copy that writes it as a number.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkJsonLimits, DEFAULT_JSON_LIMITS } from '../../adapters/http/json-limits.js';
import { parseKeepingLiterals } from '../../adapters/http/json-literals.js';
import { hashStructure, rawStructure } from '../../src/audit/hash.js';
import { goUnmarshalError } from '../../src/request.js';
import { carriedExactly, JsonNumber, jsonNumberInt } from '../../src/util/json-number.js';
import {
  isMap,
  weakBool,
  weakInt,
  weakMap,
  weakString,
  weakStrings,
} from '../../src/weak-decode.js';

const n = (text: string) => new JsonNumber(text);

describe('carriedExactly', () => {
  it.each(['0', '3', '-7', '1.5', '0.1', '9007199254740991', '1e+21'])('%s is carried', (t) => {
    expect(carriedExactly(t)).toBe(true);
  });
  it.each(['3.0', '1e3', '1E3', '-0', '1.50', '12345678901234567890', '0.10', '1e400'])(
    '%s is not',
    (t) => expect(carriedExactly(t)).toBe(false),
  );
});

describe('a kept literal through the decoders', () => {
  it('int: json.Number.Int64() — base-10 digits within safe integers; -0 is 0', () => {
    expect(jsonNumberInt(n('-0'))).toBe(0);
    expect(Object.is(jsonNumberInt(n('-0')), 0)).toBe(true);
    for (const t of ['3.0', '1e3', '12345678901234567890', '9007199254740993']) {
      expect(jsonNumberInt(n(t)), t).toBeUndefined();
      expect(weakInt(n(t)), t).toBeUndefined();
    }
  });
  it('string: the literal; bool: ParseBool of it; list: lifted; map: refused, never a map', () => {
    expect(weakString(n('1.50'))).toBe('1.50');
    expect(weakStrings(n('1e3'))).toEqual(['1e3']);
    expect(weakBool(n('1.0'))).toBeUndefined();
    expect(weakMap(n('1.0'))).toBeUndefined();
    expect(isMap(n('1.0'))).toBe(false);
  });
  it("Go's encoding/json into int: any int64 literal; the literal in the refusal", () => {
    expect(goUnmarshalError(n('-0'), 'int', 'S.f')).toBeUndefined();
    expect(goUnmarshalError(n('9223372036854775807'), 'int', 'S.f')).toBeUndefined();
    expect(goUnmarshalError(n('9223372036854775808'), 'int', 'S.f')).toBe(
      'json: cannot unmarshal number 9223372036854775808 into Go struct field S.f of type int',
    );
    expect(goUnmarshalError(n('3.0'), 'int', 'S.f')).toBe(
      'json: cannot unmarshal number 3.0 into Go struct field S.f of type int',
    );
    expect(goUnmarshalError(n('1.0'), 'string', 'S.f')).toBe(
      'json: cannot unmarshal number into Go struct field S.f of type string',
    );
  });
});

describe('noticing and keeping literals', () => {
  it('the limits scan reports a number JavaScript cannot carry, and only a number', () => {
    const scan = (t: string) => checkJsonLimits(t, DEFAULT_JSON_LIMITS);
    expect(scan('{"a": 3, "b": [1.5, -7], "c": "3.0", "d": true}')).toBe(false);
    expect(scan('{"a": 3.0}')).toBe(true);
    expect(scan('{"a": [1, {"b": 1e3}]}')).toBe(true);
    expect(scan('{"a":-0}')).toBe(true);
  });
  it('a body JavaScript wrote is never parsed twice (every number it writes is carried)', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (body) => {
        expect(checkJsonLimits(JSON.stringify(body), DEFAULT_JSON_LIMITS)).toBe(false);
      }),
    );
  });
  it('top-level literals stay JsonNumbers; deeper ones become their text; exact numbers stay numbers', () => {
    const v = parseKeepingLiterals(
      '{"a": 3.0, "b": 3, "c": [1.0, 2], "d": {"e": 1e3, "f": [0.10]}}',
    );
    expect(v).toEqual({ a: n('3.0'), b: 3, c: ['1.0', 2], d: { e: '1e3', f: ['0.10'] } });
    expect((v as { a: unknown }).a).toBeInstanceOf(JsonNumber);
  });
  it('a later duplicate wins; __proto__ is an own key, the prototype untouched', () => {
    const v = parseKeepingLiterals('{"a": 1.0, "a": 2.0, "__proto__": {"x": 1.0}}') as Record<
      string,
      unknown
    >;
    expect(v.a).toEqual(n('2.0'));
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(v, '__proto__')?.value).toEqual({ x: '1.0' });
  });
  it('audit copies write a kept literal as the number, hashed or raw', () => {
    const hash = (s: string) => `h(${s})`;
    expect(hashStructure({ a: n('3.0'), b: 's' }, hash)).toEqual({ a: 3, b: 'h(s)' });
    expect(rawStructure({ a: n('1e3') })).toEqual({ a: 1000 });
    expect(JSON.stringify({ a: n('1.50') })).toBe('{"a":1.5}');
  });
});
