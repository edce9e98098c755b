/**
 * Two real processes on one redis-server, each a Leadership + Transit with
 * auto-rotation under it. A leads first; then one of A's lock refreshes is
 * followed by a synchronous event-loop block longer than the lock's TTL
 * (a long CPU-bound call). The lock runs out meanwhile and B takes it. When
 * A's loop runs again it hears "refreshed" (true when the server ran it,
 * before the block): that answer must not make A run leader duties, since
 * its TTL ran out meanwhile (it did, and A rotated while B led).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisServer, SKIP_REDIS } from '../helpers/redis-server.js';

// Next to this file (as moved out of test/, put both back under /work/main/test to run).
const CHILD = join(__dirname, 'paused-leader-child.ts');
// Long enough that a loaded 2-core machine's stalls (a few hundred ms) do not move the lock.
const TTL = 1_000;

interface Child {
  proc: ChildProcess;
  lines: string[];
  ready: Promise<void>;
}

function child(url: string, blockMs: number): Child {
  const proc = spawn(
    process.execPath,
    ['--import', 'tsx', CHILD, url, 'pz:', String(TTL), String(blockMs)],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
      cwd: join(__dirname, '..'),
    },
  );
  const lines: string[] = [];
  const ready = new Promise<void>((resolve, reject) => {
    proc.once('exit', (c) => reject(new Error(`child exited ${c}`)));
    createInterface({ input: proc.stdout as NodeJS.ReadableStream }).on('line', (l) => {
      lines.push(l);
      if (l === 'ready') resolve();
    });
  });
  return { proc, lines, ready };
}

const times = (c: Child, what: string) =>
  c.lines.filter((l) => l.startsWith(`${what} `)).map((l) => Number(l.split(' ')[1]));

describe.skipIf(SKIP_REDIS)('a leader paused past its lock TTL', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await RedisServer.start();
  });
  afterAll(async () => server?.destroy());

  it('runs no leader duty once another instance has taken the lock', async () => {
    const until = async (ok: () => boolean, ms = 15_000) => {
      for (let waited = 0; !ok() && waited < ms; waited += 50) {
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const a = child(server.url, 3 * TTL);
    await a.ready;
    await until(() => times(a, 'lead').length > 0); // A leads
    const b = child(server.url, 0);
    try {
      await b.ready;
      expect(times(a, 'lead').length).toBe(1); // A leads, B is standby
      expect(times(b, 'lead')).toEqual([]);
      a.proc.stdin?.write('block\n');
      await until(() => times(b, 'lead').length > 0); // B takes over during A's block
      await new Promise((r) => setTimeout(r, 3 * TTL)); // A's block ends; A runs on
      const bLead = times(b, 'lead');
      expect(bLead.length).toBeGreaterThan(0);
      expect(times(b, 'standby')).toEqual([]); // and kept the lock from then on
      const since = bLead[0] as number;
      // A's passes begun after B became leader: two leaders running the duty at once.
      const dual = times(a, 'passstart').filter((t) => t > since);
      expect(dual).toEqual([]);
    } finally {
      a.proc.kill('SIGKILL');
      b.proc.kill('SIGKILL');
    }
  });
});
