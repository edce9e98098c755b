/**
 * Where the time of one call goes (issue 18's in-process rows), by sampling:
 * the cases of `call-cases.ts` (decrypt and HMAC of 64 B: the raw
 * node:crypto call, the same awaited, the floor of any implementation,
 * transitkit; encrypt of 64 B; rotate) run one after another in one
 * process, and `perf record -e cpu-clock` samples it while each runs
 * (`perf-sample.ts`). Each case's time per call is split into categories
 * (its own JS, Node's JS, V8's builtins, Node's C++, OpenSSL, libc, the
 * collector, the compiler, the kernel); the ratio is raw ÷ the case, as in
 * the timed rows.
 *
 * Where `npm run bench:calls` counts instructions, this measures time, so
 * it also sees cache misses, locks and the kernel; like any time on a shared
 * host it moves with the neighbours (compare the cases of one run). With
 * `--top=N` it prints, for each case with a baseline, the N functions that
 * take the most more time per call than in the baseline.
 *
 * Needs Linux `perf` (it says so and stops without). About a minute.
 * `npm run bench:call-time [-- --warm=N --count=N --hz=N --top=N --keep --only=decrypt,hmac]`
 * (`--keep`: the `perf.data` files stay, one per case, for `perf report`).
 * @module
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { arg, chosenCases, startCases } from './call-cases.js';
import { printTable, type Row } from './harness.js';
import {
  categoryRows,
  functions,
  perFunction,
  perfWorks,
  printMostAbove,
  type Sampled,
  sampled,
  samplesOf,
} from './perf-sample.js';

async function main(): Promise<void> {
  if (!perfWorks()) {
    console.log('bench:call-time needs Linux perf (perf record -e cpu-clock); not available here.');
    return;
  }
  const warm = arg('warm', 50_000);
  const count = arg('count', 200_000);
  const hz = arg('hz', 4_000);
  const top = arg('top', 0);
  const keep = process.argv.includes('--keep');
  const cases = chosenCases();
  const dir = mkdtempSync(join(tmpdir(), 'tk-perf-'));
  // --perf-basic-prof: V8 writes /tmp/perf-<pid>.map, the names of its JIT code for perf.
  const { proc, ask, stop } = await startCases({
    execArgv: [
      '--expose-gc',
      '--perf-basic-prof',
      `--logfile=${join(dir, 'v8.log')}`,
      '--import',
      'tsx',
    ],
  });
  // Per case: its sampled functions, and the µs per call one sample stands for.
  const measured = new Map<string, { fns: Sampled[]; usPerSample: number; us: number }>();
  try {
    for (const [i, c] of cases.entries()) {
      const rotate = c.group === 'rotate';
      // Rotate as bench:calls counts it (400 calls: the large side stays near 1,000 versions).
      const [w, n] = rotate ? [300, 400] : [warm, count];
      await ask({ prepare: c.name, n: w });
      await ask({ run: c.name, n: w });
      await ask({ prepare: c.name, n });
      const file = join(dir, `${i}.perf.data`);
      await sampled(proc.pid ?? 0, file, hz, () => ask({ run: c.name, n }));
      const fns = functions(file);
      const usPerSample = 1e6 / hz / n;
      measured.set(c.name, { fns, usPerSample, us: samplesOf(fns) * usPerSample });
    }
  } finally {
    await stop();
  }
  const rows: Row[] = cases.flatMap((c) => {
    const m = measured.get(c.name);
    if (!m) return [];
    const base = c.vs === undefined ? undefined : measured.get(c.vs)?.us;
    const group = `${c.group}, time by perf`;
    return [
      {
        group,
        name: `${c.name}: per call`,
        value: m.us,
        unit: 'µs',
        ...(base === undefined
          ? {}
          : { ratio: c.over ? m.us / base : base / m.us, baseline: c.vs as string }),
      },
      ...categoryRows(group, m.fns, m.usPerSample, 'µs'),
    ];
  });
  printTable(rows);
  if (top > 0) {
    for (const c of cases) {
      const m = measured.get(c.name);
      const b = c.vs === undefined ? undefined : measured.get(c.vs);
      if (!m || !b) continue;
      const title = `${c.group}: ${c.name}, the ${top} functions most above ${c.vs} (µs per call)`;
      printMostAbove(
        title,
        perFunction(m.fns, m.usPerSample),
        perFunction(b.fns, b.usPerSample),
        top,
      );
    }
  }
  if (keep)
    console.log(
      `\nperf.data files kept in ${dir} (one per case, in order); JIT names in /tmp/perf-${proc.pid}.map`,
    );
  else {
    rmSync(dir, { recursive: true, force: true });
    rmSync(`/tmp/perf-${proc.pid}.map`, { force: true });
  }
}

await main();
