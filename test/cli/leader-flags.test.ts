/**
 * `--leader-ttl` and `--leader-refresh` (issue #15 item 3): parsing, and two
 * real `transitkit server` processes on one redis-server with a short lock:
 * the first is active (health 200), the second standby (429), and both name
 * the first's `--api-addr` in `sys/leader`; after a SIGKILL of the first, the
 * second answers 200 and names itself. The time is printed. And `--api-addr`'s
 * parsing.
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

describe('--api-addr', () => {
  it('takes an http or https URL, from the flag, VAULT_API_ADDR or TRANSITKIT_API_ADDR', () => {
    expect(server(['--api-addr', 'https://vault-1.example:8200']).apiAddr).toBe(
      'https://vault-1.example:8200',
    );
    const fromEnv = (env: Record<string, string>) => {
      const c = parseArgs(['server', '--storage', 'memory'], env);
      return c.kind === 'server' ? c.args.apiAddr : undefined;
    };
    expect(fromEnv({ VAULT_API_ADDR: 'http://10.0.0.1:8200' })).toBe('http://10.0.0.1:8200');
    expect(
      fromEnv({ VAULT_API_ADDR: 'http://10.0.0.1:8200', TRANSITKIT_API_ADDR: 'http://b:1' }),
    ).toBe('http://b:1');
    expect(server([]).apiAddr).toBeUndefined();
    for (const bad of ['vault.example:8200', 'ftp://x.example', 'https://']) {
      expect(() => server(['--api-addr', bad]), bad).toThrow(
        /--api-addr must be an http or https URL/,
      );
    }
    expect(() => parseArgs(['server'], { VAULT_API_ADDR: 'nope' })).toThrow(
      /--api-addr must be an http or https URL .*\(from VAULT_API_ADDR\)/,
    );
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
    const leaderAddress = async (s: CliServer) =>
      ((await (await fetch(`${s.url}/v1/sys/leader`)).json()) as { leader_address: string })
        .leader_address;
    const a = await startCli([...args, '--api-addr', 'https://a.example:8200']);
    servers.push(a);
    const b = await startCli([...args, '--api-addr=https://b.example:8200']);
    servers.push(b);
    expect(await health(a)).toBe(200);
    expect(await health(b)).toBe(429);
    // The standby names the active server by the address it advertised.
    expect(await leaderAddress(b)).toBe('https://a.example:8200');
    expect(await leaderAddress(a)).toBe('https://a.example:8200');
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
    expect(await leaderAddress(b)).toBe('https://b.example:8200');
  }, 60_000);
});
