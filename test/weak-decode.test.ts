/**
 * `src/weak-decode.ts`: Vault's weak decoding (mapstructure `WeakDecode`) of
 * one JSON value into a Go type, case by case, with what Vault refuses.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  goParseInt,
  weakBool,
  weakInt,
  weakMap,
  weakString,
  weakStringMap,
  weakStrings,
} from '../src/weak-decode.js';

describe('goParseInt: strconv.ParseInt(s, 0, 64)', () => {
  it.each([
    ['0', 0],
    ['42', 42],
    ['-42', -42],
    ['+7', 7],
    ['0x1f', 31],
    ['0X1F', 31],
    ['-0x10', -16],
    ['0o17', 15],
    ['017', 15],
    ['0b101', 5],
    ['1_000', 1000],
    ['0x_ff', 255],
    ['9007199254740991', Number.MAX_SAFE_INTEGER],
  ])('%s → %d', (s, n) => {
    expect(goParseInt(s)).toBe(n);
  });

  it.each([
    ['', 'empty'],
    [' 5', 'a space'],
    ['5 ', 'a trailing space'],
    ['08', 'an octal 8'],
    ['1.5', 'a fraction'],
    ['1e3', 'an exponent'],
    ['_1', 'a leading underscore'],
    ['1__0', 'two underscores'],
    ['1_', 'a trailing underscore'],
    ['0x', 'no hex digits'],
    ['--1', 'two signs'],
    ['9007199254740993', 'past the safe integers'],
  ])('%j (%s) → refused', (s) => {
    expect(goParseInt(s)).toBeUndefined();
  });

  it('refuses a literal past 128 characters at once (a 32 MiB body is no CPU sink)', () => {
    expect(goParseInt(`0b${'0'.repeat(120)}1`)).toBe(1);
    expect(goParseInt(`0b${'0'.repeat(127)}1`)).toBeUndefined();
    expect(goParseInt('9'.repeat(10_000_000))).toBeUndefined();
    expect(weakInt('1'.repeat(10_000_000))).toBeUndefined();
  });

  it('reads every safe integer written in decimal, hex or binary', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), (n) => {
        const sign = n < 0 ? '-' : '';
        const m = Math.abs(n);
        expect(goParseInt(String(n))).toBe(n);
        expect(goParseInt(`${sign}0x${m.toString(16)}`)).toBe(n);
        expect(goParseInt(`${sign}0b${m.toString(2)}`)).toBe(n);
      }),
    );
  });
});

describe('scalars', () => {
  it('string: text as is, numbers as text, booleans "1"/"0"; lists and maps refused', () => {
    expect(weakString('x')).toBe('x');
    expect(weakString(12)).toBe('12');
    expect(weakString(1.5)).toBe('1.5');
    expect(weakString(true)).toBe('1');
    expect(weakString(false)).toBe('0');
    expect(weakString([1])).toBeUndefined();
    expect(weakString({})).toBeUndefined();
    expect(weakString(null)).toBeUndefined();
  });

  it('int: whole numbers, booleans, Go literals, "" as 0; fractions and words refused', () => {
    expect(weakInt(3)).toBe(3);
    expect(weakInt(true)).toBe(1);
    expect(weakInt(false)).toBe(0);
    expect(weakInt('0x10')).toBe(16);
    expect(weakInt('')).toBe(0);
    expect(weakInt(2.5)).toBeUndefined();
    expect(weakInt('three')).toBeUndefined();
    expect(weakInt([])).toBeUndefined();
  });

  it('bool: booleans, 1 and 0, ParseBool\'s texts, "" as false; anything else refused', () => {
    for (const t of ['1', 't', 'T', 'TRUE', 'true', 'True']) expect(weakBool(t)).toBe(true);
    for (const f of ['0', 'f', 'F', 'FALSE', 'false', 'False', '']) expect(weakBool(f)).toBe(false);
    expect(weakBool(1)).toBe(true);
    expect(weakBool(0)).toBe(false);
    expect(weakBool(true)).toBe(true);
    expect(weakBool(2)).toBeUndefined();
    expect(weakBool('yes')).toBeUndefined();
    expect(weakBool('tRuE')).toBeUndefined();
    expect(weakBool({})).toBeUndefined();
  });
});

describe('maps and lists', () => {
  it('map: a map as is, [] as {}, a list of maps merged in order; other lists refused', () => {
    const m = { a: 1 };
    expect(weakMap(m)).toBe(m);
    expect(weakMap([])).toEqual({});
    expect(weakMap([{ a: 1, b: 2 }, { b: 3 }])).toEqual({ a: 1, b: 3 });
    expect(weakMap([{ a: 1 }, 2])).toBeUndefined();
    expect(weakMap('a=b')).toBeUndefined();
  });

  it('a merged "__proto__" key is a plain key, never the prototype', () => {
    const merged = weakMap([JSON.parse('{"__proto__": {"polluted": 1}}')]) as object;
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect(Object.keys(merged)).toEqual(['__proto__']);
    expect(({} as { polluted?: number }).polluted).toBeUndefined();
  });

  it('map[string]string: values as weak strings, null as ""; nested values refused', () => {
    expect(weakStringMap({ n: 1, b: true, f: false, s: 'x', z: null })).toEqual({
      n: '1',
      b: '1',
      f: '0',
      s: 'x',
      z: '',
    });
    expect(weakStringMap([])).toEqual({});
    expect(weakStringMap({ a: { b: 1 } })).toBeUndefined();
    expect(weakStringMap({ a: [1] })).toBeUndefined();
    expect(weakStringMap('x')).toBeUndefined();
  });

  it('[]string: elements as weak strings, a scalar lifted, {} as []; nested values refused', () => {
    expect(weakStrings(['a', 1, true, null])).toEqual(['a', '1', '1', '']);
    expect(weakStrings(5)).toEqual(['5']);
    expect(weakStrings(false)).toEqual(['0']);
    expect(weakStrings({})).toEqual([]);
    expect(weakStrings([[1]])).toBeUndefined();
    expect(weakStrings([{}])).toBeUndefined();
    expect(weakStrings({ a: 1 })).toBeUndefined();
  });
});
