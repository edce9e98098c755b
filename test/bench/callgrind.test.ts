/**
 * The instruction and miss counts of `bench:calls` and `bench:instructions`
 * (bench/callgrind.ts): `callgrind_annotate --inclusive=yes`'s lines read
 * event by event, `.` for none, the percentages skipped, and the compiler's
 * share taken out of every event. A parse that drifted (a percentage's
 * decimal point read as an empty column shifts every later event one place)
 * would put wrong figures in docs/performance.md's tables.
 */
import { describe, expect, it } from 'vitest';
import { perCallOf } from '../../bench/callgrind.js';

const WITH_MISSES = `
--------------------------------------------------------------------------------
Events shown:     Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim
--------------------------------------------------------------------------------
Ir                 Dr                 Dw                 I1mr             D1mr             D1mw             ILmr         DLmr           DLmw           Bc                 Bcm              Bi               Bim               file:function
--------------------------------------------------------------------------------
452,000,000 (100.0%) 123,000,000 (100.0%) 71,000,000 (100.0%) 18,000,000 (100.0%) 7,500,000 (100.0%) 1,200,000 (100.0%) 23,000 (100.0%) 29,000 (100.0%) 56,000 (100.0%) 66,000,000 (100.0%) 4,700,000 (100.0%) 3,900,000 (100.0%) 880,000 (100.0%)  PROGRAM TOTALS
 84,500,000 (18.69%)  20,000,000 (16.26%) 10,000,000 (14.08%)  1,000,000 ( 5.56%)   500,000 ( 6.67%)   200,000 (16.67%)  3,000 (13.04%)  9,000 (31.03%) 6,000 (10.71%) 10,000,000 (15.15%)   700,000 (14.89%)  900,000 (23.08%)  80,000 ( 9.09%)  ???:v8::internal::Runtime_CompileOptimized(int, unsigned long*, v8::internal::Isolate*) [/usr/bin/node]
 24,000,000 ( 5.31%)   6,000,000 ( 4.88%)  3,000,000 ( 4.23%)    300,000 ( 1.67%)   100,000 ( 1.33%)    20,000 ( 1.67%)    100 ( 0.43%)    200 ( 0.69%)      0          4,000,000 ( 6.06%)   100,000 ( 2.13%)        .                .           ???:v8::internal::Heap::CollectGarbage(v8::internal::AllocationSpace, v8::internal::GarbageCollectionReason, v8::GCCallbackFlags) [/usr/bin/node]
`;

const INSTRUCTIONS_ONLY = `
Events shown:     Ir
Ir                   file:function
3,500,000 (100.0%)  PROGRAM TOTALS
  500,000 (14.29%)  ???:v8::internal::Runtime_CompileOptimized(int) [/usr/bin/node]
  200,000 ( 5.71%)  ???:v8::internal::Heap::CollectGarbage(v8::internal::AllocationSpace) [/usr/bin/node]
`;

describe('callgrind_annotate read per call', () => {
  it('instructions only: without the compiler, of which GC, the compiler; no misses', () => {
    expect(perCallOf(INSTRUCTIONS_ONLY, 100)).toEqual({
      own: 30_000,
      gc: 2_000,
      compile: 5_000,
    });
  });

  it('with the simulations: each event in its column, the compiler taken out of each', () => {
    const r = perCallOf(WITH_MISSES, 10_000);
    expect(r.own).toBe((452_000_000 - 84_500_000) / 10_000);
    expect(r.gc).toBe(2_400);
    expect(r.compile).toBe(8_450);
    expect(r.misses).toEqual({
      i1: (18_000_000 - 1_000_000) / 10_000,
      d1: (7_500_000 - 500_000 + 1_200_000 - 200_000) / 10_000,
      ll: (23_000 - 3_000 + 29_000 - 9_000 + 56_000 - 6_000) / 10_000,
      branches: (4_700_000 - 700_000 + 880_000 - 80_000) / 10_000,
    });
  });

  it('a function not in the output counts zero', () => {
    const noCompiler = INSTRUCTIONS_ONLY.split('\n')
      .filter((l) => !l.includes('CompileOptimized'))
      .join('\n');
    expect(perCallOf(noCompiler, 100)).toMatchObject({ own: 35_000, compile: 0 });
  });
});
