/**
 * Reading callgrind dumps for the instruction benches
 * (`http-instructions.bench.ts`, `call-instructions.bench.ts`): a dump's
 * total, and inclusive of their entry points the optimising compiler (V8
 * runs it on the main thread under `--single-threaded`) and the garbage
 * collector. The compiler's late work is not the measured calls' (it varies
 * with the warm-up), so the figure compared is the rest: instructions
 * without the compiler, garbage collection included.
 * @module
 */
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * V8 flags for a counted process: its hash and random seeds fixed, so two
 * runs of one build take the same hash-dependent paths. (They did not cure
 * the run-to-run jumps of `bench:calls`: those were a fixed ≈ 4–14 M
 * instructions of other work inside each counted window, shared out over
 * the calls counted; see call-instructions.bench.ts's `count`.)
 */
export const V8_FIXED_SEEDS = ['--hash-seed=1', '--random-seed=1'];

/**
 * The arguments that run a command under callgrind, counting nothing until
 * told; with `misses`, callgrind also simulates the caches and the branch
 * predictor (`--cache-sim`, `--branch-sim`: the run takes about twice as long).
 */
export const callgrindCommand = (out: string, misses = false): string[] => [
  'valgrind',
  '--tool=callgrind',
  '--instr-atstart=no',
  ...(misses ? ['--cache-sim=yes', '--branch-sim=yes'] : []),
  `--callgrind-out-file=${out}`,
];

/** One line of `callgrind_annotate`: each event's count, then the function. */
const LINE = /^\s*((?:[\d,]+ \(\s*[\d.]+%\)\s+|\.\s+)+)(.*)$/;

/**
 * Inclusive counts of every event (in the dump's order, instructions first)
 * of the first function whose name contains `needle`; zeros when none does.
 */
function inclusive(annotated: string, needle: string, events: number): number[] {
  for (const line of annotated.split('\n')) {
    const m = LINE.exec(line);
    if (!m?.[2]?.includes(needle)) continue;
    // Each event: `1,234 ( 5.67%)`, or `.` for none.
    const counts = (m[1] as string)
      .replace(/\(\s*[\d.]+%\)/g, ' ')
      .trim()
      .split(/\s+/);
    return counts.map((c) => (c === '.' ? 0 : Number(c.replaceAll(',', ''))));
  }
  return new Array<number>(events).fill(0);
}

/** The events a dump holds (`Ir`, then with the simulations `I1mr`, `Bcm`…). */
function eventsOf(annotated: string): string[] {
  return /^Events shown:\s+(.*)$/m.exec(annotated)?.[1]?.trim().split(/\s+/) ?? ['Ir'];
}

/** Cache and branch misses per call, from a dump made with `misses` on. */
export interface Misses {
  /** First-level instruction-cache misses. */
  i1: number;
  /** First-level data-cache misses, reads and writes. */
  d1: number;
  /** Last-level misses, instructions and data (memory reads). */
  ll: number;
  /** Mispredicted branches, conditional and indirect. */
  branches: number;
}

/**
 * Per call (`n` calls in the dump): instructions without the compiler, of
 * which GC, and the compiler; and when the dump simulated them, the cache
 * and branch misses without the compiler's.
 */
export function perCall(file: string, n: number): PerCall {
  const annotated = execFileSync('callgrind_annotate', ['--inclusive=yes', file], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  return perCallOf(annotated, n);
}

/** What {@link perCall} reports. */
export interface PerCall {
  own: number;
  gc: number;
  compile: number;
  misses?: Misses;
}

/** {@link perCall} from `callgrind_annotate --inclusive=yes`'s output. */
export function perCallOf(annotated: string, n: number): PerCall {
  const events = eventsOf(annotated);
  const total = inclusive(annotated, 'PROGRAM TOTALS', events.length);
  const compile = inclusive(annotated, 'Runtime_CompileOptimized', events.length);
  const gc = inclusive(annotated, 'v8::internal::Heap::CollectGarbage(', events.length);
  const own = (...names: string[]) =>
    names.reduce((sum, e) => {
      const i = events.indexOf(e);
      return i < 0 ? sum : sum + ((total[i] ?? 0) - (compile[i] ?? 0)) / n;
    }, 0);
  const result = {
    own: own('Ir'),
    gc: (gc[0] ?? 0) / n,
    compile: (compile[0] ?? 0) / n,
  };
  if (!events.includes('I1mr') || !events.includes('Bcm')) return result;
  return {
    ...result,
    misses: {
      i1: own('I1mr'),
      d1: own('D1mr', 'D1mw'),
      ll: own('ILmr', 'DLmr', 'DLmw'),
      branches: own('Bcm', 'Bim'),
    },
  };
}

/**
 * Count what `run` makes process `pid` (running under {@link callgrindCommand}
 * with its dump in `dir`) do: instrumentation on, `run`, off, and one dump.
 * @returns the dump's path and what `run` returned (the calls it counted).
 */
export async function counted(
  dir: string,
  pid: number,
  run: () => Promise<number>,
): Promise<{ file: string; n: number }> {
  const control = (...a: string[]) =>
    execFileSync('callgrind_control', [...a, String(pid)], { stdio: 'ignore' });
  const before = new Set(readdirSync(dir));
  control('-i', 'on');
  const n = await run();
  control('-i', 'off');
  control('-d');
  const file = readdirSync(dir).find((f) => !before.has(f) && f.startsWith('callgrind.out'));
  if (!file) throw new Error('no callgrind dump');
  return { file: join(dir, file), n };
}
