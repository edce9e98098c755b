/**
 * The in-memory heap: it pops exactly what a sort by (time, id) would, in
 * that order, and only what is due (property test against a sorted array).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExpiryQueue, MIN_STALE_FOR_REBUILD } from '../../src/leases/expiry-queue.js';

const order = (a: [number, string], b: [number, string]) =>
  a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0);

describe('ExpiryQueue', () => {
  it('pops due pairs in (time, id) order, in bounded batches (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 50 }), fc.string({ maxLength: 3 })), {
          maxLength: 200,
        }),
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 1, max: 20 }),
        (pairs, now, batch) => {
          const q = new ExpiryQueue();
          for (const [t, id] of pairs) q.push(t, id);
          expect(q.size).toBe(pairs.length);
          const popped: Array<[number, string]> = [];
          for (;;) {
            const slice = q.popDue(now, batch);
            expect(slice.length).toBeLessThanOrEqual(batch);
            if (slice.length === 0) break;
            popped.push(...slice);
          }
          const expected = pairs.filter(([t]) => t <= now).sort(order);
          expect(popped).toEqual(expected);
          expect(q.size).toBe(pairs.length - expected.length);
          expect(q.peekTime()).toBe(
            q.size === 0
              ? Number.POSITIVE_INFINITY
              : Math.min(...pairs.filter(([t]) => t > now).map(([t]) => t)),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('asks for a rebuild once stale pairs are most of the heap, and not before', () => {
    const q = new ExpiryQueue();
    for (let i = 0; i < 3 * MIN_STALE_FOR_REBUILD; i++) q.push(i, `id${i}`);
    for (let i = 0; i < MIN_STALE_FOR_REBUILD; i++) q.noteStale();
    expect(q.needsRebuild()).toBe(false); // a third stale
    for (let i = 0; i < MIN_STALE_FOR_REBUILD / 2 + 1; i++) q.noteStale();
    expect(q.stale * 2).toBeGreaterThan(q.size);
    expect(q.needsRebuild()).toBe(true);
    const small = new ExpiryQueue();
    small.push(1, 'a');
    small.noteStale();
    expect(small.needsRebuild()).toBe(false); // too few to be worth a reload
  });
});
