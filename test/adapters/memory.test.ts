/**
 * MemoryStorage: the shared conformance suites (core, lock, watch), then the
 * few behaviours specific to this adapter.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import {
  FakeClock,
  runLockConformance,
  runStorageConformance,
  runWatchConformance,
} from 'transitkit/testing';
import { describe, expect, it } from 'vitest';
import { SortedKeys } from '../../src/storage/kit.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { verifySortedKeys } from '../helpers/sorted-keys-verify.js';

/**
 * The exported suites register their tests with this file's vitest, through
 * an `expect` of jest's arity: jest's throws "Expect takes at most one
 * argument." when given a message, and docs/testing.md promises jest works.
 */
const harness = {
  describe,
  it,
  expect: (actual: unknown, ...rest: unknown[]) => {
    if (rest.length !== 0) throw new Error('Expect takes at most one argument.');
    return expect(actual);
  },
};

runStorageConformance(harness, 'memory', async () => {
  const clock = new FakeClock();
  return { storage: new MemoryStorage({ clock }), clock };
});

runLockConformance(harness, 'memory', async () => {
  const clock = new FakeClock();
  return { storage: new MemoryStorage({ clock }), clock };
});

runWatchConformance(harness, 'memory', async () => ({ storage: new MemoryStorage() }));

describe('MemoryStorage specifics', () => {
  it('notifies in a microtask, not synchronously inside the write', async () => {
    const s = new MemoryStorage();
    const seen: string[] = [];
    await s.watch('', (k) => seen.push(k));
    const pending = s.put('k', new Uint8Array([1]));
    expect(seen).toEqual([]);
    await pending;
    await Promise.resolve();
    expect(seen).toEqual(['k']);
  });

  it('a delete of a missing key does not notify', async () => {
    const s = new MemoryStorage();
    const seen: string[] = [];
    await s.watch('', (k) => seen.push(k));
    await s.delete('missing');
    await s.put('sentinel', new Uint8Array(0));
    await Promise.resolve();
    expect(seen).toEqual(['sentinel']);
  });

  it('close drops watchers and leases but keeps data', async () => {
    const s = new MemoryStorage();
    const seen: string[] = [];
    await s.watch('', (k) => seen.push(k));
    const lease = await s.lock('leader', 60_000);
    await s.close();
    await s.put('k', new Uint8Array([1]));
    await Promise.resolve();
    expect(seen).toEqual([]);
    expect(await lease?.refresh(60_000)).toBe(false);
    expect(await s.lock('leader', 60_000)).toBeDefined();
    expect(await s.get('k')).toEqual(new Uint8Array([1]));
  });

  it('uses the system clock by default', async () => {
    const s = new MemoryStorage();
    const h = await s.lock('leader', 60_000);
    expect(h).toBeDefined();
    expect(await s.lock('leader', 60_000)).toBeUndefined();
  });

  it('has no node:* import (it must run in a browser)', () => {
    for (const file of ['memory.ts', 'kit.ts', 'sorted-keys.ts']) {
      const src = readFileSync(new URL(`../../src/storage/${file}`, import.meta.url), 'utf8');
      expect(src, file).not.toMatch(/from\s+['"]node:/);
    }
  });
});

describe('SortedKeys', () => {
  it('keeps keys sorted and unique through inserts and removes', () => {
    const s = SortedKeys.from(['b', 'a', 'b']);
    for (const k of ['d', 'c', 'a', 'e', 'c']) s.insert(k);
    s.remove('d');
    s.remove('zz');
    expect(s.size).toBe(4);
    expect(s.page('', undefined, 0)).toEqual(['a', 'b', 'c', 'e']);
  });

  it('pages from the middle of 100,000 keys', () => {
    const keys = Array.from({ length: 100_000 }, (_, i) => `k/${String(i).padStart(6, '0')}`);
    const s = SortedKeys.from(keys);
    expect(s.page('k/', '050000', 3)).toEqual(['050001', '050002', '050003']);
    expect(s.page('k/0999', undefined, 0)).toEqual(
      Array.from({ length: 100 }, (_, i) => `${9900 + i}`.slice(2)),
    );
  });
});

describe('SortedKeys as a B+tree', () => {
  /** The reference: a plain sorted array, paged the obvious way. */
  const refPage = (ref: Set<string>, prefix: string, after: string | undefined, limit: number) => {
    const start = after === undefined ? undefined : prefix + after;
    const out = [...ref]
      .sort()
      .filter((k) => k.startsWith(prefix) && (start === undefined || k > start))
      .map((k) => k.slice(prefix.length));
    return limit === 0 ? out : out.slice(0, limit);
  };
  const key = fc.stringMatching(/^[ab/]{1,5}$/);
  const op = fc.oneof(
    fc.record({ kind: fc.constant('insert' as const), key }),
    fc.record({ kind: fc.constant('remove' as const), key }),
  );

  it('matches a sorted array through any inserts and removes, staying balanced (property)', () => {
    fc.assert(
      fc.property(
        fc.array(key, { maxLength: 40 }),
        fc.array(op, { maxLength: 300 }),
        fc.integer({ min: 4, max: 9 }),
        fc.array(fc.tuple(fc.stringMatching(/^[ab/]{0,2}$/), fc.option(key), fc.nat(6))),
        (initial, ops, order, pages) => {
          const ref = new Set(initial);
          const s = SortedKeys.from(initial, order);
          verifySortedKeys(s);
          for (const o of ops) {
            if (o.kind === 'insert') {
              s.insert(o.key);
              ref.add(o.key);
            } else {
              s.remove(o.key);
              ref.delete(o.key);
            }
            verifySortedKeys(s);
            expect(s.size).toBe(ref.size);
          }
          expect(s.page('', undefined, 0)).toEqual(refPage(ref, '', undefined, 0));
          for (const [prefix, after, limit] of pages) {
            expect(s.page(prefix, after ?? undefined, limit)).toEqual(
              refPage(ref, prefix, after ?? undefined, limit),
            );
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('grows to many levels and shrinks back to an empty leaf', () => {
    const s = new SortedKeys(4);
    const keys = Array.from(
      { length: 5_000 },
      (_, i) => `k${String((i * 7919) % 5_000).padStart(4, '0')}`,
    );
    for (const k of keys) s.insert(k);
    verifySortedKeys(s);
    expect(s.size).toBe(5_000);
    expect(s.page('k0', '998', 3)).toEqual(['999']);
    expect(s.page('k', '2499', 2)).toEqual(['2500', '2501']);
    for (const k of keys.slice(0, 4_990)) s.remove(k);
    verifySortedKeys(s);
    expect(s.size).toBe(10);
    for (const k of keys.slice(4_990)) s.remove(k);
    verifySortedKeys(s);
    expect(s.page('', undefined, 0)).toEqual([]);
  });

  it('holds a million keys in a tree of logarithmic depth (O(log n) per insert)', () => {
    const order = 128;
    const s = new SortedKeys(order);
    const n = 1_000_000;
    for (let i = 0; i < n; i++) s.insert(`sys/leases/entry/${(i * 2_654_435_761) % 2 ** 32}`);
    expect(s.size).toBe(n); // an odd multiplier mod 2^32 is a bijection: no duplicates
    // Every non-root node holds at least order/2 entries, so the depth (the
    // nodes an insert walks and may split) is at most log_{order/2}(n) + 1:
    // 4 here, where a sorted array would shift ~n/2 entries per insert.
    const depth = verifySortedKeys(s);
    expect(depth).toBeLessThanOrEqual(Math.ceil(Math.log(n) / Math.log(order / 2)) + 1);
    expect(depth).toBeGreaterThan(1);
  }, 120_000);
});
