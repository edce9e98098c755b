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

/** The arguments that run a command under callgrind, counting nothing until told. */
/**
 * V8 flags for a counted process: its hash and random seeds fixed. With random
 * seeds, the same build's counts are bimodal from run to run (decrypt 64 B:
 * 36.1 k or 39.2 k instructions a call, and the awaited raw call 31.9 k or
 * 35.1 k with it, in two runs of five): the string hashes move which hash
 * tables collide. Fixed, nine runs of nine gave the same mode.
 */
export const V8_FIXED_SEEDS = ['--hash-seed=1', '--random-seed=1'];

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
