/**
 * The in-memory heap: it pops exactly what a sort by (time, id) would, in
 * that order, and only what is due (property test against a sorted array).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExpiryQueue } from '../../src/leases/expiry-queue.js';

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
});
