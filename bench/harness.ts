/**
 * Benchmark harness: every case is checked for correctness before it is
 * timed (noble's `crossValidate` idea), and results are reported as ratios
 * against a baseline measured in the same run — never as absolute targets,
 * since machines here are shared and noisy.
 *
 * Timing, and why: the cases of one group run in alternating rounds
 * (12 × 150 ms, order reversed every round), and each ratio is taken between
 * a case and its baseline *in the same round*, a moment apart. A burst of
 * load from a neighbour then hits both sides of a ratio alike. The printed
 * ratio is the median over the rounds and its range (min–max) is shown when
 * it is wider than ±5 %.
 *
 * A round holds several young-generation collections. In a bench process
 * (`node --trace-gc`, the sign section) V8 scavenges every 45–85 ms, for
 * 2–13 ms each. Rounds of 30 ms, as the harness used before, held one
 * scavenge or none, and the median kept the rounds with none: it left out
 * the collector's share of whichever case's round missed it. The raw
 * HMAC loop read 520–580 k calls/s in 30 ms rounds and 462 k in 150 ms
 * rounds, where the transit side read the same in both (≈ 400 k).
 * A case that allocates far more than the others (the noble backend) is
 * timed `apart`: in rounds of its own after the others, beside a fresh
 * measure of its baseline, so its garbage is not collected in, and charged
 * to, the next case's round.
 * @module
 */

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { median } from './stats.js';

/** What a ratio must reach (`min`) or stay under (`max`). */
export interface Target {
  min?: number;
  max?: number;
}

export interface Case {
  name: string;
  /** Throws if the implementation is wrong. Runs once before timing. */
  check?: () => Promise<void> | void;
  fn: () => Promise<unknown> | unknown;
  /** The case this one is compared with (default: the first case of the group). */
  vs?: string;
  /** The goal for this case's ratio (printed as met or missed). */
  target?: Target;
  /** Work units per call (e.g. 1,000 for a batch of 1,000): rates are per unit. */
  units?: number;
  /**
   * Time this case in rounds of its own, after the others, beside a fresh
   * measure of its baseline: for a case that allocates far more than the
   * others (the noble backend), whose garbage would otherwise be collected
   * during the next case's round and charged to it.
   */
  apart?: boolean;
}

/** One printed figure. */
export interface Row {
  group: string;
  name: string;
  value: number;
  /** `ops/s`, `µs`, `ms`, `B`, … */
  unit: string;
  /** value ÷ the baseline's value, or for latencies the ratio named in `baseline`. */
  ratio?: number;
  /** Lowest and highest ratio over the rounds. */
  range?: [number, number];
  baseline?: string;
  target?: Target;
}

/**
 * The raw call inside an `async` function: a call that returns a promise, as
 * every transit call does, and does nothing else.
 */
export const PROMISED = 'raw node:crypto, awaited in an async function';

/**
 * The least any complete implementation does (`./call-floor.ts`): strict
 * base64, a key-cache lookup with its age check, the primitive, a reply.
 */
export const FLOOR = 'floor: decode, cached key, primitive, reply (async)';

export const quick = process.argv.includes('--quick');

/** Time settings: full runs favour steadiness, `--quick` only keeps every path working. */
const ROUNDS = quick ? 1 : 12;
const ROUND_MS = quick ? 15 : 150;

/** Calls per second of `fn` (awaiting only when it returns a promise). */
async function rate(fn: Case['fn'], ms: number, minCalls = 2): Promise<number> {
  let n = 0;
  const start = performance.now();
  let now = start;
  do {
    const r = fn();
    if (r instanceof Promise) await r;
    n++;
    now = performance.now();
  } while (now - start < ms || n < minCalls);
  return (n * 1000) / (now - start);
}

/** Rates of `cases` in alternating rounds (order reversed every round), after a warm-up. */
async function rounds(
  cases: Case[],
  roundMs: number,
  count: number,
): Promise<Map<string, number[]>> {
  for (const c of cases) await rate(c.fn, roundMs / 3, 1); // warm-up (JIT, caches)
  const rates = new Map<string, number[]>(cases.map((c) => [c.name, []]));
  for (let round = 0; round < count; round++) {
    const order = round % 2 ? [...cases].reverse() : cases;
    for (const c of order) rates.get(c.name)?.push((await rate(c.fn, roundMs)) * (c.units ?? 1));
  }
  return rates;
}

/**
 * Time `cases` (the first is the default baseline) and return one row each.
 * Cases marked `apart` run in rounds of their own after the others, with
 * their baselines measured again beside them; each ratio is still taken
 * within a round.
 */
export async function compare(
  group: string,
  cases: Case[],
  { roundMs = ROUND_MS, rounds: count = ROUNDS }: { roundMs?: number; rounds?: number } = {},
): Promise<Row[]> {
  const first = cases[0];
  if (!first) return [];
  for (const c of cases) await c.check?.();
  const baselineOf = (c: Case) => c.vs ?? first.name;
  const byName = new Map(cases.map((c) => [c.name, c]));
  const together = await rounds(
    cases.filter((c) => !c.apart),
    roundMs,
    count,
  );
  const apart = cases.filter((c) => c.apart);
  const alone = new Set(apart.map((c) => c.name));
  for (const c of apart) alone.add(baselineOf(c));
  const separate = apart.length
    ? await rounds(
        cases.filter((c) => alone.has(c.name)),
        roundMs,
        count,
      )
    : new Map<string, number[]>();
  return cases.map((c) => {
    const baseline = baselineOf(c);
    if (!byName.has(baseline)) throw new Error(`${group}: no baseline ${baseline}`);
    if (!c.apart && byName.get(baseline)?.apart) {
      throw new Error(`${group}: ${c.name} is timed with the others, its baseline apart`);
    }
    const rates = c.apart ? separate : together;
    const mine = rates.get(c.name) ?? [];
    const base = rates.get(baseline) ?? [];
    const ratios = mine.map((x, i) => x / (base[i] ?? Number.NaN));
    return {
      group,
      name: c.name,
      value: median(mine),
      unit: 'ops/s',
      ratio: median(ratios),
      range: [Math.min(...ratios), Math.max(...ratios)],
      baseline,
      target: c.target,
    };
  });
}

/** Mean latency of `fn` in µs over `n` calls (awaited one after another). */
export async function latencyUs(n: number, fn: (i: number) => Promise<unknown>): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < n; i++) await fn(i);
  return ((performance.now() - start) * 1000) / n;
}

/** A row comparing two measurements of the same thing (e.g. at 1k and at 100k keys). */
export function versus(
  group: string,
  name: string,
  value: number,
  unit: string,
  base: { value: number; name: string },
  target?: Target,
): Row {
  return { group, name, value, unit, ratio: value / base.value, baseline: base.name, target };
}

/** A full collection, for memory figures (`--expose-gc` is switched on at run time). */
export const gc: () => void = (() => {
  setFlagsFromString('--expose-gc');
  const f = runInNewContext('gc') as () => void;
  return () => {
    f();
    f();
  };
})();

/** Keep the process responsive to timers between heavy steps. */
export const breathe = (): Promise<void> => new Promise((r) => setImmediate(r));

const fmt = (n: number): string =>
  n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(n >= 10 ? 1 : 2);

function verdict(r: Row): string {
  if (!r.target || r.ratio === undefined) return '';
  const { min, max } = r.target;
  const ok = (min === undefined || r.ratio >= min) && (max === undefined || r.ratio <= max);
  return `${min !== undefined ? `≥${min}` : `≤${max}`} ${ok ? 'met' : 'MISSED'}`;
}

/** Print rows as one aligned table: value, ratio (with its range when unsteady), target. */
export function printTable(rows: Row[]): void {
  const g = Math.max(...rows.map((r) => r.group.length), 5);
  const w = Math.max(...rows.map((r) => r.name.length), 4);
  console.log(
    `\n${'group'.padEnd(g)}  ${'case'.padEnd(w)}  ${'value'.padStart(16)}  ${'ratio'.padEnd(17)} target      vs`,
  );
  for (const r of rows) {
    let ratio = r.ratio === undefined ? '' : r.ratio.toFixed(2);
    const [lo, hi] = r.range ?? [0, 0];
    if (r.range && r.ratio !== undefined && (hi > r.ratio * 1.05 || lo < r.ratio * 0.95)) {
      ratio += ` (${lo.toFixed(2)}–${hi.toFixed(2)})`;
    }
    const value = `${fmt(r.value)} ${r.unit}`;
    const vs = r.baseline && r.baseline !== r.name ? r.baseline : '';
    console.log(
      `${r.group.padEnd(g)}  ${r.name.padEnd(w)}  ${value.padStart(16)}  ${ratio.padEnd(17)} ${verdict(r).padEnd(11)} ${vs}`,
    );
  }
}
