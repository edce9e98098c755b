/**
 * HTTP streaming (issue 17): throughput of `POST /v1/transit/encrypt-stream`
 * over loopback, and the server's memory while it streams.
 *
 * - baseline: a bare `node:http` server that pipes the request body through
 *   AES-256-GCM (node:crypto, one random nonce, the tag appended) into the
 *   response — nothing else;
 * - for information, the same bare server sealing in 16 KiB chunks with a
 *   fresh GCM context each (what any chunked AEAD format needs, Cobblestone
 *   included), and transitkit's server CPU against it: the gap to the
 *   baseline that chunking alone accounts for;
 * - transitkit: `createServer` of `transitkit/http/node` (what `transitkit
 *   server` runs: the LIST-capable socket, token, ACL, TKS1 envelope with
 *   Cobblestone-256 chunks); encrypt-stream, then decrypt-stream of the
 *   same size for information;
 * - memory: one pipeline through the transitkit server in both directions at
 *   once (client → encrypt-stream → decrypt-stream → client, the envelope
 *   never stored), the server process's RSS sampled every 20 ms; the figure
 *   is the peak minus the RSS before the pipeline (target < 96 MiB).
 *
 * The servers share one child process (`./stream-http-server.ts`; unlike
 * http.bench.ts, where each server has its own: per 16 KiB chunk the shared
 * type feedback is noise, and in processes of their own the servers' CPU per
 * MiB went bimodal — in some fresh processes, the bare chunked
 * server's as well as transitkit's, a stream ran at ≈ 1.5× the CPU with a
 * full collection every ≈ 50 ms, and more of them after 12 s idle), and
 * the client runs in this one; the same
 * bytes (a random 4 MiB block, repeated) go to every server in short
 * alternating rounds, and each ratio is taken within a round. Server CPU
 * time per MiB (bare ÷ transitkit) is also shown: on a loaded machine it is
 * the steadier figure of the server's own cost. Correctness first: the
 * bare server's output is opened with node:crypto and transitkit's with
 * decrypt-stream before anything is timed.
 *
 * `npm run bench:stream-http [-- --quick --gib N --perf]` (default
 * 1 GiB per server in 8 alternating rounds, and a 1 GiB pipeline; `--quick`:
 * 64 MiB in 2 rounds, a 256 MiB pipeline; `--perf`: Linux perf samples the
 * server process during each round, and each server's time per MiB is
 * printed by category, as `bench:call-time` does for calls), or
 * `streamHttpBench({ quick })` from bench/run.ts (`--only=stream-http`).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { printTable, type Row } from './harness.js';
import {
  categoryRows,
  merged,
  perFunction,
  perfWorks,
  printMostAbove,
  sampled,
  samplesOf,
} from './perf-sample.js';
import { median } from './stats.js';
import { check, expectedDigest, MiB, pipeline, through } from './stream-http-client.js';
import type { Ports } from './stream-http-server.js';

/** The ratio encrypt-stream must reach against the bare server (issue 17). */
const THROUGHPUT_TARGET = 0.7;
/** The server's RSS growth budget while streaming both ways (issue 17). */
const RSS_BUDGET = 96 * MiB;

/** Ask the server process something; resolves with the field of its answer. */
function ask(child: ChildProcess, what: 'rss' | 'peak' | 'cpu'): Promise<number> {
  return new Promise((resolve) => {
    const on = (m: unknown) => {
      if (typeof m === 'object' && m !== null && what in m) {
        child.off('message', on);
        resolve((m as Record<string, number>)[what] as number);
      }
    };
    child.on('message', on);
    child.send(what);
  });
}

/**
 * Run the HTTP streaming benchmark.
 * @param options.quick - a short smoke run (CI): 64 MiB streams, one round
 * @param options.bytes - bytes per timed stream (default 1 GiB)
 */
export async function streamHttpBench({
  quick = false,
  bytes = quick ? 64 * MiB : 1024 * MiB,
  perf = false,
}: {
  quick?: boolean;
  bytes?: number;
  perf?: boolean;
} = {}): Promise<Row[]> {
  const key = randomBytes(32);
  const profile = perf ? mkdtempSync(join(tmpdir(), 'tk-perf-http-')) : undefined;
  const server = fileURLToPath(new URL('./stream-http-server.ts', import.meta.url));
  const child = fork(server, [key.toString('base64')], {
    execArgv: [
      '--import',
      'tsx',
      ...(process.env.BENCH_SERVER_ARGS ?? '').split(' ').filter(Boolean),
      // --perf: V8 names its JIT code for perf (/tmp/perf-<pid>.map).
      ...(profile ? ['--perf-basic-prof', `--logfile=${join(profile, 'v8.log')}`] : []),
    ],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const p = await new Promise<Ports>((resolve, reject) => {
    child.once('message', (m) => resolve(m as Ports));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`bench server exited (${code})`)));
  });
  try {
    await check(p, key);
    const warm = Math.min(bytes, 64 * MiB);
    await through(p.bare, '/', '', warm);
    await through(p.kit, '/v1/transit/encrypt-stream/bench', p.token, warm);
    // Short alternating rounds (1 GiB per server in all): a burst of load on
    // a shared machine then hits every server alike, and each ratio is taken
    // within its round. Server CPU per MiB is the server-side cost alone.
    const rounds = quick ? 2 : 8;
    const per = Math.ceil(bytes / rounds);
    const ENC = '/v1/transit/encrypt-stream/bench';
    type Which = 'bare' | 'chunked' | 'kit' | 'node';
    const runs: Record<Which, () => Promise<number>> = {
      bare: async () => (await through(p.bare, '/', '', per)).mibps,
      chunked: async () => (await through(p.chunked, '/', '', per)).mibps,
      kit: async () => (await through(p.kit, ENC, p.token, per)).mibps,
      node: async () => (await through(p.node, ENC, p.token, per)).mibps,
    };
    const got: Record<Which, number[]> = { bare: [], chunked: [], kit: [], node: [] };
    const cpu: Record<Which, number[]> = { bare: [], chunked: [], kit: [], node: [] };
    const files: Record<Which, string[]> = { bare: [], chunked: [], kit: [], node: [] };
    for (let i = 0; i < rounds; i++) {
      const order = ['bare', 'chunked', 'kit', 'node'] as const;
      for (const which of i % 2 ? [...order].reverse() : order) {
        const round = async () => {
          const before = await ask(child, 'cpu');
          got[which].push(await runs[which]());
          cpu[which].push(((await ask(child, 'cpu')) - before) / (per / MiB));
        };
        if (profile === undefined) await round();
        else {
          const file = join(profile, `${which}-${i}.perf.data`);
          files[which].push(file);
          await sampled(child.pid ?? 0, file, PERF_HZ, round);
        }
      }
    }
    if (profile !== undefined) printProfile(files, rounds * per);
    const { bare, chunked, kit, node } = got;
    const chunkedRatios = chunked.map((k, i) => k / (bare[i] as number));
    const ratios = kit.map((k, i) => k / (bare[i] as number));
    const nodeRatios = node.map((k, i) => k / (bare[i] as number));
    const cpuRatios = (w: Which, vs: Which = 'bare') =>
      cpu[w].map((c, i) => (cpu[vs][i] as number) / c);
    // Memory: both directions at once through one server, RSS before vs peak.
    const pipeBytes = quick ? 256 * MiB : bytes;
    const before = await ask(child, 'rss');
    const both = await pipeline(p, pipeBytes);
    const peak = await ask(child, 'peak');
    if (both.digest !== expectedDigest(pipeBytes)) throw new Error('pipeline: digest differs');
    const growth = Math.max(0, peak - before);
    const size = `${bytes >= 1024 * MiB ? `${bytes / 1024 / MiB} GiB` : `${bytes / MiB} MiB`}`;
    const group = `http stream ${size}`;
    const bareName = 'bare node:http → AES-256-GCM';
    return [
      { group, name: `${bareName} (MiB/s)`, value: median(bare), unit: 'MiB/s' },
      {
        group,
        name: 'bare node:http, a fresh GCM context per 16 KiB (MiB/s)',
        value: median(chunked),
        unit: 'MiB/s',
        ratio: median(chunkedRatios),
        range: [Math.min(...chunkedRatios), Math.max(...chunkedRatios)],
        baseline: `${bareName} (what chunking alone costs)`,
      },
      {
        group,
        name: 'transitkit createServer encrypt-stream (MiB/s)',
        value: median(kit),
        unit: 'MiB/s',
        ratio: median(ratios),
        range: [Math.min(...ratios), Math.max(...ratios)],
        baseline: bareName,
        target: { min: THROUGHPUT_TARGET },
      },
      {
        group,
        name: 'transitkit handler.node on node:http (MiB/s)',
        value: median(node),
        unit: 'MiB/s',
        ratio: median(nodeRatios),
        range: [Math.min(...nodeRatios), Math.max(...nodeRatios)],
        baseline: bareName,
        target: { min: THROUGHPUT_TARGET },
      },
      ...(['chunked', 'kit', 'node'] as const).map((w) => {
        const r = cpuRatios(w);
        const name = { chunked: 'bare chunked', kit: 'createServer', node: 'handler.node' }[w];
        return {
          group,
          name: `${name} server CPU per MiB`,
          value: median(cpu[w]) / 1000,
          unit: 'ms',
          ratio: median(r),
          range: [Math.min(...r), Math.max(...r)] as [number, number],
          baseline: `bare: ${(median(cpu.bare) / 1000).toFixed(2)} ms/MiB (ratio bare ÷ this)`,
        };
      }),
      ...(['kit', 'node'] as const).map((w) => {
        const r = cpuRatios(w, 'chunked');
        return {
          group,
          name: `${w === 'kit' ? 'createServer' : 'handler.node'} server CPU vs bare chunked`,
          value: median(cpu[w]) / 1000,
          unit: 'ms',
          ratio: median(r),
          range: [Math.min(...r), Math.max(...r)] as [number, number],
          baseline: `bare chunked: ${(median(cpu.chunked) / 1000).toFixed(2)} ms/MiB (ratio it ÷ this)`,
        };
      }),
      {
        group,
        name: `encrypt→decrypt pipeline, ${pipeBytes / MiB} MiB (MiB/s)`,
        value: both.mibps,
        unit: 'MiB/s',
      },
      {
        group,
        name: 'server RSS growth, both directions at once',
        value: growth / MiB,
        unit: 'MiB',
        ratio: growth / RSS_BUDGET,
        baseline: `${RSS_BUDGET / MiB} MiB budget`,
        target: { max: 1 },
      },
    ];
  } finally {
    child.send('exit');
    if (profile !== undefined) {
      rmSync(profile, { recursive: true, force: true });
      rmSync(`/tmp/perf-${child.pid}.map`, { force: true });
    }
  }
}

/** Samples a second of the server process under `--perf`. */
const PERF_HZ = 2_000;

/**
 * `--perf`: each server's time per MiB by category, over its rounds, and the
 * functions of `createServer` most above the bare chunked server's.
 */
function printProfile(files: Record<string, string[]>, bytes: number): void {
  const msPerSample = 1000 / PERF_HZ / (bytes / MiB);
  const fns = Object.fromEntries(Object.entries(files).map(([w, f]) => [w, merged(f)]));
  const names: Record<string, string> = {
    bare: 'bare',
    chunked: 'bare chunked',
    kit: 'createServer',
    node: 'handler.node',
  };
  const rows: Row[] = Object.entries(fns).flatMap(([w, f]) => {
    const group = `server time by perf, ${names[w]}`;
    return [
      { group, name: 'per MiB', value: samplesOf(f) * msPerSample, unit: 'ms' },
      ...categoryRows(group, f, msPerSample, 'ms'),
    ];
  });
  printTable(rows);
  printMostAbove(
    'createServer: the 15 functions most above the bare chunked server (ms per MiB)',
    perFunction(fns.kit ?? [], msPerSample),
    perFunction(fns.chunked ?? [], msPerSample),
    15,
  );
}

if (fileURLToPath(import.meta.url) === process.argv[1]) {
  const gib = process.argv.indexOf('--gib');
  const quick = process.argv.includes('--quick');
  const bytes = gib > 0 ? Number(process.argv[gib + 1]) * 1024 * MiB : undefined;
  const perf = process.argv.includes('--perf');
  if (perf && !perfWorks()) throw new Error('--perf needs Linux perf (perf record -e cpu-clock)');
  printTable(await streamHttpBench({ quick, perf, ...(bytes ? { bytes } : {}) }));
}
