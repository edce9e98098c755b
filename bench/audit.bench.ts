/**
 * Audit cost over HTTP: encrypt of 64 bytes over keep-alive loopback HTTP/1.1
 * through `createHandler` with
 *
 * - no audit broker (the baseline);
 * - an audit broker with no device enabled (the idle check: one field read);
 * - one `file` device, every request and response entry written to a real
 *   file before the reply (group commit through the bounded buffer).
 *
 * Target (issue #19): with one file device, throughput ≥ 0.7× without
 * auditing. Each server runs in a child process of its own (as
 * http.bench.ts), the load client here;
 * rounds alternate and each ratio is taken within a round (as http.bench.ts).
 * After timing, the log is checked: two whole JSON lines per answered request.
 *
 * `npx tsx bench/audit.bench.ts [--quick]`, or `auditBench({ quick })` from a runner.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { AuditBroker, MemoryStorage, Transit } from 'transitkit';
import { AclPolicyStore, createHandler, TokenStore } from 'transitkit/http';
import { nodeAuditDevices } from 'transitkit/http/node';
import type { Row } from './harness.js';
import { load, serveTargets, startEach } from './http-client.js';

/** The test entry a device gets when it is enabled (src/audit/sys-audit.ts). */
const PROBE = 'sys/audit/test';

import { upperMedian } from './stats.js';

const PATH = '/v1/transit/encrypt/bench';

/** One handler on its own store: `audit` none, idle (a broker, no device) or a file device. */
async function server(audit: 'none' | 'idle' | 'file', logFile: string) {
  const storage = new MemoryStorage();
  const tokens = new TokenStore({ storage });
  const root = await tokens.createRoot();
  const transit = new Transit({ storage, autoRotate: false });
  await transit.createKey('bench');
  const services = { transit, tokens, policies: new AclPolicyStore({ storage }) };
  let broker: AuditBroker | undefined;
  if (audit !== 'none') {
    broker = await AuditBroker.open({ storage, devices: nodeAuditDevices() });
    if (audit === 'file')
      await broker.enable('file', { type: 'file', options: { file_path: logFile } });
  }
  const s = createServer(createHandler(broker ? { ...services, audit: broker } : services).node);
  s.keepAliveTimeout = 120_000;
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const a = s.address();
  return { port: typeof a === 'object' && a ? a.port : 0, token: root, broker };
}

const SERVERS = {
  none: 'no audit broker',
  idle: 'audit broker, no device',
  file: 'one file device',
} as const;

/** A child process: the server of `which`, its port, CPU on demand. */
async function serve(logFile: string, which: keyof typeof SERVERS): Promise<void> {
  const s = await server(which, logFile);
  serveTargets([{ name: SERVERS[which], port: s.port, token: s.token }], () => {
    void (s.broker?.close() ?? Promise.resolve()).then(() => process.exit(0));
  });
}

/** Run the audit benchmark; rows carry requests/s and CPU/request against no broker. */
export async function auditBench({ quick = false }: { quick?: boolean } = {}): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'transitkit-audit-bench-'));
  const logFile = join(dir, 'audit.log');
  // One process per server (see bench/http.bench.ts), CPU time by process.
  const servers = await startEach(
    fileURLToPath(import.meta.url),
    [SERVER_FLAG, logFile],
    Object.keys(SERVERS),
  );
  const { targets } = servers;
  const agents = new Map(targets.map((t) => [t, new Agent({ keepAlive: true, maxSockets: 64 })]));
  const body = JSON.stringify({ plaintext: Buffer.alloc(64, 7).toString('base64') });
  let fileRequests = 0;
  try {
    const concurrency = quick ? 8 : 32;
    // Many short rounds: on a shared machine a ratio taken within a short round is steadier.
    const ms = quick ? 300 : 600;
    const rounds = quick ? 1 : 15;
    for (const t of targets) {
      const r = await load(agents.get(t) as Agent, t, PATH, body, quick ? 100 : 500, concurrency);
      if (t.name === 'one file device') fileRequests += r.done;
    }
    const rps = new Map<string, number[]>(targets.map((t) => [t.name, []]));
    const cpu = new Map<string, number[]>(targets.map((t) => [t.name, []]));
    for (let round = 0; round < rounds; round++) {
      for (const t of round % 2 ? [...targets].reverse() : targets) {
        const before = await servers.cpu(t);
        const r = await load(agents.get(t) as Agent, t, PATH, body, ms, concurrency);
        if (t.name === 'one file device') fileRequests += r.done;
        rps.get(t.name)?.push(r.rps);
        cpu.get(t.name)?.push(((await servers.cpu(t)) - before) / r.done);
      }
    }
    // Correctness: two whole entries per answered request on the file device
    // (besides the test entry written when it was enabled).
    const lines = readFileSync(logFile, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .filter((l) => (JSON.parse(l) as { request: { path: string } }).request.path !== PROBE);
    if (lines.length !== 2 * fileRequests) {
      throw new Error(`audit log has ${lines.length} lines for ${fileRequests} requests`);
    }
    const base = targets[0]?.name ?? '';
    const rows: Row[] = [];
    for (const t of targets.slice(1)) {
      const ratios = (rps.get(t.name) ?? []).map((x, i) => x / (rps.get(base)?.[i] ?? Number.NaN));
      const cpuRatios = (cpu.get(t.name) ?? []).map(
        (x, i) => (cpu.get(base)?.[i] ?? Number.NaN) / x,
      );
      const target = t.name === 'one file device' ? { min: 0.7 } : { min: 0.95 };
      rows.push({
        group: 'http encrypt 64 B, audit',
        name: `${t.name} (req/s)`,
        value: upperMedian(rps.get(t.name) ?? []),
        unit: 'req/s',
        ratio: upperMedian(ratios),
        range: [Math.min(...ratios), Math.max(...ratios)],
        baseline: `${base} (${upperMedian(rps.get(base) ?? []).toFixed(0)} req/s)`,
        target,
      });
      rows.push({
        group: 'http encrypt 64 B, audit',
        name: `${t.name} (server CPU/req)`,
        value: upperMedian(cpu.get(t.name) ?? []),
        unit: 'µs',
        ratio: upperMedian(cpuRatios),
        range: [Math.min(...cpuRatios), Math.max(...cpuRatios)],
        baseline: `${base}: its CPU/req ÷ this`,
      });
    }
    return rows;
  } finally {
    for (const a of agents.values()) a.destroy();
    await servers.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const SERVER_FLAG = '--audit-bench-server';

if (process.argv[2] === SERVER_FLAG) {
  const which = process.argv[4] ?? '';
  if (!(which in SERVERS)) throw new Error(`audit bench: no server ${which}`);
  await serve(process.argv[3] ?? '', which as keyof typeof SERVERS);
} else if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const quick = process.argv.includes('--quick');
  const { printTable } = await import('./harness.js');
  console.log(
    `Audit bench — node ${process.version}, keep-alive loopback${quick ? ' (quick)' : ''}`,
  );
  printTable(await auditBench({ quick }));
}
