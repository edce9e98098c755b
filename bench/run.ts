/**
 * `npm run bench` — every figure with its ratio against the raw primitive,
 * measured in the same run. `--quick` is a short smoke run for CI that only
 * keeps the harness working (its numbers mean little).
 */
import os from 'node:os';
import { printTable, quick } from './harness.js';
import { signBench } from './sign.bench.js';
import { encryptBench } from './transit.bench.js';

const started = Date.now();
console.log(
  `transitkit bench — node ${process.version}, ${os.cpus()[0]?.model ?? 'cpu'} × ${os.cpus().length}${quick ? ' (quick)' : ''}`,
);
const rows = await encryptBench(quick ? [64] : [64, 4096, 1024 * 1024]);
printTable(rows);
printTable(await signBench());
console.log(`\nbench done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
