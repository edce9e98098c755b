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

/** The arguments that run a command under callgrind, counting nothing until told. */
export const callgrindCommand = (out: string): string[] => [
  'valgrind',
  '--tool=callgrind',
  '--instr-atstart=no',
  `--callgrind-out-file=${out}`,
];

/** Inclusive instructions of the first function whose name contains `needle`. */
function inclusive(annotated: string, needle: string): number {
  for (const line of annotated.split('\n')) {
    const m = /^\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)$/.exec(line);
    if (m?.[2]?.includes(needle)) return Number((m[1] as string).replaceAll(',', ''));
  }
  return 0;
}

/** Per call (`n` calls in the dump): without the compiler, of which GC, and the compiler. */
export function perCall(file: string, n: number): { own: number; gc: number; compile: number } {
  const annotated = execFileSync('callgrind_annotate', ['--inclusive=yes', file], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  const total = inclusive(annotated, 'PROGRAM TOTALS');
  const compile = inclusive(annotated, 'Runtime_CompileOptimized');
  const gc = inclusive(annotated, 'v8::internal::Heap::CollectGarbage(');
  return { own: (total - compile) / n, gc: gc / n, compile: compile / n };
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
