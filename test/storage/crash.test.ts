/**
 * Crash safety of the barrier on the file adapter: a child process (see
 * `crash-child.ts`) writes and rotates in a loop — transit keys created and
 * rotated, values encrypted, leases issued, the barrier keyring rotated —
 * and is killed with SIGKILL at a random point, `CRASH_ROUNDS` times (100;
 * `FUZZ_LONG=1` makes it 1,000). After each kill the store must open and
 * unseal, and every write the child acknowledged before dying must be there:
 * keys at least at the acknowledged version, every acknowledged ciphertext
 * decrypting to its plaintext, leases found with their secret data, the
 * keyring at least at the acknowledged term. Each round checks its own
 * acknowledgements and a sample of earlier ones; the last check covers all.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileStorage } from '../../adapters/file/index.js';
import { TransitNode } from '../../src/node/transit-node.js';
import { ROOT_DIR } from '../http/helpers.js';

const ROUNDS = Number(process.env.CRASH_ROUNDS ?? (process.env.FUZZ_LONG === '1' ? 1000 : 100));

type Ack =
  | { op: 'ready' }
  | { op: 'create'; name: string }
  | { op: 'rotate'; name: string; version: number }
  | { op: 'enc'; name: string; pt: string; ct: string }
  | { op: 'lease'; id: string; secret: string }
  | { op: 'term'; term: number };

let work: string;
let child: string;
beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'transitkit-crash-'));
  child = join(work, 'crash-child.mjs');
  await build({
    entryPoints: [join(ROOT_DIR, 'test/storage/crash-child.ts')],
    outfile: child,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    alias: {
      '#default-backend': join(ROOT_DIR, 'src/crypto/node/index.ts'),
      transitkit: join(ROOT_DIR, 'src/index.ts'),
    },
    external: ['ioredis'],
    plugins: [
      {
        // A native addon: loaded from the repository's node_modules, never bundled.
        name: 'native-external',
        setup(b) {
          b.onResolve({ filter: /^fs-native-extensions$/ }, () => ({
            path: join(ROOT_DIR, 'node_modules/fs-native-extensions/index.js'),
            external: true,
          }));
        },
      },
    ],
    // CommonJS dependencies in an ESM bundle still `require` node built-ins.
    banner: {
      js: "import { createRequire as __req } from 'node:module'; const require = __req(import.meta.url);",
    },
    logLevel: 'error',
  });
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Run the child until a random moment, SIGKILL it, and return what it acknowledged. */
async function crashRound(dir: string, rootKey: string): Promise<{ acks: Ack[]; ready: boolean }> {
  const proc: ChildProcess = spawn(process.execPath, [child, dir, rootKey], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  proc.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  // Half the rounds die at a random point of start-up (load, open, unseal, create),
  // the rest at a random point of the write loop.
  if (Math.random() < 0.5) {
    await new Promise((r) => setTimeout(r, Math.random() * 250));
  } else {
    await Promise.race([
      new Promise<void>((r) => {
        const check = () => out.includes('"ready"') && r();
        proc.stdout?.on('data', check);
      }),
      exited,
    ]);
    await new Promise((r) => setTimeout(r, Math.random() * 450));
  }
  const early = proc.exitCode;
  proc.kill('SIGKILL');
  await exited;
  if (early !== null) throw new Error(`child exited by itself (${early}): ${err}`);
  // Only whole lines: a line cut by the kill was never acknowledged.
  const lines = out.split('\n').slice(0, -1);
  const acks = lines.map((l) => JSON.parse(l) as Ack);
  return { acks, ready: acks.some((a) => a.op === 'ready') };
}

/** Open the store as a new process would, and check every acknowledgement. */
async function verify(dir: string, rootKey: string, acks: readonly Ack[]): Promise<void> {
  const storage = await FileStorage.open(dir);
  const node = new TransitNode({
    storage,
    rootKey: new Uint8Array(Buffer.from(rootKey, 'base64')),
    leases: { tickMs: false },
    transit: { autoRotate: false },
  });
  try {
    await node.start();
    for (const a of acks) {
      switch (a.op) {
        case 'ready':
          break;
        case 'create':
          expect((await node.transit.readKey(a.name)).name).toBe(a.name);
          break;
        case 'rotate':
          expect((await node.transit.readKey(a.name)).latest_version).toBeGreaterThanOrEqual(
            a.version,
          );
          break;
        case 'enc':
          expect((await node.transit.decrypt(a.name, { ciphertext: a.ct })).plaintext).toBe(a.pt);
          break;
        case 'lease':
          expect((await node.leases.lookup(a.id)).id).toBe(a.id);
          break;
        case 'term':
          expect(node.keyStatus().term).toBeGreaterThanOrEqual(a.term);
          break;
      }
    }
  } finally {
    await node.close();
    await storage.close();
  }
}

describe('crash safety (file adapter, barrier, auto-unseal)', () => {
  it(`keeps every acknowledged write across ${ROUNDS} SIGKILLs`, {
    timeout: 60_000 + ROUNDS * 2_000,
  }, async () => {
    const dir = join(work, 'store');
    const rootKey = randomBytes(32).toString('base64');
    const all: Ack[] = [];
    let readyRounds = 0;
    const started = Date.now();
    for (let round = 0; round < ROUNDS; round++) {
      const { acks, ready } = await crashRound(dir, rootKey);
      if (ready) readyRounds++;
      const sample = all.filter(() => Math.random() < 50 / Math.max(all.length, 1));
      await verify(dir, rootKey, [...acks, ...sample]);
      all.push(...acks);
    }
    await verify(dir, rootKey, all);
    const count = (op: Ack['op']) => all.filter((a) => a.op === op).length;
    const figures = {
      rounds: ROUNDS,
      killedAfterReady: readyRounds,
      acks: all.length,
      encrypts: count('enc'),
      rotations: count('rotate'),
      leases: count('lease'),
      keyringTerms: count('term'),
      seconds: Math.round((Date.now() - started) / 1000),
    };
    console.log('crash test:', JSON.stringify(figures));
    // The kills landed in both phases, and the loop did real work.
    expect(readyRounds).toBeGreaterThan(ROUNDS / 5);
    expect(readyRounds).toBeLessThan(ROUNDS);
    expect(count('enc')).toBeGreaterThan(ROUNDS);
    expect(count('rotate')).toBeGreaterThan(ROUNDS / 4);
    expect(count('term')).toBeGreaterThan(0);
  });
});
