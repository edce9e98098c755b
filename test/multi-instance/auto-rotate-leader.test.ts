/**
 * One leadership for every background duty (issue #23 part 4): two real
 * `transitkit server` processes on one redis-server share one leader lock for
 * lease expiry and auto-rotation, so auto-rotation runs on the active node
 * only.
 *
 * Keys restored with a latest version two hours old and a one-hour
 * `auto_rotate_period` are due at once. Both servers run an auto-rotation
 * pass every 100 ms (`--auto-rotate-interval`), so without the shared lock
 * both would try every key. Each key must be rotated exactly once
 * (`latest_version` 2, and still 2 after many more passes), and by the active
 * node: its log names every key once, the standby's names none. Then the
 * active node is SIGKILLed: the standby takes over (short `--leader-ttl`) and
 * rotates a key that becomes due after the takeover.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Transit } from '../../src/index.js';
import { eventually } from '../auth/flaky-storage.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { NO_REDIS_REASON, RedisServer, SKIP_REDIS } from '../helpers/redis-server.js';
import { type CliServer, call, startCli } from '../http/helpers.js';

const KEYS = 12;
const HOUR_MS = 3_600_000;

/** A Vault backup of `name` whose only version is two hours old, rotating every hour. */
async function dueBackup(name: string): Promise<string> {
  const transit = new Transit({
    clock: new FakeClock(Date.now() - 2 * HOUR_MS),
    autoRotate: false,
  });
  try {
    await transit.createKey(name, {
      auto_rotate_period: '1h',
      exportable: true,
      allow_plaintext_backup: true,
    });
    return (await transit.backupKey(name)).backup;
  } finally {
    await transit.close();
  }
}

const rotations = (s: CliServer, name: string): number =>
  s
    .stdout()
    .split('\n')
    .filter((l) => l === `transitkit: auto-rotated key ${name}`).length;

async function latestVersion(s: CliServer, name: string): Promise<number> {
  const r = await call(s, 'GET', `/v1/transit/keys/${name}`);
  if (r.status !== 200) throw new Error(`read ${name}: ${r.status} ${r.text}`);
  return r.json.data.latest_version as number;
}

async function restore(s: CliServer, name: string): Promise<void> {
  const r = await call(s, 'POST', `/v1/transit/restore/${name}`, {
    body: { backup: await dueBackup(name) },
  });
  if (r.status !== 204) throw new Error(`restore ${name}: ${r.status} ${r.text}`);
}

describe.skipIf(SKIP_REDIS)('auto-rotation on the leader only (two processes, Redis)', () => {
  const servers: CliServer[] = [];
  let redis: RedisServer | undefined;
  let dir: string | undefined;
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop('SIGKILL').catch(() => undefined)));
    await redis?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a due key rotates exactly once, on the active node; the standby takes over', async () => {
    if (SKIP_REDIS) console.warn(NO_REDIS_REASON);
    redis = await RedisServer.start();
    dir = mkdtempSync(join(tmpdir(), 'transitkit-auto-rotate-'));
    const keyFile = join(dir, 'root.key');
    writeFileSync(keyFile, randomBytes(32).toString('base64'), { mode: 0o600 });
    const root = `root-${randomBytes(12).toString('hex')}`;
    const args = [
      ...['--storage', redis.url, '--root-key-file', keyFile, '--listen', '127.0.0.1:0'],
      ...['--leader-ttl', '1s', '--leader-refresh', '250ms', '--auto-rotate-interval', '100ms'],
    ];
    const a = { ...(await startCli([...args, '--initial-root-token', root])), root };
    servers.push(a);
    const b = { ...(await startCli(args)), root };
    servers.push(b);
    const health = async (s: CliServer) => (await fetch(`${s.url}/v1/sys/health`)).status;
    expect(await health(a)).toBe(200);
    expect(await health(b)).toBe(429);

    const names = Array.from({ length: KEYS }, (_, i) => `due-${i}`);
    // Through the standby, alternating: where a key is written does not decide who rotates it.
    for (const [i, name] of names.entries()) await restore(i % 2 === 0 ? b : a, name);
    await eventually(
      async () => (await Promise.all(names.map((n) => latestVersion(b, n)))).every((v) => v >= 2),
      'every due key rotated',
    );
    await new Promise((r) => setTimeout(r, 1_000)); // ten more passes on each server
    for (const name of names) {
      expect(await latestVersion(a, name), name).toBe(2);
      expect(rotations(a, name), `${name} on the active node`).toBe(1);
      expect(rotations(b, name), `${name} on the standby`).toBe(0);
    }

    await a.stop('SIGKILL');
    await eventually(async () => (await health(b)) === 200, 'the standby is active', 10_000);
    await restore(b, 'late');
    await eventually(async () => rotations(b, 'late') === 1, 'the new leader rotates', 10_000);
    expect(await latestVersion(b, 'late')).toBe(2);
  }, 90_000);
});
