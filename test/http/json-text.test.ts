/**
 * adapters/http/json-text.ts: the replies' serializer gives exactly
 * `JSON.stringify`'s text (or its `undefined`, or its error) for every value,
 * the flat objects it writes itself and everything it hands back.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonText } from '../../adapters/http/json-text.js';

const same = (v: unknown) => {
  let want: string | undefined;
  let error: unknown;
  try {
    want = JSON.stringify(v);
  } catch (e) {
    error = e;
  }
  if (error) expect(() => jsonText(v)).toThrow((error as Error).constructor as never);
  else expect(jsonText(v)).toBe(want);
};

class Point {
  constructor(
    public x: number,
    public y: number,
  ) {}
}

describe('jsonText', () => {
  it("equals JSON.stringify on a reply's data", () => {
    same({ ciphertext: 'vault:v1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=', key_version: 1 });
    same({ plaintext: 'aGVsbG8=' });
    same({ hmac: 'vault:v2:abc', valid: true, n: 0, m: -0, big: 1e21, tiny: 5e-324 });
    same({ batch_results: [{ ciphertext: 'x' }, { error: 'bad "input"' }] });
    same('9b6d1a8e-3f1e-4c57-9a39-0f0d2c0a7b11');
    same({});
  });

  it('escapes what needs escaping, in values and in keys', () => {
    same({ s: 'a"b', t: 'back\\slash', u: 'line\nbreak', v: '\u0000\u001f\u007f', w: 'é€😀' });
    same({ lone: '\ud800', pair: '\ud83d\ude00', tail: 'x\udfff' });
    same({ 'a"b': 1, 'new\nline': 2, é: 3, '': 4 });
  });

  it('writes a key the same once it is remembered, and past the bounds of what it remembers', () => {
    for (let round = 0; round < 3; round++) {
      same({ ciphertext: 'vault:v1:AAAA', key_version: 1 });
      same({ 'a"b': 1, 'new\nline': 2, é: 3, '': 4 });
    }
    // Long keys are not remembered; more than the bound of distinct keys neither.
    const long = { [`${'k'.repeat(100)}"`]: 1, ['x'.repeat(65)]: 2 };
    same(long);
    same(long);
    const many = Object.fromEntries(Array.from({ length: 1500 }, (_, i) => [`key\t${i}`, i]));
    same(many);
    same(many);
  });

  it('keeps JSON.stringify order, omissions and number forms', () => {
    same({ b: 1, a: 2, 10: 'ten', 2: 'two', z: undefined, f: () => 1, s: Symbol('x') });
    same({ nan: Number.NaN, inf: Number.POSITIVE_INFINITY, ninf: -Infinity, neg: -0 });
    same({ only: undefined });
    same({ n: null, nested: { a: [1, 'two', null] } });
  });

  it("defers to JSON.stringify for what isn't a flat object literal", () => {
    same([1, 'a', { b: 2 }]);
    same(new Point(1, 2));
    same(new Date(0));
    same(Object.assign(Object.create(null), { a: 1, b: 'c' }));
    same({ toJSON: () => ({ replaced: true }) });
    same({ d: new Date(0), k: { toJSON: (key: string) => `key:${key}` } });
    same(Object.assign(Object.create({ inherited: 1 }), { own: 2 }));
    same(new Number(3));
    same(new String('boxed'));
    same(new Boolean(false));
    same(null);
    same(undefined);
    same(42);
    same(true);
    same(() => 1);
  });

  it('throws as JSON.stringify throws', () => {
    same({ big: 10n });
    same(10n);
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    same(cyclic);
  });

  it('equals JSON.stringify on any flat object or JSON value (property)', () => {
    const scalar = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.string(),
      fc.double(),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.constant(undefined),
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.dictionary(fc.string({ unit: 'binary' }), scalar),
          fc.dictionary(fc.string(), fc.oneof(scalar, fc.jsonValue())),
          fc.jsonValue(),
          fc.string({ unit: 'binary' }),
        ),
        (v) => same(v),
      ),
      { numRuns: 500 },
    );
  });
});
