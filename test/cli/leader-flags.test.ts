/**
 * `--leader-ttl` and `--leader-refresh` (issue #15 item 3): parsing, and two
 * real `transitkit server` processes on one redis-server with a short lock:
 * the first is active (health 200), the second standby (429); after a SIGKILL
 * of the first, the second answers 200. The time is printed.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseArgs, UsageError } from '../../adapters/cli/args.js';
import { NO_REDIS_REASON, RedisServer, SKIP_REDIS } from '../helpers/redis-server.js';
import { type CliServer, startCli } from '../http/helpers.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function server(argv: string[]) {
  const c = parseArgs(['server', '--storage', 'memory', ...argv]);
  if (c.kind !== 'server') throw new Error('not a server command');
  return c.args;
}

describe('--leader-ttl and --leader-refresh', () => {
  it('parse ms, s, m and bare seconds', () => {
    expect(server(['--leader-ttl', '15s', '--leader-refresh=2500ms'])).toMatchObject({
      leaderTtlMs: 15_000,
      leaderRefreshMs: 2_500,
    });
    expect(server(['--leader-ttl=3'])).toMatchObject({ leaderTtlMs: 3_000 });
    expect(server(['--leader-ttl', '1m', '--leader-refresh', '30s'])).toMatchObject({
      leaderTtlMs: 60_000,
      leaderRefreshMs: 30_000,
    });
    expect(server([]).leaderTtlMs).toBeUndefined();
  });

  it('refuse bad durations and a refresh over half the TTL', () => {
    for (const argv of [
      ['--leader-ttl', '0'],
      ['--leader-ttl', '0s'],
      ['--leader-ttl', '1h'],
      ['--leader-ttl=-5s'],
      ['--leader-ttl', '1.5s'],
      ['--leader-ttl', '2d'],
      ['--leader-refresh', '6s'], // default TTL 10 s
      ['--leader-ttl', '2s', '--leader-refresh', '1001ms'],
    ]) {
      expect(() => server(argv), argv.join(' ')).toThrow(UsageError);
    }
  });
});

describe.skipIf(SKIP_REDIS)('two servers on one Redis', () => {
  let redis: RedisServer | undefined;
  const servers: CliServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop('SIGKILL')));
    await redis?.stop('SIGKILL');
  });

  it('the standby answers health 200 soon after the active server is SIGKILLed', async () => {
    if (SKIP_REDIS) console.warn(NO_REDIS_REASON);
    redis = await RedisServer.start();
    const dir = mkdtempSync(join(tmpdir(), 'transitkit-leader-cli-'));
    dirs.push(dir);
    const keyFile = join(dir, 'root.key');
    writeFileSync(keyFile, randomBytes(32).toString('base64'));
    const args = [
      '--storage',
      redis.url,
      '--root-key-file',
      keyFile,
      '--listen',
      '127.0.0.1:0',
      '--leader-ttl',
      '2s',
      '--leader-refresh',
      '500ms',
    ];
    const health = async (s: CliServer) => (await fetch(`${s.url}/v1/sys/health`)).status;
    const a = await startCli(args);
    servers.push(a);
    const b = await startCli(args);
    servers.push(b);
    expect(await health(a)).toBe(200);
    expect(await health(b)).toBe(429);
    const killedAt = performance.now();
    await a.stop('SIGKILL');
    let status = await health(b);
    while (status !== 200 && performance.now() - killedAt < 20_000) {
      await new Promise((r) => setTimeout(r, 50));
      status = await health(b);
    }
    const ms = Math.round(performance.now() - killedAt);
    console.log(`CLI failover with --leader-ttl 2s --leader-refresh 500ms: ${ms} ms`);
    expect(status).toBe(200);
  }, 60_000);
});
