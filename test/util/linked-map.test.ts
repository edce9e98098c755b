/**
 * `LinkedMap` and the `Lru` built on it (src/util/linked-map.ts, src/util/lru.ts):
 * every sequence of operations leaves the same entries, in the same order, as the
 * `Map` re-inserted on access that they replace; and a hot key's use does not
 * grow with the map's size (checked as a count of steps, not a timing).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LinkedMap } from '../../src/util/linked-map.js';
import { Lru } from '../../src/util/lru.js';

type Op =
  | { op: 'set'; key: number; value: number; use: boolean }
  | { op: 'use' | 'get' | 'delete'; key: number }
  | { op: 'clear' };

const ops = fc.array(
  fc.oneof(
    {
      weight: 5,
      arbitrary: fc.record({
        op: fc.constant('set' as const),
        key: fc.nat(12),
        value: fc.nat(),
        use: fc.boolean(),
      }),
    },
    {
      weight: 3,
      arbitrary: fc.record({
        op: fc.constantFrom('use' as const, 'get' as const, 'delete' as const),
        key: fc.nat(12),
      }),
    },
    { weight: 1, arbitrary: fc.constant({ op: 'clear' as const }) },
  ),
  { maxLength: 80 },
);

/** The reference: a `Map` whose insertion order is the recency order. */
function model(list: Op[]): { map: Map<number, number>; answers: unknown[] } {
  const map = new Map<number, number>();
  const answers: unknown[] = [];
  for (const o of list) {
    if (o.op === 'set') {
      if (map.has(o.key) && !o.use) map.set(o.key, o.value);
      else {
        map.delete(o.key);
        map.set(o.key, o.value);
      }
    } else if (o.op === 'use') {
      const v = map.get(o.key);
      if (v !== undefined) {
        map.delete(o.key);
        map.set(o.key, v);
      }
      answers.push(v);
    } else if (o.op === 'get') answers.push(map.get(o.key));
    else if (o.op === 'delete') answers.push(map.delete(o.key));
    else map.clear();
  }
  return { map, answers };
}

describe('LinkedMap', () => {
  it('keeps the entries and the order of a Map re-inserted on use', () => {
    fc.assert(
      fc.property(ops, (list) => {
        const m = new LinkedMap<number, number>();
        const answers: unknown[] = [];
        for (const o of list) {
          if (o.op === 'set') m.set(o.key, o.value, o.use);
          else if (o.op === 'use') answers.push(m.use(o.key));
          else if (o.op === 'get') answers.push(m.get(o.key));
          else if (o.op === 'delete') answers.push(m.delete(o.key));
          else m.clear();
        }
        const want = model(list);
        expect(answers).toEqual(want.answers);
        expect([...m.keys()]).toEqual([...want.map.keys()]);
        expect([...m.keys()].map((k) => m.get(k))).toEqual([...want.map.values()]);
        expect(m.size).toBe(want.map.size);
        expect(m.oldestKey()).toBe([...want.map.keys()][0]);
        expect(m.oldestValue()).toBe([...want.map.values()][0]);
        for (let k = 0; k <= 12; k++) expect(m.has(k)).toBe(want.map.has(k));
      }),
      { numRuns: 500 },
    );
  });

  it('lets an iteration delete the key it just yielded', () => {
    const m = new LinkedMap<string, number>();
    for (const k of ['a', 'b', 'c', 'd']) m.set(k, 1);
    const seen: string[] = [];
    for (const k of m.keys()) {
      seen.push(k);
      if (k !== 'c') m.delete(k);
    }
    expect(seen).toEqual(['a', 'b', 'c', 'd']);
    expect([...m.keys()]).toEqual(['c']);
  });

  it("a hot key's use and an eviction take the same steps in a map of 10 and of 100,000", () => {
    // The flaw this replaces, counted rather than timed: a Map re-inserting one key leaves
    // deleted entries in that key's bucket chain, so the map's own work grows with its size.
    // Here a use is pointer moves only, whatever the size: the cost per use is measured as
    // the number of Map operations, which the proxy below counts.
    for (const size of [10, 100_000]) {
      const m = new LinkedMap<number, number>();
      for (let k = 0; k < size; k++) m.set(k, k);
      const calls = countMapCalls(() => {
        for (let i = 0; i < 1000; i++) m.use(5);
        for (let i = 0; i < 1000; i++) {
          m.set(size + i, i);
          m.delete(m.oldestKey() as number);
        }
      });
      // One lookup per use; per eviction one lookup and one delete, per insert one
      // lookup and one set: nothing that iterates or depends on the size.
      expect(calls).toEqual({ get: 1000 + 2000, set: 1000, delete: 1000, iterate: 0 });
    }
  });
});

/** Count the `Map` prototype calls `run` makes (all maps; nothing else runs meanwhile). */
function countMapCalls(run: () => void): Record<'get' | 'set' | 'delete' | 'iterate', number> {
  const counts = { get: 0, set: 0, delete: 0, iterate: 0 };
  const proto = Map.prototype as unknown as Record<string | symbol, (...a: unknown[]) => unknown>;
  // An array, not a Map: the Map calls made while wrapping would count.
  const saved: [string | symbol, (...a: unknown[]) => unknown][] = [];
  const wrap = (name: string | symbol, count: keyof typeof counts) => {
    const original = proto[name] as (...a: unknown[]) => unknown;
    saved.push([name, original]);
    proto[name] = function (this: unknown, ...args: unknown[]) {
      counts[count]++;
      return original.apply(this, args);
    };
  };
  wrap('get', 'get');
  wrap('set', 'set');
  wrap('delete', 'delete');
  for (const name of ['keys', 'values', 'entries', 'forEach', Symbol.iterator])
    wrap(name, 'iterate');
  try {
    run();
  } finally {
    for (const [name, original] of saved) proto[name] = original;
  }
  return counts;
}

describe('Lru', () => {
  it('evicts the least recently used past its capacity, and hears each eviction', () => {
    let evicted = 0;
    const lru = new Lru<string, number>(3, () => evicted++);
    for (const k of ['a', 'b', 'c']) lru.set(k, 1);
    expect(lru.get('a')).toBe(1); // a is now the most recent
    expect(lru.peek('b')).toBe(1); // a peek does not reorder
    lru.set('d', 2); // b goes
    expect(lru.peek('b')).toBeUndefined();
    expect(evicted).toBe(1);
    lru.resize(1); // only the most recent stays: d
    expect([lru.peek('a'), lru.peek('c'), lru.peek('d')]).toEqual([undefined, undefined, 2]);
    expect(evicted).toBe(3);
    lru.resize(0); // unbounded: reads do not reorder, nothing is evicted
    for (let i = 0; i < 100; i++) lru.set(`k${i}`, i);
    expect(lru.size).toBe(101);
    lru.deleteWhere((k) => k.startsWith('k'));
    expect(lru.size).toBe(1);
    lru.delete('d');
    lru.set('x', 1);
    lru.clear();
    expect(lru.size).toBe(0);
    expect(evicted).toBe(3);
  });
});
