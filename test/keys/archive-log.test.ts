/**
 * The log of archived versions that may have changed (src/keys/archive-log.ts):
 * a reader holding a stamp gets exactly the changes after it, in order, or
 * `undefined` ("re-check everything") once the log no longer reaches back
 * that far or the whole archive was dropped — never a shorter list.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ArchiveChange, ArchiveLog } from '../../src/keys/archive-log.js';

describe('ArchiveLog', () => {
  it('answers the changes after a stamp, in order', () => {
    const log = new ArchiveLog();
    const s0 = log.stamp;
    expect(log.since(s0)).toEqual([]);
    log.changed('a', 3);
    const s1 = log.stamp;
    log.changed('b', 7);
    log.changed('a', 4);
    expect(s1).toBeGreaterThan(s0);
    expect(log.since(s0)).toEqual([
      { name: 'a', version: 3 },
      { name: 'b', version: 7 },
      { name: 'a', version: 4 },
    ]);
    expect(log.since(s1)).toEqual([
      { name: 'b', version: 7 },
      { name: 'a', version: 4 },
    ]);
    expect(log.since(log.stamp)).toEqual([]);
    expect(log.since(log.stamp + 1)).toBeUndefined(); // a stamp it never gave
  });

  it('after the whole archive was dropped, an older stamp gets undefined', () => {
    const log = new ArchiveLog();
    log.changed('a', 1);
    const before = log.stamp;
    log.changedAll();
    expect(log.stamp).toBeGreaterThan(before);
    expect(log.since(before)).toBeUndefined();
    expect(log.since(0)).toBeUndefined();
    const after = log.stamp;
    log.changed('c', 2);
    expect(log.since(after)).toEqual([{ name: 'c', version: 2 }]);
  });

  it('is bounded: a stamp further back than it keeps gets undefined, never a partial list', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constant('all' as const), fc.nat(5_000)), { maxLength: 3_000 }),
        fc.nat(3_000),
        (ops, at) => {
          const log = new ArchiveLog();
          const model: (ArchiveChange | 'all')[] = [];
          let stamp = log.stamp;
          ops.forEach((op, i) => {
            if (i === Math.min(at, ops.length - 1)) stamp = log.stamp;
            if (op === 'all') log.changedAll();
            else log.changed(`k${op % 7}`, op);
            model.push(op === 'all' ? 'all' : { name: `k${op % 7}`, version: op });
          });
          const got = log.since(stamp);
          const from = ops.length === 0 ? 0 : Math.min(at, ops.length - 1);
          const expected = model.slice(stamp === 0 && ops.length === 0 ? 0 : from);
          if (expected.includes('all')) return got === undefined;
          if (got === undefined) return expected.length > 512; // only when the log moved on
          return JSON.stringify(got) === JSON.stringify(expected);
        },
      ),
      { numRuns: 200 },
    );
  });
});
