/**
 * The HTTP servers' own work per request, in instructions (issue 18): the
 * servers of http.bench.ts (a bare node:http server sealing with AES-GCM,
 * `handler.node`, `createServer`) run one after another, each in a process
 * of its own under valgrind's callgrind, which counts instructions only
 * while the server is under load, one dump per server. The counts do not
 * depend on what else the machine runs, where timed ratios here move by
 * 0.15 from run to run. (With the three in one process, whichever
 * transitkit server is counted second runs code whose type feedback the
 * first one shaped, and costs 16–47 k instructions a request more: a
 * measure of the sharing, not of either server.)
 *
 * Each server gets `warm` requests first (uncounted: V8 optimises the hot
 * code meanwhile), then `count` counted ones, from one keep-alive client by
 * default (`--clients=N`: with several, how many requests one read or one
 * event-loop turn serves, and what the collector finds alive, depend on
 * timing, and the counts move by ≈ 10 % between runs). From
 * each dump: the total, and inclusive of their entry points, the optimising
 * compiler (V8 runs it on this thread under `--single-threaded`) and the
 * garbage collector. The compiler's late work is not the request's (it
 * varies with the warm-up), so the figure compared is the rest: instructions
 * per request without the compiler, garbage collection included, and its
 * ratio bare ÷ this (the direction of the bench's CPU ratios).
 *
 * Needs valgrind (`callgrind_control`, `callgrind_annotate`); about three
 * minutes. `npm run bench:instructions [-- --warm=N --count=N --clients=N --keep]`
 * (`--keep`: the dumps stay, one directory per server, for `callgrind_annotate`,
 * with V8's map of its JIT code).
 * @module
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { callgrindCommand, counted, perCall, V8_FIXED_SEEDS } from './callgrind.js';
import { printTable, type Row } from './harness.js';
import { SERVER_FLAG, SERVER_NAMES } from './http.bench.js';
import { type LoadTarget, load, startServers } from './http-client.js';

interface Target extends LoadTarget {
  path: string;
}

const arg = (name: string, fallback: number): number => {
  const a = process.argv.find((x) => x.startsWith(`--${name}=`));
  return a ? Number(a.slice(name.length + 3)) : fallback;
};

/** At least `count` requests from `clients` keep-alive clients; how many were answered. */
async function requests(
  agent: Agent,
  t: Target,
  body: string,
  count: number,
  clients: number,
): Promise<number> {
  let done = 0;
  // `load` runs for a time; in slices until `count` are answered.
  while (done < count) done += (await load(agent, t, t.path, body, 1_000, clients)).done;
  return done;
}

async function main(): Promise<void> {
  const warm = arg('warm', 30_000);
  const count = arg('count', 4_000);
  const clients = arg('clients', 1);
  const keep = process.argv.includes('--keep');
  const root = mkdtempSync(join(tmpdir(), 'tk-callgrind-'));
  const body = JSON.stringify({ plaintext: randomBytes(64).toString('base64') });
  const key = randomBytes(32).toString('base64');
  const measured: { t: Target; n: number; file: string }[] = [];
  // One server per process, as in http.bench.ts: in a shared process the
  // server measured second runs code the first made polymorphic.
  for (const [i] of SERVER_NAMES.entries()) {
    // A directory per process: each names its dumps from the same counter.
    const dir = join(root, String(i));
    mkdirSync(dir);
    const out = join(dir, 'callgrind.out');
    const servers = await startServers<Target>(
      fileURLToPath(new URL('./http.bench.ts', import.meta.url)),
      [SERVER_FLAG, key, String(i)],
      {
        command: callgrindCommand(out),
        // With --keep, V8 writes /tmp/perf-<pid>.map: names for the JIT's addresses in the dumps.
        nodeArgs: [
          '--single-threaded',
          ...V8_FIXED_SEEDS,
          ...(keep ? ['--perf-basic-prof', `--logfile=${join(dir, 'v8.log')}`] : []),
        ],
      },
    );
    try {
      const t = servers.targets[0] as Target;
      const agent = new Agent({ keepAlive: true, maxSockets: clients });
      await requests(agent, t, body, warm, clients);
      const { file, n } = await counted(dir, servers.pid, () =>
        requests(agent, t, body, count, clients),
      );
      agent.destroy();
      measured.push({ t, n, file });
      if (keep) console.log(`${t.name}: ${file}, JIT names in /tmp/perf-${servers.pid}.map`);
    } finally {
      await servers.stop();
    }
  }
  const rows: Row[] = [];
  let bare = 0;
  for (const { t, n, file } of measured) {
    const { own, gc, compile } = perCall(file, n);
    if (bare === 0) bare = own;
    const group = 'http encrypt 64 B, instructions';
    rows.push({
      group,
      name: `${t.name}: per request, without the compiler`,
      value: Math.round(own),
      unit: 'Ir',
      ratio: bare / own,
      baseline: `${measured[0]?.t.name}: its count ÷ this`,
    });
    rows.push({
      group,
      name: `${t.name}: of which garbage collection`,
      value: Math.round(gc),
      unit: 'Ir',
    });
    rows.push({
      group,
      name: `${t.name}: the compiler, not counted`,
      value: Math.round(compile),
      unit: 'Ir',
    });
  }
  if (!keep) rmSync(root, { recursive: true, force: true });
  printTable(rows);
}

await main();
