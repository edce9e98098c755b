/**
 * The PostgreSQL key mapping without a server: `sort_key` bytes compare as
 * JavaScript strings do (UTF-16 code units, astral characters included), a
 * string prefix is a byte prefix, and the `list` bounds select exactly the keys
 * under a prefix (strictly after `after`). Table names are plain identifiers.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { listQuery, schemaFor, sortKey } from '../../../adapters/postgres/schema.js';
import { isTransitError } from '../../../src/errors.js';

/** Well-formed strings, biased towards the characters where code point and code unit orders differ. */
const key = fc.string({
  unit: fc.oneof(
    fc.constantFrom('a', 'b', '/', '\uFFFF', '\uFEFF', '\uE000', '\uD7FF', '🔑', '\u{10FFFF}'),
    fc
      .integer({ min: 1, max: 0x10ffff })
      .filter((c) => c < 0xd800 || c > 0xdfff)
      .map((c) => String.fromCodePoint(c)),
  ),
  maxLength: 6,
});

/** Byte comparison as PostgreSQL compares bytea (memcmp, then length). */
const cmp = (x: Buffer, y: Buffer): number => Buffer.compare(x, y);
const sign = (n: number): number => (n > 0 ? 1 : n < 0 ? -1 : 0);

describe('PostgreSQL sort keys', () => {
  it('order as JavaScript strings order', () => {
    fc.assert(
      fc.property(key, key, (x, y) => {
        expect(sign(cmp(sortKey(x), sortKey(y)))).toBe(x < y ? -1 : x > y ? 1 : 0);
      }),
      { numRuns: 2_000 },
    );
    expect(cmp(sortKey('\uFFFD'), sortKey('🔑'))).toBe(1); // by code point it would be -1
  });

  it('list statements select exactly the keys under the prefix, after `after`', () => {
    const schema = schemaFor('t');
    const l = schema.list;
    fc.assert(
      fc.property(key, key, fc.option(key, { nil: undefined }), (prefix, k, after) => {
        const [statement, params] = listQuery(schema, prefix, after, 10);
        const low = params[0] as Buffer;
        const high =
          statement === l.fromTo || statement === l.afterTo ? (params[1] as Buffer) : null;
        const inclusive = statement === l.from || statement === l.fromTo;
        expect(params[params.length - 1]).toBe(10);
        const b = sortKey(k);
        const selected =
          (inclusive ? cmp(b, low) >= 0 : cmp(b, low) > 0) && (high === null || cmp(b, high) < 0);
        const want = k.startsWith(prefix) && (after === undefined || k > prefix + after);
        expect(selected, JSON.stringify({ prefix, k, after })).toBe(want);
      }),
      { numRuns: 2_000 },
    );
    expect(listQuery(schema, '\uFFFF\uFFFF', undefined, 0)).toEqual([
      l.from,
      [sortKey('\uFFFF\uFFFF'), null],
    ]);
    expect(listQuery(schema, '', 'a', 0)[0]).toBe(l.after); // no upper bound exists
    expect(l.afterTo.text).toMatch(
      /WHERE sort_key > \$1 AND sort_key < \$2 ORDER BY sort_key LIMIT \$3$/,
    );
  });

  it('table names must be plain lower-case identifiers', () => {
    expect(schemaFor().table).toBe('transitkit');
    expect(schemaFor('app_keys_2').channel).toBe('app_keys_2_changes');
    for (const bad of ['', 'A', '1a', 'a b', 'a"b', 'a;b', 'é', 'a'.repeat(49), 7]) {
      let e: unknown;
      try {
        schemaFor(bad);
      } catch (err) {
        e = err;
      }
      expect(isTransitError(e, 'invalid_request'), String(bad)).toBe(true);
    }
  });
});
