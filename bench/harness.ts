/**
 * Benchmark harness: every case is checked for correctness before it is
 * timed (noble's `crossValidate` idea), and results are reported as ratios
 * against a baseline measured in the same run — never as absolute targets,
 * since machines here are shared and noisy.
 */
import { Bench } from 'tinybench';

export interface Case {
  name: string;
  /** Throws if the implementation is wrong. Runs once before timing. */
  check?: () => Promise<void> | void;
  fn: () => Promise<unknown> | unknown;
  /** The case this one is compared with (default: the first case of the group). */
  vs?: string;
}

export interface Row {
  group: string;
  name: string;
  opsPerSec: number;
  ratio: number;
  baseline: string;
}

export const quick = process.argv.includes('--quick');

/** Time `cases` (the first is the baseline) and return one row each. */
export async function compare(group: string, cases: Case[]): Promise<Row[]> {
  for (const c of cases) await c.check?.();
  const bench = new Bench({
    time: quick ? 60 : 1500,
    warmupTime: quick ? 20 : 300,
    iterations: quick ? 5 : 20,
  });
  for (const c of cases) bench.add(c.name, c.fn);
  await bench.run();
  const hz = (name: string): number => {
    const t = bench.tasks.find((x) => x.name === name);
    const r = t?.result as { throughput?: { mean?: number }; hz?: number } | undefined;
    return r?.throughput?.mean ?? r?.hz ?? 0;
  };
  const first = cases[0];
  if (!first) return [];
  return cases.map((c) => {
    const baseline = c.vs ?? first.name;
    const baseHz = hz(baseline);
    return {
      group,
      name: c.name,
      opsPerSec: hz(c.name),
      ratio: baseHz > 0 ? hz(c.name) / baseHz : 0,
      baseline,
    };
  });
}

/** Print rows as one aligned table. */
export function printTable(rows: Row[]): void {
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  const w = Math.max(...rows.map((r) => r.name.length), 10);
  console.log(
    `\n${'group'.padEnd(18)} ${'case'.padEnd(w)} ${'ops/s'.padStart(12)}  ratio vs baseline`,
  );
  for (const r of rows) {
    console.log(
      `${r.group.padEnd(18)} ${r.name.padEnd(w)} ${fmt(r.opsPerSec).padStart(12)}  ${r.ratio.toFixed(2)} (${r.baseline})`,
    );
  }
}
