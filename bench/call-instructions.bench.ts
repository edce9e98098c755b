/**
 * The in-process rows of issue 18 in instructions: decrypt and HMAC of 64 B
 * against the raw node:crypto calls of transit.bench.ts and sign.bench.ts
 * (and the raw call awaited in an `async` function: what a promise costs;
 * and call-floor.ts's floor: what any complete implementation costs),
 * encrypt of 64 B, and rotate at 1,000 versions against rotate at 10. The
 * cases run in one process under valgrind's callgrind, which counts only
 * while one case runs; the counts do not depend on what else the machine
 * runs, where the timed ratios of `npm run bench` spread 0.3–1.2 on a shared
 * host.
 *
 * Each case is called `warm` times first (uncounted: V8 optimises the hot
 * code meanwhile), then, from a collected heap, `count` times counted, each
 * call awaited when it returns a promise (as the timed harness does). Rotate: the small side
 * rotates fresh keys of 10 versions ten times each (10–20 versions), the
 * large side a key of 1,000 versions (warmed on keys of the same kinds).
 * The figure is instructions per call without the optimising compiler,
 * garbage collection included (bench/callgrind.ts), and the ratio in the
 * direction of the timed rows: raw ÷ transit, and rotate many ÷ few.
 *
 * Needs valgrind; about three minutes.
 * `npm run bench:calls [-- --warm=N --count=N --keep --only=decrypt,hmac]`
 * (`--keep`: the dumps stay, one per case in order, for `callgrind_annotate`,
 * with V8's map of its JIT code; `--only`: the groups named so, the others
 * still set up but not run).
 * @module
 */
import { fork } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Transit } from 'transitkit';
import { decryptFloor, hmacFloor } from './call-floor.js';
import { callgrindCommand, counted, perCall, V8_FIXED_SEEDS } from './callgrind.js';
import { printTable, type Row } from './harness.js';
import { ALGS, raw } from './transit.bench.js';

const CHILD_FLAG = '--call-instructions-child';

const arg = (name: string, fallback: number): number => {
  const a = process.argv.find((x) => x.startsWith(`--${name}=`));
  return a ? Number(a.slice(name.length + 3)) : fallback;
};

/** One measured case: its group, its name, and the name of its baseline (none: it is one). */
interface CaseInfo {
  group: string;
  name: string;
  vs?: string;
  /** The ratio is this ÷ the baseline (rotate), not the baseline ÷ this. */
  over?: boolean;
}

const CASES: CaseInfo[] = [
  { group: 'decrypt 64 B aes256-gcm96', name: 'raw node:crypto' },
  {
    group: 'decrypt 64 B aes256-gcm96',
    name: 'raw node:crypto, awaited in an async function',
    vs: 'raw node:crypto',
  },
  {
    group: 'decrypt 64 B aes256-gcm96',
    name: 'floor of any implementation (call-floor.ts)',
    vs: 'raw node:crypto',
  },
  { group: 'decrypt 64 B aes256-gcm96', name: 'transit (node)', vs: 'raw node:crypto' },
  { group: 'hmac sha2-256 64 B', name: 'raw node:crypto hmac' },
  {
    group: 'hmac sha2-256 64 B',
    name: 'raw node:crypto hmac, awaited in an async function',
    vs: 'raw node:crypto hmac',
  },
  {
    group: 'hmac sha2-256 64 B',
    name: 'hmac floor of any implementation (call-floor.ts)',
    vs: 'raw node:crypto hmac',
  },
  { group: 'hmac sha2-256 64 B', name: 'transit.hmac (node)', vs: 'raw node:crypto hmac' },
  { group: 'encrypt 64 B aes256-gcm96', name: 'raw node:crypto seal' },
  {
    group: 'encrypt 64 B aes256-gcm96',
    name: 'transit (node) encrypt',
    vs: 'raw node:crypto seal',
  },
  { group: 'rotate', name: 'rotate at 10–20 versions' },
  {
    group: 'rotate',
    name: 'rotate at 1,000+ versions',
    vs: 'rotate at 10–20 versions',
    over: true,
  },
];

/** A case in the measured process: `prepare(n)` (uncounted) readies `n` calls of `call`. */
interface Runner {
  prepare?: (n: number) => Promise<void>;
  call: (i: number) => unknown;
}

/** In the measured process: every case, its keys made and its output checked. */
async function runners(): Promise<Map<string, Runner>> {
  const transit = new Transit({ autoRotate: false });
  const aes = ALGS[0];
  await transit.createKey(aes.type, { type: aes.type, exportable: true });
  const exported = await transit.exportKey('encryption-key', aes.type, 1);
  const aesKey = Buffer.from(exported.keys['1'] as string, 'base64');
  const r = raw(aes, aesKey);
  const ptB64 = randomBytes(64).toString('base64');
  const rawCt = r.nodeSeal(ptB64);
  if ((await transit.decrypt(aes.type, { ciphertext: rawCt })).plaintext !== ptB64) {
    throw new Error('decrypt: round trip mismatch');
  }
  await transit.createKey('hmac', { exportable: true });
  const hmacExport = await transit.exportKey('hmac-key', 'hmac', 1);
  const hmacKey = Buffer.from(hmacExport.keys['1'] as string, 'base64');
  const input = Buffer.from(randomBytes(32).toString('hex')).toString('base64');
  // sign.bench.ts's raw HMAC: base64 in, `vault:v1:` + base64 out.
  const rawHmac = () =>
    `vault:v1:${createHmac('sha256', hmacKey).update(Buffer.from(input, 'base64')).digest('base64')}`;
  if ((await transit.hmac('hmac', { input })).hmac !== rawHmac()) throw new Error('hmac mismatch');
  // Rotate: the small side on fresh keys of 10 versions, ten rotations each.
  let queue: string[] = [];
  let made = 0;
  const freshKeys = async (n: number) => {
    queue = [];
    for (let k = 0; k < Math.ceil(n / 10); k++) {
      const name = `few-${made++}`;
      await transit.createKey(name);
      for (let v = 1; v < 10; v++) await transit.rotateKey(name);
      queue.push(name);
    }
  };
  await transit.createKey('many');
  for (let v = 1; v < 1000; v++) await transit.rotateKey('many');
  const call = (f: (i: number) => unknown): Runner => ({ call: f });
  const openFloor = decryptFloor(aes.type, 'aes-256-gcm', aesKey);
  if ((await openFloor({ ciphertext: rawCt })).plaintext !== ptB64)
    throw new Error('floor mismatch');
  const macFloor = hmacFloor('hmac', hmacKey);
  if ((await macFloor({ input })).hmac !== rawHmac()) throw new Error('hmac floor mismatch');
  return new Map<string, Runner>([
    ['raw node:crypto', call(() => r.nodeOpen(rawCt))],
    ['raw node:crypto, awaited in an async function', call(async () => r.nodeOpen(rawCt))],
    ['floor of any implementation (call-floor.ts)', call(() => openFloor({ ciphertext: rawCt }))],
    ['transit (node)', call(() => transit.decrypt(aes.type, { ciphertext: rawCt }))],
    ['raw node:crypto hmac', call(rawHmac)],
    ['raw node:crypto hmac, awaited in an async function', call(async () => rawHmac())],
    ['hmac floor of any implementation (call-floor.ts)', call(() => macFloor({ input }))],
    ['transit.hmac (node)', call(() => transit.hmac('hmac', { input }))],
    ['raw node:crypto seal', call(() => r.nodeSeal(ptB64))],
    ['transit (node) encrypt', call(() => transit.encrypt(aes.type, { plaintext: ptB64 }))],
    [
      'rotate at 10–20 versions',
      { prepare: freshKeys, call: (i) => transit.rotateKey(queue[Math.floor(i / 10)] as string) },
    ],
    ['rotate at 1,000+ versions', call(() => transit.rotateKey('many'))],
  ]);
}

type Message = { prepare: string; n: number } | { run: string; n: number } | 'stop';

/** The measured process: answers `prepare` and `run` with `'ok'` once done. */
async function child(): Promise<void> {
  const byName = await runners();
  process.on('message', async (m: Message) => {
    if (m === 'stop') process.exit(0);
    const runner = byName.get('prepare' in m ? m.prepare : m.run);
    if (!runner) throw new Error(`unknown case ${JSON.stringify(m)}`);
    if ('prepare' in m) {
      await runner.prepare?.(m.n);
      // Every case starts from a collected heap: a major collection made due by an earlier
      // case (or by the set-up) would otherwise fall into whichever case came next.
      (globalThis as { gc?: () => void }).gc?.();
    } else {
      for (let i = 0; i < m.n; i++) {
        const out = runner.call(i);
        if (out instanceof Promise) await out;
      }
    }
    process.send?.('ok');
  });
  process.send?.('ok');
}

async function main(): Promise<void> {
  if (process.argv.includes(CHILD_FLAG)) return child();
  const warm = arg('warm', 10_000);
  // Each counted window holds a fixed ≈ 4 M instructions of other work (the
  // start and stop of counting, the messages around it), sometimes ≈ 10 M more
  // (at 3,000 calls, decrypt read 36.1 k or 39.2 k a call from one run to the
  // next, the awaited raw call 31.9 k or 35.1 k with it); 30,000 calls share
  // it out to ≈ 0.1–0.5 k a call.
  const count = arg('count', 30_000);
  const keep = process.argv.includes('--keep');
  // `--only=decrypt,hmac`: the groups whose names start with one of these (and nothing else).
  const only = process.argv
    .find((x) => x.startsWith('--only='))
    ?.slice('--only='.length)
    .split(',');
  const cases = only ? CASES.filter((c) => only.some((o) => c.group.startsWith(o))) : CASES;
  const dir = mkdtempSync(join(tmpdir(), 'tk-callgrind-'));
  const proc = fork(fileURLToPath(import.meta.url), [CHILD_FLAG], {
    execPath: 'valgrind',
    execArgv: [
      ...callgrindCommand(join(dir, 'callgrind.out')).slice(1),
      process.execPath,
      '--single-threaded',
      '--expose-gc',
      ...V8_FIXED_SEEDS,
      // With --keep, V8 writes /tmp/perf-<pid>.map: names for the JIT's addresses in the dumps.
      // (which also makes it log; the log goes beside the dumps, not into the working directory).
      ...(keep ? ['--perf-basic-prof', `--logfile=${join(dir, 'v8.log')}`] : []),
      '--import',
      'tsx',
    ],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  // One answer is awaited at a time.
  let pending: { resolve: () => void; reject: (e: Error) => void } | undefined;
  proc.on('message', () => pending?.resolve());
  proc.on('exit', (code) => pending?.reject(new Error(`measured process exited (${code})`)));
  const answered = () =>
    new Promise<void>((resolve, reject) => {
      pending = { resolve, reject };
    });
  const ask = async (m: Message) => {
    const done = answered();
    proc.send(m);
    await done;
  };
  await answered();
  const measured = new Map<string, { own: number; gc: number }>();
  try {
    for (const c of cases) {
      const rotate = c.group === 'rotate';
      const [w, n] = rotate ? [300, 400] : [warm, count];
      await ask({ prepare: c.name, n: w });
      await ask({ run: c.name, n: w });
      await ask({ prepare: c.name, n });
      const { file } = await counted(dir, proc.pid ?? 0, async () => {
        await ask({ run: c.name, n });
        return n;
      });
      measured.set(c.name, perCall(file, n));
    }
  } finally {
    proc.send('stop');
  }
  const rows: Row[] = cases.flatMap((c) => {
    const { own, gc } = measured.get(c.name) as { own: number; gc: number };
    const base = c.vs === undefined ? undefined : measured.get(c.vs)?.own;
    const group = `${c.group}, instructions`;
    return [
      {
        group,
        name: `${c.name}: per call, without the compiler`,
        value: Math.round(own),
        unit: 'Ir',
        ...(base === undefined
          ? {}
          : { ratio: c.over ? own / base : base / own, baseline: c.vs as string }),
      },
      { group, name: `${c.name}: of which garbage collection`, value: Math.round(gc), unit: 'Ir' },
    ];
  });
  if (keep) console.log(`callgrind dumps kept in ${dir}; JIT names in /tmp/perf-${proc.pid}.map`);
  else rmSync(dir, { recursive: true, force: true });
  printTable(rows);
}

await main();
