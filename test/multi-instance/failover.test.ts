/**
 * Leader failover on Redis with two real processes (issue #15 item 3): A and B
 * (failover-child.ts, each a TransitNode with default lease options) share one
 * redis-server. A leads; B is standby. A issues leases in three groups:
 * - 2 s: due while A lives, revoked by A;
 * - 8 s: due after A is SIGKILLed, before B can take over (revoked by B on takeover);
 * - 20 s: due after the takeover, revoked by B.
 *
 * A is killed as soon as the later groups are stored, when no lease is due,
 * so no revocation is interrupted (a revoker cut off mid-call would be called
 * again by B: revocation is at least once). Then B must become active within 15 s of the kill
 * (the default lock TTL is 10 s), and every revoker call is counted in a file
 * appended synchronously: each lease exactly once, the 2 s group by A, the rest
 * by B. The failover time is printed.
 *
 * And a leader that is paused (SIGSTOP) rather than killed: B takes over, and
 * when A resumes it finds its lock gone (the refresh is refused for its
 * token) and becomes standby without revoking anything, though due leases
 * are in its heap.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { NO_REDIS_REASON, RedisServer, SKIP_REDIS } from '../helpers/redis-server.js';
import { ROOT_DIR } from '../http/helpers.js';

const CHILD = join(ROOT_DIR, 'test/multi-instance/failover-child.ts');

/** A child process whose stdout lines can be awaited. */
class Child {
  readonly proc: ChildProcess;
  readonly lines: string[] = [];
  readonly #waiters: Array<{ test: (l: string) => boolean; resolve: (l: string) => void }> = [];
  readonly at = new Map<string, number>();
  err = '';

  constructor(args: string[]) {
    this.proc = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], {
      cwd: ROOT_DIR,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let buf = '';
    this.proc.stdout?.on('data', (d: Buffer) => {
      buf += d.toString();
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        this.lines.push(line);
        if (!this.at.has(line)) this.at.set(line, performance.now());
        for (const w of this.#waiters.splice(0)) {
          if (w.test(line)) w.resolve(line);
          else this.#waiters.push(w);
        }
      }
    });
    this.proc.stderr?.on('data', (d: Buffer) => {
      this.err += d.toString();
    });
  }

  /** The first line (already printed or to come) that passes `test`. */
  line(test: (l: string) => boolean, timeoutMs: number): Promise<string> {
    const seen = this.lines.find(test);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no matching line within ${timeoutMs} ms: ${this.err}`)),
        timeoutMs,
      );
      this.#waiters.push({
        test,
        resolve: (l) => {
          clearTimeout(timer);
          resolve(l);
        },
      });
    });
  }

  send(line: string): void {
    this.proc.stdin?.write(`${line}\n`);
  }

  async kill(signal: NodeJS.Signals): Promise<void> {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return;
    const exited = new Promise((r) => this.proc.once('exit', r));
    this.proc.kill('SIGCONT'); // in case it was stopped
    this.proc.kill(signal);
    await exited;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `pid lease_id` lines of the revoked file. */
function revocations(file: string): Array<[number, string]> {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const [pid, id] = l.split(' ');
      return [Number(pid), id as string];
    });
}

async function until(cond: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const end = performance.now() + timeoutMs;
  while (!cond()) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

describe.skipIf(SKIP_REDIS)('leader failover on Redis, two processes', () => {
  let redis: RedisServer; // a fresh server per test
  let work: string;
  const children: Child[] = [];
  beforeAll(() => {
    if (SKIP_REDIS) console.warn(NO_REDIS_REASON);
    work = mkdtempSync(join(tmpdir(), 'transitkit-failover-'));
  });
  beforeEach(async () => {
    redis = await RedisServer.start();
  });
  afterEach(async () => {
    await Promise.all(children.splice(0).map((c) => c.kill('SIGKILL')));
    await redis?.stop('SIGKILL');
  });
  afterAll(() => {
    rmSync(work, { recursive: true, force: true });
  });

  /**
   * Two nodes on the Redis with one root key and one revocation log `name`:
   * `a` started first and the leader, `b` the standby.
   */
  async function leaderAndStandby(name: string): Promise<{ file: string; a: Child; b: Child }> {
    const rootKey = randomBytes(32).toString('base64');
    const file = join(work, name);
    writeFileSync(file, '');
    const a = new Child([redis.url, rootKey, file]);
    children.push(a);
    expect(await a.line((l) => l.startsWith('ready'), 30_000)).toBe('ready true');
    const b = new Child([redis.url, rootKey, file]);
    children.push(b);
    expect(await b.line((l) => l.startsWith('ready'), 30_000)).toBe('ready false');
    return { file, a, b };
  }

  it('SIGKILL of the active node: the standby is active within 15 s; every lease revoked exactly once', async () => {
    const { file, a, b } = await leaderAndStandby('revoked.txt');

    const issued = (ttl: number) =>
      a.lines
        .filter((l) => l.startsWith('issued ') && l.endsWith(` ${ttl}`))
        .map((l) => l.split(' ')[1] as string);
    const aPid = a.proc.pid as number;
    const bPid = b.proc.pid as number;
    // The 2 s group is revoked by A; give the last settle a moment.
    a.send('issue 2 10');
    await until(() => revocations(file).length >= 10, 20_000, 'A to revoke the 2 s group');
    await sleep(500);
    // Then the later groups, and the kill as soon as they are stored (none due for 8 s).
    a.send('issue 8 10');
    a.send('issue 20 10');
    await until(() => issued(20).length === 10, 7_000, 'the leases to be issued');
    const killedAt = performance.now();
    await a.kill('SIGKILL');
    await b.line((l) => l === 'active', 30_000);
    const failoverMs = (b.at.get('active') as number) - killedAt;
    console.log(
      `failover: SIGKILL of the active node -> standby active in ${Math.round(failoverMs)} ms`,
    );
    expect(failoverMs).toBeLessThanOrEqual(15_000);

    await until(() => revocations(file).length >= 30, 40_000, 'B to revoke the rest');
    await sleep(2_500); // room for a duplicate to show up
    const all = revocations(file);
    const ids = all.map(([, id]) => id);
    expect(new Set(ids).size).toBe(ids.length); // nothing revoked twice
    expect(ids.sort()).toEqual([...issued(2), ...issued(8), ...issued(20)].sort());
    const by = new Map(all.map(([pid, id]) => [id, pid]));
    for (const id of issued(2)) expect(by.get(id)).toBe(aPid);
    for (const id of [...issued(8), ...issued(20)]) expect(by.get(id)).toBe(bPid);
  }, 120_000);

  it('a paused leader (SIGSTOP) loses the lock; resumed after the takeover, it revokes nothing', async () => {
    const { file, a, b } = await leaderAndStandby('revoked-paused.txt');
    a.send('issue 3 10'); // due while A is stopped: in A's heap when it resumes
    await until(() => a.lines.filter((l) => l.startsWith('issued ')).length === 10, 7_000, 'issue');
    a.proc.kill('SIGSTOP');
    await b.line((l) => l === 'active', 30_000);
    a.proc.kill('SIGCONT'); // at once: B has not revoked them all yet
    await a.line((l) => l === 'standby', 10_000);
    await until(() => revocations(file).length >= 10, 20_000, 'B to revoke the leases');
    await sleep(2_500); // room for a late revocation by A
    const all = revocations(file);
    expect(all).toHaveLength(10);
    expect(new Set(all.map(([, id]) => id)).size).toBe(10);
    expect(all.every(([pid]) => pid === b.proc.pid)).toBe(true);
  }, 120_000);
});
