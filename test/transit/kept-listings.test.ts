/**
 * The bound of the read body's kept listings (src/transit/kept-listings.ts):
 * what is kept never weighs more than the capacity, the least recently used
 * key goes first, a listing too short to be worth keeping or too heavy to fit
 * alone is not kept, and a replaced listing is never changed again.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KEEP_FROM, type KeptListing, KeptListings } from '../../src/transit/kept-listings.js';

const listing = (uid: string, from: number, to: number): KeptListing => ({ uid, from, to });

describe('KeptListings', () => {
  it('counts versions by default, evicts the least recently used key, keeps the one in use', () => {
    const kept = new KeptListings<KeptListing>(250);
    expect(kept.replace('a', listing('u', 1, 100))).toBe(true);
    expect(kept.replace('b', listing('u', 1, 100))).toBe(true);
    expect(kept.size).toBe(200);
    kept.use('a');
    expect(kept.replace('c', listing('u', 1, 100))).toBe(true);
    expect([kept.keeps('a'), kept.keeps('b'), kept.keeps('c')]).toEqual([true, false, true]);
    expect(kept.size).toBe(200);
    // Extending the newest past the bound evicts the other, never itself.
    const c = kept.get('c') as KeptListing;
    kept.extended('c', c, 200);
    expect(c.to).toBe(200);
    expect([kept.keeps('a'), kept.keeps('c')]).toEqual([false, true]);
    expect(kept.size).toBe(200);
    // Alone past the bound: dropped.
    kept.extended('c', c, 300);
    expect(kept.keeps('c')).toBe(false);
    expect(kept.size).toBe(0);
  });

  it('does not keep a short listing, nor one heavier than the whole capacity', () => {
    const kept = new KeptListings<KeptListing>(1_000);
    expect(kept.replace('short', listing('u', 1, KEEP_FROM - 1))).toBe(false);
    expect(kept.keeps('short')).toBe(false);
    expect(kept.replace('heavy', listing('u', 1, 100), 1_001)).toBe(false);
    expect(kept.size).toBe(0);
    // Replacing a kept listing by a short one drops it.
    expect(kept.replace('k', listing('u', 1, 100), 500)).toBe(true);
    expect(kept.replace('k', listing('u', 90, 100))).toBe(false);
    expect(kept.size).toBe(0);
  });

  it('weighs what the caller says: units in, units out, whatever the order of calls', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            name: fc.constantFrom('a', 'b', 'c', 'd'),
            op: fc.constantFrom('replace', 'extend', 'use'),
            versions: fc.integer({ min: 1, max: 200 }),
            units: fc.integer({ min: 0, max: 400 }),
          }),
          { maxLength: 60 },
        ),
        (ops) => {
          const capacity = 1_000;
          const kept = new KeptListings<KeptListing>(capacity);
          const weights = new Map<string, number>();
          for (const { name, op, versions, units } of ops) {
            const now = kept.get(name);
            if (op === 'replace') {
              const l = listing('u', 1, versions);
              if (kept.replace(name, l, units)) weights.set(name, units);
            } else if (op === 'extend' && now) {
              kept.extended(name, now, now.to + versions, units);
              weights.set(name, (weights.get(name) ?? 0) + units);
            } else if (op === 'use' && now) kept.use(name);
            for (const n of [...weights.keys()]) if (!kept.keeps(n)) weights.delete(n);
            const sum = [...weights.values()].reduce((x, y) => x + y, 0);
            if (kept.size !== sum || kept.size > capacity) return false;
          }
          return true;
        },
      ),
      { numRuns: 300 },
    );
  });
});
