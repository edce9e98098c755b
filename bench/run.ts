/**
 * `npm run bench` — every figure of issue 8 with its ratio against its limit,
 * measured in the same run, in one table. `--quick` is a short smoke run for
 * CI that keeps every section working (its numbers mean little).
 *
 * Sections: encrypt/decrypt (transit.bench.ts), batch (batch.bench.ts),
 * HMAC and sign/verify (sign.bench.ts), ML-DSA sign/verify (ml-dsa.bench.ts),
 * HTTP (http.bench.ts), scale and memory (scale.bench.ts), cold start
 * (cold-start.bench.ts), throughput under load: 4 worker processes on one
 * Redis vs 1 (load.bench.ts), HTTP encrypt with metrics on vs off
 * (metrics.bench.ts), streams of large objects in process (stream.bench.ts),
 * HTTP encrypt with one file audit device vs none (audit.bench.ts), 1 GiB
 * through the HTTP encrypt-stream route vs a bare node:http AES-GCM pipe and
 * the server's RSS streaming both ways (stream-http.bench.ts).
 * Each section runs in a fresh process of its own (see `runApart`).
 * `--only=a,b` runs some of them (names: encrypt, batch, sign, mldsa, http,
 * scale, cold, load, metrics, stream, audit, stream-http). The stream section runs 256 MiB
 * / 1 GiB here; `npm run bench:stream` runs the 1 GiB / 4 GiB figures alone.
 *
 * The lease manager's 1,000,000-lease run (issue 6) has its own script,
 * `npm run bench:leases` (about a minute, ~1 GB of heap); `--quick` runs its
 * small form here so CI keeps it working.
 * @module
 */
import { fork } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { auditBench } from './audit.bench.js';
import { batchBench } from './batch.bench.js';
import { coldStartBench } from './cold-start.bench.js';
import { printTable, quick, type Row } from './harness.js';
import { httpBench } from './http.bench.js';
import { leaseBench, printLeaseRows } from './leases.bench.js';
import { loadBench } from './load.bench.js';
import { metricsBench } from './metrics.bench.js';
import { mlDsaBench } from './ml-dsa.bench.js';
import { scaleBench } from './scale.bench.js';
import { signBench } from './sign.bench.js';
import { streamBench } from './stream.bench.js';
import { streamHttpBench } from './stream-http.bench.js';
import { encryptBench } from './transit.bench.js';

const sections: [string, () => Promise<Row[]>][] = [
  ['encrypt', () => encryptBench([64, 4096, 1024 * 1024])],
  ['batch', batchBench],
  ['sign', signBench],
  ['mldsa', mlDsaBench],
  ['http', () => httpBench({ quick })],
  ['scale', scaleBench],
  ['cold', coldStartBench],
  ['load', () => loadBench({ quick })],
  ['metrics', () => metricsBench({ quick })],
  ['stream', () => streamBench(quick ? 'quick' : 'medium')],
  ['audit', () => auditBench({ quick })],
  ['stream-http', () => streamHttpBench({ quick })],
];
const only = process.argv
  .find((a) => a.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');
const section = process.argv.find((a) => a.startsWith('--section='))?.slice('--section='.length);

/**
 * Run one section in a fresh process (this script with `--section=name`) and
 * return its rows. Every section starts from the same clean heap: a section
 * that leaves 100,000 keys or a large old generation behind would otherwise
 * change the garbage collector's work, and so the ratios, of every section
 * after it (measured: HMAC 0.85–0.92 alone, 0.66–0.76 after the others).
 */
function runApart(name: string): Promise<Row[]> {
  return new Promise((resolve, reject) => {
    const args = process.argv.slice(2).filter((a) => !a.startsWith('--only='));
    const child = fork(fileURLToPath(import.meta.url), [...args, `--section=${name}`], {
      serialization: 'advanced',
    });
    let rows: Row[] | undefined;
    child.on('message', (m) => {
      rows = m as Row[];
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (code === 0 && rows) resolve(rows);
      else reject(new Error(`bench section ${name} failed (${signal ?? `exit ${code}`})`));
    });
  });
}

if (section !== undefined) {
  // A child of the run below: one section, rows back to the parent.
  const run = sections.find(([name]) => name === section)?.[1];
  if (!run) throw new Error(`no bench section ${section}`);
  const rows = await run();
  const send = process.send?.bind(process);
  if (send) {
    await new Promise<void>((resolve, reject) =>
      send(rows, undefined, {}, (e) => (e ? reject(e) : resolve())),
    );
  } else printTable(rows); // run by hand: `tsx bench/run.ts --section=sign`
  process.exit(0);
}

const started = Date.now();
console.log(
  `transitkit bench — node ${process.version}, ${os.cpus()[0]?.model ?? 'cpu'} × ${os.cpus().length}${quick ? ' (quick)' : ''}`,
);
const rows: Row[] = [];
for (const [name] of sections) {
  if (only && !only.includes(name)) continue;
  const t = Date.now();
  rows.push(...(await runApart(name)));
  console.error(`  ${name}: ${((Date.now() - t) / 1000).toFixed(1)} s`);
}
printTable(rows);
if (quick && (!only || only.includes('leases'))) printLeaseRows(await leaseBench({ quick }));
const missed = rows.filter(
  (r) =>
    r.target &&
    r.ratio !== undefined &&
    ((r.target.min !== undefined && r.ratio < r.target.min) ||
      (r.target.max !== undefined && r.ratio > r.target.max)),
);
console.log(
  `\n${rows.filter((r) => r.target).length - missed.length} targets met, ${missed.length} missed; bench done in ${((Date.now() - started) / 1000).toFixed(1)} s`,
);
