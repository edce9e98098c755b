/**
 * The cases of the per-call benches (`call-instructions.bench.ts`, which
 * counts their instructions under callgrind, and `call-time.bench.ts`,
 * which samples their time with perf), and the measured process that runs
 * them: forked with {@link CHILD_FLAG}, it sets every case up, then answers
 * `prepare` (ready `n` calls, then a collected heap) and `run` (make `n`
 * calls, each awaited when it returns a promise) with `'ok'` once done.
 * @module
 */
import { type ChildProcess, type ForkOptions, fork } from 'node:child_process';
import { createHmac, createPrivateKey, randomBytes, sign, verify } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Transit } from 'transitkit';
import { decryptFloor, hmacFloor } from './call-floor.js';
import { ALGS, raw } from './transit.bench.js';

/** The argument that makes this module the measured process. */
export const CHILD_FLAG = '--call-cases-child';

/** One measured case: its group, its name, and the name of its baseline (none: it is one). */
export interface CaseInfo {
  group: string;
  name: string;
  vs?: string;
  /** The ratio is this ÷ the baseline (rotate), not the baseline ÷ this. */
  over?: boolean;
}

/** Every case, in the order they run; a baseline runs before the cases measured against it. */
export const CASES: CaseInfo[] = [
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
  { group: 'sign ecdsa-p256', name: 'raw node:crypto sign' },
  { group: 'sign ecdsa-p256', name: 'transit.sign (node)', vs: 'raw node:crypto sign' },
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

/** A numeric `--name=N` argument of the bench's command line, or `fallback`. */
export const arg = (name: string, fallback: number): number => {
  const a = process.argv.find((x) => x.startsWith(`--${name}=`));
  return a ? Number(a.slice(name.length + 3)) : fallback;
};

/**
 * The cases the command line asks for: with `--only=decrypt,hmac`, the
 * groups whose names start with one of these (the others are still set up
 * in the measured process, but not run); else every case.
 */
export function chosenCases(): CaseInfo[] {
  const only = process.argv
    .find((x) => x.startsWith('--only='))
    ?.slice('--only='.length)
    .split(',');
  return only ? CASES.filter((c) => only.some((o) => c.group.startsWith(o))) : CASES;
}

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
  // sign.bench.ts's ECDSA-P256 pair: node:crypto with the version's key, exported as PEM.
  await transit.createKey('p256', { type: 'ecdsa-p256', exportable: true });
  const p256 = await transit.exportKey('signing-key', 'p256', 1, { format: 'pem' });
  const p256Key = createPrivateKey(p256.keys['1'] as string);
  const message = Buffer.from('the quick brown fox jumps over the lazy dog');
  const signInput = message.toString('base64');
  const signed = await transit.sign('p256', { input: signInput });
  if (!verify('sha256', message, p256Key, Buffer.from(signed.signature.slice(9), 'base64'))) {
    throw new Error('sign: node:crypto rejects transit');
  }
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
    ['raw node:crypto sign', call(() => sign('sha256', message, p256Key))],
    ['transit.sign (node)', call(() => transit.sign('p256', { input: signInput }))],
    ['raw node:crypto seal', call(() => r.nodeSeal(ptB64))],
    ['transit (node) encrypt', call(() => transit.encrypt(aes.type, { plaintext: ptB64 }))],
    [
      'rotate at 10–20 versions',
      { prepare: freshKeys, call: (i) => transit.rotateKey(queue[Math.floor(i / 10)] as string) },
    ],
    ['rotate at 1,000+ versions', call(() => transit.rotateKey('many'))],
  ]);
}

export type Message = { prepare: string; n: number } | { run: string; n: number } | 'stop';

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

/**
 * Fork the measured process (with `options`: its runner and flags), wait
 * until its cases are set up, and return it with `ask`, which sends one
 * message and resolves on the answer (one at a time), and `stop`.
 */
export async function startCases(
  options: Pick<ForkOptions, 'execPath' | 'execArgv'>,
): Promise<{ proc: ChildProcess; ask: (m: Message) => Promise<void>; stop: () => Promise<void> }> {
  const proc = fork(fileURLToPath(import.meta.url), [CHILD_FLAG], {
    ...options,
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
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
  const exited = new Promise<void>((resolve) => proc.on('exit', () => resolve()));
  await answered();
  // `stop` resolves once the process has exited (callgrind writes a last dump on exit).
  const stop = async () => {
    pending = undefined;
    if (proc.exitCode === null) proc.send('stop' satisfies Message);
    await exited;
  };
  return { proc, ask, stop };
}

if (process.argv.includes(CHILD_FLAG)) await child();
