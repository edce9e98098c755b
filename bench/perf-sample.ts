/**
 * Sampling a running process's time with Linux `perf` (`perf record -e
 * cpu-clock`, a software clock: it needs no hardware counters, which
 * virtual machines often lack), for `call-time.bench.ts`. Every thread of
 * the process is sampled (the collector's helper threads included), only
 * while it runs on a CPU, and each sample is put into one category by the
 * function it landed in: JIT code is named by V8's `--perf-basic-prof` map.
 *
 * Unlike an instruction count (callgrind), a time profile sees what costs
 * time without costing instructions: cache misses, locks, the kernel.
 * @module
 */
import { execFileSync, spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Row } from './harness.js';

/** Whether `perf record` can sample here (installed, and allowed by the kernel). */
export function perfWorks(): boolean {
  try {
    execFileSync('perf', ['record', '-q', '-e', 'cpu-clock', '-o', '/dev/null', 'true'], {
      stdio: 'ignore',
    });
    return true;
  } catch {
    return false;
  }
}

/**
 * Sample process `pid` at `hz` while `run` runs, into `file`. perf gives no
 * sign once it has attached, so `run` starts after a short wait (nothing
 * of the process's own is sampled meanwhile: it is idle, awaiting a message).
 */
export async function sampled(
  pid: number,
  file: string,
  hz: number,
  run: () => Promise<void>,
): Promise<void> {
  const perf = spawn(
    'perf',
    ['record', '-q', '-e', 'cpu-clock', '-F', String(hz), '-p', String(pid), '-o', file],
    { stdio: 'ignore' },
  );
  const exited = new Promise<string>((resolve) =>
    perf.on('exit', (code, signal) => resolve(signal ?? String(code))),
  );
  await sleep(500);
  try {
    await run();
  } finally {
    perf.kill('SIGINT');
  }
  // perf writes its file on SIGINT, then ends by it (or exits 0).
  const how = await exited;
  if (how !== '0' && how !== 'SIGINT') throw new Error(`perf record ended with ${how}`);
}

/** One sampled function: its binary (`dso`), its name, and its samples. */
export interface Sampled {
  dso: string;
  sym: string;
  samples: number;
}

/** The functions of a `perf.data` file with their sample counts. */
export function functions(file: string): Sampled[] {
  const report = execFileSync(
    'perf',
    [
      'report',
      '-i',
      file,
      '--no-children',
      '--sort',
      'dso,sym',
      '-q',
      '-n',
      '--percent-limit',
      '0',
    ],
    { encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'ignore'] },
  );
  return parseReport(report);
}

/**
 * The lines of `perf report --sort dso,sym -n -q` (`  12.34%   567  node  [.] name`)
 * as functions; other lines are skipped.
 */
export function parseReport(report: string): Sampled[] {
  const out: Sampled[] = [];
  for (const line of report.split('\n')) {
    const m = /^\s*[\d.]+%\s+(\d+)\s+(.+?)\s+\[.\]\s+(.*)$/.exec(line);
    if (!m) continue;
    // V8's JIT code is reported per thread (`[JIT] tid 1234`): one name for all.
    const dso = (m[2] as string).replace(/^\[JIT\] tid \d+$/, '[JIT]');
    out.push({ samples: Number(m[1]), dso, sym: (m[3] as string).trim() });
  }
  return out;
}

/** The categories, in the order they are printed. */
export const CATEGORIES = [
  'JS of the code measured (transitkit, a floor, a raw call, a bare server)',
  "JS of Node's own modules (node:crypto, node:buffer…)",
  'V8 builtins and runtime',
  'Node C++ (crypto bindings, BaseObject, simdutf…)',
  'OpenSSL',
  'libc (malloc, free, memcpy, strcmp…)',
  'garbage collector',
  'optimising compiler',
  'kernel',
  'other',
] as const;
export type Category = (typeof CATEGORIES)[number];

const GC =
  /^v8::internal::(Heap|.*Mark|.*Sweep|Scaveng|.*Evacuat|Concurrent|.*Remembered|.*SlotSet|MemoryChunk|BasicMemoryChunk|.*Space\b|.*Page\b|BodyDescriptor|.*Compactor|.*GCTracer|.*PointersUpdating|.*RootVisitor|.*Marking|GlobalHandles::.*(Weak|Process|Iterate))|^std::.*MemoryChunk/;
const COMPILER = /^v8::internal::(compiler|maglev|baseline|turboshaft|wasm)::|Compil/;
const OPENSSL =
  /^(_?aesni|aes_|AES_|gcm_|ghash|_?gcm|EVP_|evp_|OPENSSL_|ossl_|CRYPTO_|ERR_|OBJ_|SHA|sha\d|HMAC|hmac_|chacha|ChaCha|poly1305|Poly1305|RAND_|rand_|drbg|BN_|bn_|EC_|ec_|int_ctx|OSSL_|ASN1_|x25519|ed25519|_x86_64|CRYPTO)/;

/** The category of one sampled function. */
export function categoryOf(f: Sampled): Category {
  const { dso, sym } = f;
  if (dso.includes('kernel')) return 'kernel';
  if (sym.startsWith('JS:') || sym.startsWith('LazyCompile:') || sym.startsWith('Function:')) {
    return / node:/.test(sym)
      ? "JS of Node's own modules (node:crypto, node:buffer…)"
      : CATEGORIES[0];
  }
  if (GC.test(sym)) return 'garbage collector';
  if (COMPILER.test(sym)) return 'optimising compiler';
  if (OPENSSL.test(sym)) return 'OpenSSL';
  if (dso.startsWith('libc') || dso.startsWith('libstdc++') || dso.startsWith('libm')) {
    return 'libc (malloc, free, memcpy, strcmp…)';
  }
  if (sym.startsWith('Builtins_') || sym.startsWith('v8::') || dso.startsWith('perf-')) {
    return 'V8 builtins and runtime';
  }
  if (/^(node::|uv_|simdutf|llhttp|non-virtual thunk to node::)/.test(sym)) {
    return 'Node C++ (crypto bindings, BaseObject, simdutf…)';
  }
  return 'other';
}

/**
 * The functions of several `perf.data` files together (the rounds of one
 * case), samples added up by function.
 */
export function merged(files: string[]): Sampled[] {
  const all = new Map<string, Sampled>();
  for (const f of files.flatMap(functions)) {
    const k = nameOf(f);
    const had = all.get(k);
    all.set(k, had ? { ...had, samples: had.samples + f.samples } : f);
  }
  return [...all.values()];
}

/** Samples per category. */
export function byCategory(fns: Sampled[]): Map<Category, number> {
  const m = new Map<Category, number>(CATEGORIES.map((c) => [c, 0]));
  for (const f of fns) {
    const c = categoryOf(f);
    m.set(c, (m.get(c) ?? 0) + f.samples);
  }
  return m;
}

/** All the samples of `fns`. */
export const samplesOf = (fns: Sampled[]): number => fns.reduce((s, f) => s + f.samples, 0);

/**
 * One row per category that has samples, in {@link CATEGORIES}' order, its
 * samples times `scale` (a time per call or per MiB) in `unit`, indented
 * under the total row the caller puts before them.
 */
export function categoryRows(group: string, fns: Sampled[], scale: number, unit: string): Row[] {
  return [...byCategory(fns)]
    .filter(([, n]) => n > 0)
    .map(([c, n]) => ({ group, name: `  ${c}`, value: n * scale, unit }));
}

/** A function's name and binary, as printed and as the key that adds up its samples. */
const nameOf = (f: Sampled): string => `${f.sym} (${f.dso})`;

/** Each function's samples times `scale` (a time per call or per MiB), by {@link nameOf}. */
export const perFunction = (fns: Sampled[], scale: number): Map<string, number> =>
  new Map(fns.map((f) => [nameOf(f), f.samples * scale]));

/**
 * Print the `n` functions of `fns` most above `base` (both from
 * {@link perFunction}), under `title`.
 */
export function printMostAbove(
  title: string,
  fns: Map<string, number>,
  base: Map<string, number>,
  n: number,
): void {
  const more = [...new Set([...fns.keys(), ...base.keys()])]
    .map((k) => [k, (fns.get(k) ?? 0) - (base.get(k) ?? 0)] as const)
    .sort((x, y) => y[1] - x[1])
    .slice(0, n);
  console.log(`\n${title}`);
  for (const [k, d] of more) console.log(`  ${d.toFixed(3).padStart(7)}  ${k}`);
}
