/**
 * Throughput under load (issue 18): encrypt of 64 bytes over HTTP with
 * `http.createServer(handler.node)` in 4 worker processes (`node:cluster`,
 * one shared port) on one real redis-server, against the same with 1 worker.
 * Every worker has its own engine, token store and policy store on that
 * Redis (keys, tokens and policies read from it, caches kept coherent by its
 * change feed), as a horizontally scaled deployment would.
 *
 * The load comes from autocannon (64 keep-alive clients) in this process,
 * which is also the cluster's primary (it hands connections to the workers).
 * Rows: requests/s with 4 workers and with 1 (the ratio 4 ÷ 1 is the
 * scaling), and p50/p99 latency with 4. Rounds alternate 1 and 4 workers;
 * the median round is kept.
 *
 * What "linear" means here: 4 workers can at best use the cores there are,
 * so on a machine with C cores the ceiling is min(4, C)× — and the load
 * generator and redis-server run on the same cores, so the ceiling is lower
 * still. The row prints C and the ratio against min(4, C).
 *
 * `npx tsx bench/load.bench.ts [--quick]`, or `loadBench({ quick })` from the
 * runner. Needs redis-server on PATH (the section is skipped, with a note, without it).
 * @module
 */
import cluster, { type Worker } from 'node:cluster';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import os from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { Transit } from 'transitkit';
import { RedisStorage } from 'transitkit/adapters/redis';
import { AclPolicyStore, createHandler, TokenStore } from 'transitkit/http';
import { REDIS_SERVER, RedisServer } from '../test/helpers/redis-server.js';
import type { Row } from './harness.js';
import { upperMedian } from './stats.js';

const WORKER_FLAG = '--load-bench-worker';
const KEY = 'bench';
const G = 'throughput under load';

/** A worker: the handler on Redis, listening on the shared port; reports when ready. */
async function work(redisUrl: string, port: number): Promise<void> {
  const storage = await RedisStorage.connect(redisUrl);
  const transit = new Transit({ storage, autoRotate: false });
  const tokens = new TokenStore({ storage });
  const policies = new AclPolicyStore({ storage });
  const handler = createHandler({ transit, tokens, policies });
  const server = createServer(handler.node);
  server.keepAliveTimeout = 120_000;
  server.listen(port, '127.0.0.1', () => process.send?.('ready'));
  process.on('message', async (m) => {
    if (m !== 'stop') return;
    server.closeAllConnections();
    server.close();
    await transit.close();
    await tokens.close();
    await policies.close();
    await storage.close();
    process.exit(0);
  });
}

/** Fork one worker and wait until it listens. */
function fork(redisUrl: string, port: number): Promise<Worker> {
  cluster.setupPrimary({
    exec: fileURLToPath(import.meta.url),
    args: [WORKER_FLAG, redisUrl, String(port)],
    execArgv: ['--import', 'tsx'],
    silent: false,
  });
  const w = cluster.fork();
  return new Promise((resolve, reject) => {
    w.once('message', (m) => (m === 'ready' ? resolve(w) : reject(new Error(String(m)))));
    w.once('exit', (code) => reject(new Error(`load worker exited (${code})`)));
  });
}

async function stop(w: Worker): Promise<void> {
  const exited = new Promise((r) => w.once('exit', r));
  w.send('stop');
  await exited;
}

/** Requests/s and latency of the cluster as it stands. */
async function measure(
  port: number,
  token: string,
  body: string,
  seconds: number,
): Promise<{ rps: number; p50: number; p99: number }> {
  const r = await autocannon({
    url: `http://127.0.0.1:${port}/v1/transit/encrypt/${KEY}`,
    method: 'POST',
    headers: { 'x-vault-token': token, 'content-type': 'application/json' },
    body,
    connections: 64,
    duration: seconds,
  });
  if (r.errors > 0 || r.non2xx > 0) {
    throw new Error(`load: ${r.errors} errors, ${r.non2xx} non-2xx answers`);
  }
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99 };
}

/**
 * Run the section; no rows (a note on stderr) without redis-server.
 * @param options.quick - a short smoke run (CI), numbers mean little
 */
export async function loadBench({ quick = false }: { quick?: boolean } = {}): Promise<Row[]> {
  if (!REDIS_SERVER) {
    console.error('  load: skipped (redis-server not on PATH)');
    return [];
  }
  const redis = await RedisServer.start();
  const workers: Worker[] = [];
  try {
    // The key and a root token, made once on the shared store.
    const setup = await RedisStorage.connect(redis.url);
    const root = await new TokenStore({ storage: setup }).createRoot();
    const t = new Transit({ storage: setup, autoRotate: false });
    await t.createKey(KEY);
    await t.close();
    await setup.close();

    const port = await freePort();
    const body = JSON.stringify({ plaintext: randomBytes(64).toString('base64') });
    const seconds = quick ? 1 : 5;
    const rounds = quick ? 1 : 3;
    workers.push(await fork(redis.url, port));
    if (!quick) await measure(port, root, body, 2); // warm-up (JIT, caches)
    const one: number[] = [];
    const four: { rps: number; p50: number; p99: number }[] = [];
    for (let round = 0; round < rounds; round++) {
      while (workers.length > 1) await stop(workers.pop() as Worker);
      one.push((await measure(port, root, body, seconds)).rps);
      // The other three start together (each loads the code under tsx).
      const more = Array.from({ length: 4 - workers.length }, () => fork(redis.url, port));
      workers.push(...(await Promise.all(more)));
      await measure(port, root, body, 1); // the new workers warm up
      four.push(await measure(port, root, body, seconds));
    }
    const cores = os.availableParallelism?.() ?? os.cpus().length;
    const rps4 = upperMedian(four.map((f) => f.rps));
    const rps1 = upperMedian(one);
    const ratios = four.map((f, i) => f.rps / (one[i] ?? Number.NaN));
    const linear = Math.min(4, cores);
    const mid = four.find((f) => f.rps === rps4) ?? four[0];
    return [
      { group: G, name: '1 worker (req/s)', value: rps1, unit: 'req/s' },
      {
        group: G,
        name: '4 workers (req/s)',
        value: rps4,
        unit: 'req/s',
        ratio: upperMedian(ratios),
        range: [Math.min(...ratios), Math.max(...ratios)],
        baseline: `1 worker; linear on ${cores} cores = ${linear}×`,
      },
      {
        group: G,
        name: '4 workers, share of linear',
        value: upperMedian(ratios) / linear,
        unit: '×',
        baseline: `(4 ÷ 1) ÷ ${linear}; client and redis share the cores`,
      },
      {
        group: G,
        name: `4 workers, 64 clients: p50 ${mid?.p50} ms, p99`,
        value: mid?.p99 ?? Number.NaN,
        unit: 'ms',
      },
    ];
  } finally {
    for (const w of workers) await stop(w).catch(() => undefined);
    await redis.destroy();
  }
}

/** A free TCP port (bound and released). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      const p = typeof a === 'object' && a ? a.port : 0;
      s.close(() => resolve(p));
    });
  });
}

if (cluster.isWorker && process.argv[2] === WORKER_FLAG) {
  await work(process.argv[3] ?? '', Number(process.argv[4]));
} else if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const quick = process.argv.includes('--quick');
  const { printTable } = await import('./harness.js');
  console.log(`Load bench — node ${process.version}${quick ? ' (quick)' : ''}`);
  printTable(await loadBench({ quick }));
}
