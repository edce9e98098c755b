/**
 * Metrics cost over HTTP: encrypt of 64 bytes over keep-alive loopback
 * HTTP/1.1 through `createHandler`, with and without metrics:
 *
 * - metrics off (the baseline): no `metrics` anywhere;
 * - metrics on: a `PrometheusMetrics` on the handler (request histogram by
 *   route pattern), the engine (crypto operations, key cache) and the
 *   storage (`instrumentStorage`), and a scrape of `GET /v1/sys/metrics`
 *   every second meanwhile, as Prometheus would.
 *
 * Target (issue #19: metrics-on costs little): the server's CPU time per
 * request with metrics off ÷ with metrics on ≥ 0.9 (on a shared host CPU per
 * request is steadier than requests/s, also printed). Each server runs in a
 * child process of its own (as http.bench.ts), the load client here; rounds
 * alternate and each ratio is taken within a round (as audit.bench.ts).
 * Before timing, the metrics are checked: the encrypts are counted by route
 * pattern and key type.
 *
 * `npx tsx bench/metrics.bench.ts [--quick]`, or `metricsBench({ quick })` from a runner.
 */
import { Agent, createServer } from 'node:http';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { instrumentStorage, MemoryStorage, Transit } from 'transitkit';
import { AclPolicyStore, createHandler, TokenStore } from 'transitkit/http';
import { PrometheusMetrics } from 'transitkit/http/node';
import type { Row } from './harness.js';
import { load, send, serveTargets, startEach, type LoadTarget as Target } from './http-client.js';
import { upperMedian } from './stats.js';

const PATH = '/v1/transit/encrypt/bench';

/** A handler on its own store, with or without metrics; its root token. */
async function handler(on: boolean) {
  const metrics = on ? new PrometheusMetrics() : undefined;
  const storage = metrics
    ? instrumentStorage(new MemoryStorage(), metrics, 'inmem')
    : new MemoryStorage();
  const tokens = new TokenStore({ storage });
  const root = await tokens.createRoot();
  const transit = new Transit({ storage, autoRotate: false, ...(metrics ? { metrics } : {}) });
  await transit.createKey('bench');
  const services = { transit, tokens, policies: new AclPolicyStore({ storage }) };
  return { handler: createHandler(services, metrics ? { metrics } : {}), root, metrics };
}

/**
 * The same encrypt through `dispatch` in this process (no sockets), metrics
 * off vs on: CPU time per request (`process.cpuUsage`, steadier than wall
 * time on a shared host), rounds alternating, the ratio taken per round.
 */
async function dispatchRows(quick: boolean): Promise<Row[]> {
  const body = JSON.stringify({ plaintext: Buffer.alloc(64, 7).toString('base64') });
  const [off, on] = [await handler(false), await handler(true)];
  const call = async (h: typeof off) => {
    const r = await h.handler.dispatch({
      method: 'POST',
      url: PATH,
      headers: (n) => (n === 'x-vault-token' ? h.root : undefined),
      body: async () => body,
    });
    if (r?.status !== 200) throw new Error(`dispatch: ${r?.status} ${r?.body}`);
  };
  // Correctness first: the request is recorded by route pattern.
  await call(on);
  const text = (await on.metrics?.prometheus()) ?? '';
  if (!text.includes('route="/transit/encrypt/:name",method="POST",status="200"')) {
    throw new Error('metrics on: the encrypt was not recorded');
  }
  const cpuPerCall = async (h: typeof off, ms: number) => {
    const end = performance.now() + ms;
    const before = process.cpuUsage();
    let n = 0;
    while (performance.now() < end) {
      await call(h);
      n++;
    }
    const { user, system } = process.cpuUsage(before);
    return (user + system) / n;
  };
  for (const h of [off, on]) await cpuPerCall(h, quick ? 20 : 300); // warm-up
  const cpu = { off: [] as number[], on: [] as number[] };
  const rounds = quick ? 2 : 30;
  for (let round = 0; round < rounds; round++) {
    for (const k of round % 2 ? (['on', 'off'] as const) : (['off', 'on'] as const)) {
      cpu[k].push(await cpuPerCall(k === 'on' ? on : off, quick ? 20 : 100));
    }
  }
  const ratios = cpu.on.map((x, i) => (cpu.off[i] ?? Number.NaN) / x);
  return [
    {
      group: 'dispatch encrypt 64 B, metrics (in-process)',
      name: 'metrics on (CPU/req)',
      value: upperMedian(cpu.on),
      unit: 'µs',
      ratio: upperMedian(ratios),
      range: [Math.min(...ratios), Math.max(...ratios)],
      baseline: `metrics off (${upperMedian(cpu.off).toFixed(1)} µs/req): its CPU/req ÷ this`,
      target: { min: 0.9 },
    },
  ];
}

/** One server on its own store, with or without metrics. */
async function server(on: boolean) {
  const { handler: h, root } = await handler(on);
  const s = createServer(h.node);
  s.keepAliveTimeout = 120_000;
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const a = s.address();
  return { port: typeof a === 'object' && a ? a.port : 0, token: root };
}

/** A child process: the server with metrics `which`, its port. */
async function serve(which: 'off' | 'on'): Promise<void> {
  const s = await server(which === 'on');
  serveTargets([{ name: `metrics ${which}`, port: s.port, token: s.token }], () => process.exit(0));
}

/** Scrapes `GET /v1/sys/metrics` once a second until `end`, as Prometheus would. */
function scraper(agent: Agent, t: Target): (end: number) => Promise<void> {
  return async (end) => {
    while (performance.now() < end) {
      const r = await send(agent, t, 'GET', '/v1/sys/metrics?format=prometheus');
      if (r.status !== 200) throw new Error(`scrape: ${r.status}`);
      await new Promise((res) => setTimeout(res, 1000));
    }
  };
}

/** Requests/s for `ms` with `concurrency` in flight (and a scrape a second on metrics on). */
function loadOf(agent: Agent, t: Target, body: string, ms: number, concurrency: number) {
  const alongside = t.name === 'metrics on' ? scraper(agent, t) : undefined;
  return load(agent, t, PATH, body, ms, concurrency, alongside);
}

/** Run the metrics benchmark: requests/s with metrics on, as a ratio of metrics off. */
export async function metricsBench({ quick = false }: { quick?: boolean } = {}): Promise<Row[]> {
  // One process per server (see bench/http.bench.ts), CPU time by process.
  const servers = await startEach(fileURLToPath(import.meta.url), [SERVER_FLAG], ['off', 'on']);
  const { targets } = servers;
  const agents = new Map(targets.map((t) => [t, new Agent({ keepAlive: true, maxSockets: 64 })]));
  const body = JSON.stringify({ plaintext: Buffer.alloc(64, 7).toString('base64') });
  try {
    const concurrency = quick ? 8 : 32;
    const ms = quick ? 300 : 2000;
    const rounds = quick ? 1 : 7;
    for (const t of targets)
      await loadOf(agents.get(t) as Agent, t, body, quick ? 100 : 500, concurrency);
    // Correctness first: the encrypts are counted by route pattern and key type.
    const on = targets[1] as Target;
    const scrape = await send(
      agents.get(on) as Agent,
      on,
      'GET',
      '/v1/sys/metrics?format=prometheus',
    );
    for (const want of [
      'transitkit_http_request_duration_seconds_count{route="/transit/encrypt/:name",method="POST",status="200"}',
      'transitkit_crypto_operations_total{operation="encrypt",key_type="aes256-gcm96"}',
    ]) {
      if (!scrape.body.includes(want)) throw new Error(`metrics: ${want} missing`);
    }
    const rps = new Map<string, number[]>(targets.map((t) => [t.name, []]));
    const cpu = new Map<string, number[]>(targets.map((t) => [t.name, []]));
    for (let round = 0; round < rounds; round++) {
      for (const t of round % 2 ? [...targets].reverse() : targets) {
        const before = await servers.cpu(t);
        const r = await loadOf(agents.get(t) as Agent, t, body, ms, concurrency);
        rps.get(t.name)?.push(r.rps);
        cpu.get(t.name)?.push(((await servers.cpu(t)) - before) / r.done);
      }
    }
    const off = rps.get('metrics off') ?? [];
    const ratios = (rps.get('metrics on') ?? []).map((x, i) => x / (off[i] ?? Number.NaN));
    const offCpu = cpu.get('metrics off') ?? [];
    const cpuRatios = (cpu.get('metrics on') ?? []).map((x, i) => (offCpu[i] ?? Number.NaN) / x);
    return [
      ...(await dispatchRows(quick)),
      {
        group: 'http encrypt 64 B, metrics',
        name: 'metrics on (server CPU/req)',
        value: upperMedian(cpu.get('metrics on') ?? []),
        unit: 'µs',
        ratio: upperMedian(cpuRatios),
        range: [Math.min(...cpuRatios), Math.max(...cpuRatios)],
        baseline: `metrics off (${upperMedian(offCpu).toFixed(0)} µs/req): its CPU/req ÷ this`,
        target: { min: 0.9 },
      },
      {
        group: 'http encrypt 64 B, metrics',
        name: 'metrics on, scraped every second (req/s)',
        value: upperMedian(rps.get('metrics on') ?? []),
        unit: 'req/s',
        ratio: upperMedian(ratios),
        range: [Math.min(...ratios), Math.max(...ratios)],
        baseline: `metrics off (${upperMedian(off).toFixed(0)} req/s)`,
      },
    ];
  } finally {
    for (const a of agents.values()) a.destroy();
    await servers.stop();
  }
}

const SERVER_FLAG = '--metrics-bench-server';

if (process.argv[2] === SERVER_FLAG) {
  const which = process.argv[3];
  if (which !== 'off' && which !== 'on') throw new Error(`metrics bench: no server ${which}`);
  await serve(which);
} else if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const quick = process.argv.includes('--quick');
  const { printTable } = await import('./harness.js');
  console.log(
    `Metrics bench — node ${process.version}, keep-alive loopback${quick ? ' (quick)' : ''}`,
  );
  printTable(await metricsBench({ quick }));
}
