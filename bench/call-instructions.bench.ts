/**
 * The in-process rows of issue 18 in instructions: decrypt and HMAC of 64 B
 * against the raw node:crypto calls of transit.bench.ts and sign.bench.ts
 * (and the raw call awaited in an `async` function: what a promise costs;
 * and call-floor.ts's floor: what any complete implementation costs),
 * ECDSA-P256 signing against sign.bench.ts's raw `crypto.sign` with the same
 * key, encrypt of 64 B, and rotate at 1,000 versions against rotate at 10. The
 * cases run in one process under valgrind's callgrind, which counts only
 * while one case runs; the counts do not depend on what else the machine
 * runs, where the timed ratios of `npm run bench` spread 0.3–1.2 on a shared
 * host.
 *
 * Each case is called `warm` times first (uncounted: V8 optimises the hot
 * code meanwhile), then, from a collected heap, `count` times counted, each
 * call awaited when it returns a promise (as the timed harness does). Rotate: the small side
 * rotates fresh keys of 10 versions ten times each (10–20 versions), the
 * large side a key of 1,000 versions (warmed on keys of the same kinds).
 * The figure is instructions per call without the optimising compiler,
 * garbage collection included (bench/callgrind.ts), and the ratio in the
 * direction of the timed rows: raw ÷ transit, and rotate many ÷ few.
 *
 * With `--misses`, callgrind also simulates the caches and the branch
 * predictor, and each case gets four more rows: first-level instruction- and
 * data-cache misses, last-level misses and mispredicted branches per call
 * (the compiler's excluded). Two cases of equal instructions can take
 * different times: on this path node:crypto's C++ and OpenSSL evict the
 * 32 KiB instruction cache on every call, so each line of JavaScript code a
 * call runs is fetched again on the next (docs/performance.md, stop 57).
 *
 * Needs valgrind; about three minutes (six with `--misses`).
 * `npm run bench:calls [-- --warm=N --count=N --keep --misses --only=decrypt,hmac,sign]`
 * (`--keep`: the dumps stay, one per case in order, for `callgrind_annotate`,
 * with V8's map of its JIT code; `--only`: the groups named so, the others
 * still set up but not run).
 * @module
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { arg, chosenCases, startCases } from './call-cases.js';
import {
  callgrindCommand,
  counted,
  type Misses,
  type PerCall,
  perCall,
  V8_FIXED_SEEDS,
} from './callgrind.js';
import { printTable, type Row } from './harness.js';

async function main(): Promise<void> {
  const warm = arg('warm', 10_000);
  // Each counted window holds a fixed ≈ 4 M instructions of other work (the
  // start and stop of counting, the messages around it), sometimes ≈ 10 M more
  // (at 3,000 calls, decrypt read 36.1 k or 39.2 k a call from one run to the
  // next, the awaited raw call 31.9 k or 35.1 k with it); 30,000 calls share
  // it out to ≈ 0.1–0.5 k a call.
  const count = arg('count', 30_000);
  const keep = process.argv.includes('--keep');
  const simulate = process.argv.includes('--misses');
  const cases = chosenCases();
  const dir = mkdtempSync(join(tmpdir(), 'tk-callgrind-'));
  const { proc, ask, stop } = await startCases({
    execPath: 'valgrind',
    execArgv: [
      ...callgrindCommand(join(dir, 'callgrind.out'), simulate).slice(1),
      process.execPath,
      '--single-threaded',
      '--expose-gc',
      ...V8_FIXED_SEEDS,
      // With --keep, V8 writes /tmp/perf-<pid>.map: names for the JIT's addresses in the dumps.
      // (which also makes it log; the log goes beside the dumps, not into the working directory).
      ...(keep ? ['--perf-basic-prof', `--logfile=${join(dir, 'v8.log')}`] : []),
      '--import',
      'tsx',
    ],
  });
  const measured = new Map<string, PerCall>();
  try {
    for (const c of cases) {
      const rotate = c.group === 'rotate';
      const [w, n] = rotate ? [300, 400] : [warm, count];
      await ask({ prepare: c.name, n: w });
      await ask({ run: c.name, n: w });
      await ask({ prepare: c.name, n });
      const { file } = await counted(dir, proc.pid ?? 0, async () => {
        await ask({ run: c.name, n });
        return n;
      });
      measured.set(c.name, perCall(file, n));
    }
  } finally {
    await stop();
  }
  const rows: Row[] = cases.flatMap((c) => {
    const { own, gc, misses } = measured.get(c.name) as PerCall;
    const base = c.vs === undefined ? undefined : measured.get(c.vs);
    const group = `${c.group}, instructions`;
    // Misses: the case's count over its baseline's (more is worse, as for rotate).
    const missRow = (what: string, pick: (m: Misses) => number): Row => {
      const value = pick(misses as Misses);
      const was = base?.misses && pick(base.misses);
      return {
        group,
        name: `${c.name}: ${what} per call`,
        value: Math.round(value),
        unit: 'misses',
        ...(was ? { ratio: value / was, baseline: c.vs as string } : {}),
      };
    };
    const missRows = misses
      ? [
          missRow('L1 instruction-cache misses', (m) => m.i1),
          missRow('L1 data-cache misses', (m) => m.d1),
          missRow('last-level cache misses', (m) => m.ll),
          missRow('mispredicted branches', (m) => m.branches),
        ]
      : [];
    return [
      {
        group,
        name: `${c.name}: per call, without the compiler`,
        value: Math.round(own),
        unit: 'Ir',
        ...(base === undefined
          ? {}
          : {
              ratio: c.over ? own / base.own : base.own / own,
              baseline: c.vs as string,
            }),
      },
      { group, name: `${c.name}: of which garbage collection`, value: Math.round(gc), unit: 'Ir' },
      ...missRows,
    ];
  });
  if (keep) console.log(`callgrind dumps kept in ${dir}; JIT names in /tmp/perf-${proc.pid}.map`);
  else rmSync(dir, { recursive: true, force: true });
  printTable(rows);
}

await main();
