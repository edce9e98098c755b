/**
 * A matrix of wrong-typed and malformed values for robustness tests: every
 * public method must answer each with a `TransitError` (`invalid_request`),
 * never a `TypeError`, and leave storage unchanged.
 *
 * Each list is for one *kind* of field, and holds only values that are wrong
 * for every field of that kind. Values that an API legitimately reads as
 * "absent" (`undefined`, `null`, `''` for optional fields) are not in the
 * optional-field lists; `REQUIRED_MISSING` adds them for required fields.
 */

/** One bad value and a short label for failure messages. */
export interface BadInput {
  readonly label: string;
  readonly value: unknown;
}

const bad = (label: string, value: unknown): BadInput => ({ label, value });

/** Length of the "huge" strings (1 MiB). */
export const HUGE = 1 << 20;

/** A JSON-parsed object with an own `__proto__` key (as a hostile JSON body has). */
export const jsonProto = (json: string): Record<string, unknown> =>
  JSON.parse(json) as Record<string, unknown>;

/** Values of a type no field accepts: not a string, number-like, boolean or Uint8Array. */
const EXOTIC: readonly BadInput[] = [
  bad('{}', {}),
  bad('{a:1}', { a: 1 }),
  bad('Object.create(null)', Object.create(null)),
  bad('{__proto__} from JSON', jsonProto('{"__proto__": {"x": 1}}')),
  bad('[]', []),
  bad('[1,2,3]', [1, 2, 3]),
  bad('Symbol', Symbol('x')),
  bad('function', () => 'aGk='),
  bad('Date', new Date(0)),
  bad('Map', new Map([['a', 1]])),
  bad('Set', new Set([1])),
  bad('Promise', Promise.resolve('aGk=')),
  bad('bigint 1n', 1n),
  bad('RegExp', /a/),
  bad('Error', new Error('x')),
];

/** Typed arrays and buffers that are not a `Uint8Array`. */
export const WRONG_TYPED_ARRAYS: readonly BadInput[] = [
  bad('Uint16Array', new Uint16Array([1, 2])),
  bad('Int8Array', new Int8Array([1, -1])),
  bad('Uint8ClampedArray', new Uint8ClampedArray([1, 2])),
  bad('Int32Array', new Int32Array([1])),
  bad('Float32Array', new Float32Array([1.5])),
  bad('Float64Array', new Float64Array([1])),
  bad('BigUint64Array', new BigUint64Array([1n])),
  bad('ArrayBuffer', new ArrayBuffer(4)),
  bad('DataView', new DataView(new ArrayBuffer(4))),
];

/** Numbers, booleans and boxed primitives. */
const NUMBERS_AND_BOOLEANS: readonly BadInput[] = [
  bad('NaN', Number.NaN),
  bad('0', 0),
  bad('1', 1),
  bad('-1', -1),
  bad('1.5', 1.5),
  bad('Infinity', Number.POSITIVE_INFINITY),
  bad('true', true),
  bad('false', false),
  bad('new Number(1)', new Number(1)),
  bad('new Boolean(true)', new Boolean(true)),
];

/** Anything but a string or a Uint8Array: wrong for every binary (base64) field. */
export const NOT_BYTES: readonly BadInput[] = [
  ...NUMBERS_AND_BOOLEANS,
  ...EXOTIC,
  bad("['aGk=']", ['aGk=']),
  bad("new String('aGk=')", new String('aGk=')),
  ...WRONG_TYPED_ARRAYS,
];

/** Strings that are not strict, padded, standard base64 (Go's StdEncoding). */
export const NOT_BASE64: readonly BadInput[] = [
  bad('"not base64!"', 'not base64!'),
  bad('":;.?"', ':;.?'),
  bad('unpadded "aGk"', 'aGk'),
  bad('over-padded "aGk=="', 'aGk=='),
  bad('"a"', 'a'),
  bad('"="', '='),
  bad('"===="', '===='),
  bad('padding inside "aGk=aGk="', 'aGk=aGk='),
  bad('url-safe "-_8A"', '-_8A'),
  bad('leading space', ' aGk='),
  bad('trailing space', 'aGk= '),
  bad('tab', 'aGk=\t'),
  bad('NUL', 'aGk=\u0000'),
  bad('latin-1 "héllo"', 'héllo'),
  bad('emoji', '😀😀😀😀'),
  bad('lone surrogate', '\uD800AAA'),
  bad('"__proto__"', '__proto__'),
  bad('"constructor"', 'constructor'),
  bad('"%%%%"', '%%%%'),
  bad('huge "!!!…"', '!'.repeat(HUGE)),
  bad('huge, length not a multiple of 4', 'A'.repeat(HUGE + 1)),
];

/** Wrong for a binary field that may be omitted. */
export const BAD_OPTIONAL_BYTES: readonly BadInput[] = [...NOT_BYTES, ...NOT_BASE64];

/** The "missing" values, wrong for a required field. */
export const REQUIRED_MISSING: readonly BadInput[] = [
  bad('undefined', undefined),
  bad('null', null),
];

/** Wrong for a required binary field (`plaintext`, `input`). */
export const BAD_REQUIRED_BYTES: readonly BadInput[] = [...BAD_OPTIONAL_BYTES, ...REQUIRED_MISSING];

/** Not an integer (weakly typed integer strings such as "2" are accepted, as Vault does). */
export const NOT_INTEGER: readonly BadInput[] = [
  bad('NaN', Number.NaN),
  bad('1.5', 1.5),
  bad('-0.5', -0.5),
  bad('Infinity', Number.POSITIVE_INFINITY),
  bad('-Infinity', Number.NEGATIVE_INFINITY),
  bad('2^53', 2 ** 53),
  bad('1e300', 1e300),
  bad('"abc"', 'abc'),
  bad('"1.5"', '1.5'),
  bad('"1e3"', '1e3'),
  bad('" 1"', ' 1'),
  bad('"1 "', '1 '),
  bad('"0x10"', '0x10'),
  bad('full-width digit', '１'),
  bad('"99999999999999999999"', '99999999999999999999'),
  bad('true', true),
  bad('false', false),
  bad('[1]', [1]),
  bad('Uint8Array [1]', new Uint8Array([1])),
  bad('new Number(1)', new Number(1)),
  ...EXOTIC,
];

/** Negative integers: wrong for every integer field of the API. */
export const NEGATIVE: readonly BadInput[] = [bad('-1', -1), bad('-100', -100), bad('"-1"', '-1')];

/** Not a boolean (Vault's weak "true"/"false"/"1"/"0" strings and 1/0 are accepted). */
export const NOT_BOOLEAN: readonly BadInput[] = [
  bad('"yes"', 'yes'),
  bad('"no"', 'no'),
  bad('"on"', 'on'),
  bad('"truee"', 'truee'),
  bad('" true"', ' true'),
  bad('"null"', 'null'),
  bad('2', 2),
  bad('-1', -1),
  bad('0.5', 0.5),
  bad('NaN', Number.NaN),
  bad('[true]', [true]),
  bad('Uint8Array [1]', new Uint8Array([1])),
  bad('new Boolean(true)', new Boolean(true)),
  ...EXOTIC,
];

/** Not a string at all. */
export const NOT_STRING: readonly BadInput[] = [
  ...NUMBERS_AND_BOOLEANS,
  ...EXOTIC,
  bad('Uint8Array', new Uint8Array([1])),
];

/**
 * Wrong for a field whose value must be one of a set of names (`valid` is one
 * of them): unknown names, near-misses, and wrong types — including values
 * that only turn into `valid` through `String()` (`[valid]`, a boxed string, an
 * object with `toString`).
 */
export function notOneOf(valid: string, opts: { caseInsensitive?: boolean } = {}): BadInput[] {
  const out: BadInput[] = [
    bad('"foo"', 'foo'),
    bad('trailing space', `${valid} `),
    bad('leading space', ` ${valid}`),
    bad('NUL suffix', `${valid}\u0000`),
    bad('emoji', '😀'),
    bad('huge', 'x'.repeat(HUGE)),
    bad(`[${valid}]`, [valid]),
    bad(`new String(${valid})`, new String(valid)),
    bad('{toString}', { toString: () => valid }),
    ...NUMBERS_AND_BOOLEANS,
    ...EXOTIC,
    bad('Uint8Array', new Uint8Array([1])),
  ];
  if (!opts.caseInsensitive) out.push(bad('upper case', valid.toUpperCase()));
  return out;
}

/** Not a valid key name (Vault's GenericNameRegex, at most 128 characters). */
export const NOT_A_NAME: readonly BadInput[] = [
  bad('""', ''),
  bad('"a/b"', 'a/b'),
  bad('"../x"', '../x'),
  bad('"-a"', '-a'),
  bad('"a."', 'a.'),
  bad('"a b"', 'a b'),
  bad('"a\\u0000"', 'a\u0000'),
  bad('"ключ"', 'ключ'),
  bad('129 chars', 'x'.repeat(129)),
  bad('huge', 'x'.repeat(HUGE)),
  bad('undefined', undefined),
  bad('null', null),
  bad("['k']", ['k']),
  bad("new String('k')", new String('k')),
  ...NUMBERS_AND_BOOLEANS,
  ...EXOTIC,
  bad('Uint8Array', new Uint8Array([107])),
];

/** Valid key names that collide with Object.prototype members. */
export const PROTO_NAMES: readonly string[] = [
  '__proto__',
  'constructor',
  'prototype',
  'hasOwnProperty',
  'toString',
  'valueOf',
  '__defineGetter__',
  'isPrototypeOf',
];

/** Versioned values (`vault:v1:…`) that no parser accepts. */
export const BAD_VERSIONED_SYNTAX: readonly BadInput[] = [
  bad('"garbage"', 'garbage'),
  bad('"vault:"', 'vault:'),
  bad('"vault:v"', 'vault:v'),
  bad('"vault:v1"', 'vault:v1'),
  bad('"vault:vX:AAAA"', 'vault:vX:AAAA'),
  bad('"vault:v-1:AAAA"', 'vault:v-1:AAAA'),
  bad('"vault:v1.5:AAAA"', 'vault:v1.5:AAAA'),
  bad('"vault:v+1:AAAA"', 'vault:v+1:AAAA'),
  bad('huge version', 'vault:v99999999999999999999:AAAA'),
  bad('version too new', 'vault:v99:AAAA'),
  bad('"vault:v1:!!!!"', 'vault:v1:!!!!'),
  bad('unpadded body', 'vault:v1:AAA'),
  bad('leading NUL', '\u0000vault:v1:AAAA'),
  bad('upper-case prefix', 'VAULT:v1:AAAA'),
  bad('emoji', '😀'),
  bad('huge non-base64 body', `vault:v1:${'!'.repeat(HUGE)}`),
];

/** Well-formed versioned values whose payload is wrong (decrypt refuses; verify says false). */
export const BAD_VERSIONED_PAYLOAD: readonly BadInput[] = [
  bad('"vault:v1:"', 'vault:v1:'),
  bad('"vault:v1:AAAA"', 'vault:v1:AAAA'),
  bad('32 zero bytes', `vault:v1:${'A'.repeat(43)}=`),
  bad('huge body', `vault:v1:${'A'.repeat(HUGE)}`),
];

/** Wrong for `batch_input` (`null`/`undefined` mean "no batch" and are left out). */
export const NOT_A_BATCH: readonly BadInput[] = [
  bad('""', ''),
  bad('"x"', 'x'),
  bad('1', 1),
  bad('true', true),
  bad('{}', {}),
  bad('array-like object', { length: 1, 0: { plaintext: 'aGk=' } }),
  bad('Uint8Array', new Uint8Array([1])),
  bad('[] (empty)', []),
  bad('[null]', [null]),
  bad('[undefined]', [undefined]),
  bad('[1]', [1]),
  bad('["x"]', ['x']),
  bad('[[]]', [[]]),
  bad('[true]', [true]),
  bad('Symbol', Symbol('x')),
];

/** Wrong as a whole request object. */
export const NOT_AN_OBJECT: readonly BadInput[] = [
  bad('"x"', 'x'),
  bad('42', 42),
  bad('true', true),
  bad('[]', []),
  bad("['x']", ['x']),
  bad('Uint8Array', new Uint8Array([1])),
  bad('Symbol', Symbol('x')),
];

/** Wrong for a duration field (`auto_rotate_period`). */
export const NOT_A_DURATION: readonly BadInput[] = [
  bad('"abc"', 'abc'),
  bad('"1x"', '1x'),
  bad('"h"', 'h'),
  bad('"1d2h"', '1d2h'),
  bad('"1 h"', '1 h'),
  bad('"--1h"', '--1h'),
  bad('ISO "PT1H"', 'PT1H'),
  bad('"59m"', '59m'),
  bad('3599', 3599),
  bad('1.5', 1.5),
  bad('-1', -1),
  bad('"-1h"', '-1h'),
  bad('NaN', Number.NaN),
  bad('Infinity', Number.POSITIVE_INFINITY),
  bad('1e300 (overflows int64 ns)', 1e300),
  bad('30 nines (overflows)', '9'.repeat(30)),
  bad('"9999999999h" (overflows)', '9999999999h'),
  bad('true', true),
  bad('[3600]', [3600]),
  bad('Uint8Array', new Uint8Array([1])),
  ...EXOTIC,
];
