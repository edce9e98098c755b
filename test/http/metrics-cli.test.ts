/**
 * Metrics on the real CLI server (issue #19), scraped over HTTP:
 * `GET /v1/sys/metrics` (ACL, JSON and Prometheus), `--metrics-listen`
 * (a separate, unauthenticated `/metrics` port, nothing else served),
 * `--unauthenticated-metrics-access`, and two processes on one Redis each
 * reporting their own series (active vs standby, their own requests).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseArgs, UsageError } from '../../adapters/cli/args.js';
import { freePort } from '../helpers/free-port.js';
import { NO_REDIS_REASON, RedisServer, SKIP_REDIS } from '../helpers/redis-server.js';
import { type CliServer, call, startCli, startDev } from './helpers.js';

/** The value of one Prometheus sample line. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const ENCRYPT_200 =
  'transitkit_http_request_duration_seconds_count{route="/transit/encrypt/:name",method="POST",status="200"}';

const servers: CliServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop('SIGKILL').catch(() => undefined)));
});

describe('transitkit server metrics', () => {
  it('serves sys/metrics under the ACL and /metrics on --metrics-listen without a token', async () => {
    const port = await freePort();
    const s = await startDev(['--metrics-listen', `127.0.0.1:${port}`]);
    servers.push(s);
    const scrapeUrl = `http://127.0.0.1:${port}/metrics`;
    expect(s.stdout()).toContain(`Metrics: http://127.0.0.1:${port}/metrics`);
    expect(s.stdout()).toContain('keep this port private');

    for (let i = 0; i < 5; i++) {
      const r = await call(s, 'POST', `/v1/transit/encrypt/customer-${i}`, {
        body: { plaintext: 'aGVsbG8=' },
      });
      expect(r.status).toBe(200);
    }
    // The main listener: a token with read on sys/metrics (root here), else 403.
    expect((await call(s, 'GET', '/v1/sys/metrics', { token: null })).status).toBe(403);
    const json = await call(s, 'GET', '/v1/sys/metrics');
    expect(json.status).toBe(200);
    expect(json.headers.get('content-type')).toBe('application/json');
    expect(json.json.Gauges).toContainEqual({
      Name: 'transitkit_node_sealed',
      Value: 0,
      Labels: {},
    });
    const prom = await call(s, 'GET', '/v1/sys/metrics?format=prometheus');
    expect(prom.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(sample(prom.text, ENCRYPT_200)).toBe(5);

    // The scrape port: no token, the same registry.
    const scraped = await fetch(scrapeUrl);
    expect(scraped.status).toBe(200);
    expect(scraped.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await scraped.text();
    expect(sample(text, ENCRYPT_200)).toBe(5);
    expect(
      sample(
        text,
        'transitkit_crypto_operations_total{operation="encrypt",key_type="aes256-gcm96"}',
      ),
    ).toBe(5);
    expect(sample(text, 'transitkit_node_active')).toBe(1);
    expect(text).toContain('transitkit_process_cpu_user_seconds_total');
    expect(text).toContain('transitkit_storage_operation_duration_seconds_count{adapter="inmem"');
    // No key names, no tokens in any label.
    expect(text).not.toContain('customer-');
    expect(text).not.toContain(s.root);
    // Nothing else on that port.
    expect((await fetch(`http://127.0.0.1:${port}/v1/sys/health`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${port}/v1/transit/keys`)).status).toBe(404);
    const post = await fetch(scrapeUrl, { method: 'POST', body: '{}' });
    expect(post.status).toBe(405);
    expect(await s.stop()).toBe(0);
  });

  it('--unauthenticated-metrics-access serves sys/metrics without a token', async () => {
    const s = await startDev(['--unauthenticated-metrics-access']);
    servers.push(s);
    const r = await call(s, 'GET', '/v1/sys/metrics?format=prometheus', { token: null });
    expect(r.status).toBe(200);
    expect(sample(r.text, 'transitkit_node_sealed')).toBe(0);
    // Other routes still need a token.
    expect((await call(s, 'GET', '/v1/transit/keys?list=true', { token: null })).status).toBe(403);
    expect(await s.stop()).toBe(0);
  });

  it('refuses a bad --metrics-listen (and reads TRANSITKIT_METRICS_LISTEN)', () => {
    expect(() => parseArgs(['server', '--dev', '--metrics-listen', 'nope'])).toThrow(
      /--metrics-listen must be HOST:PORT/,
    );
    expect(() => parseArgs(['server', '--dev', '--metrics-listen', 'nope'])).toThrow(UsageError);
    const cmd = parseArgs(['server', '--dev'], {
      TRANSITKIT_METRICS_LISTEN: '127.0.0.1:9102',
      TRANSITKIT_UNAUTHENTICATED_METRICS_ACCESS: 'true',
    });
    expect(cmd).toMatchObject({
      kind: 'server',
      args: { metricsListen: '127.0.0.1:9102', unauthenticatedMetricsAccess: true },
    });
  });
});

describe.skipIf(SKIP_REDIS)('two processes on one Redis: each reports its own', () => {
  let redis: RedisServer | undefined;
  let dir: string | undefined;
  afterAll(async () => {
    await redis?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the active node reports active 1, the standby 0; requests count where they were served', async () => {
    if (SKIP_REDIS) console.warn(NO_REDIS_REASON);
    redis = await RedisServer.start();
    dir = mkdtempSync(join(tmpdir(), 'transitkit-metrics-'));
    const keyFile = join(dir, 'root.key');
    writeFileSync(keyFile, randomBytes(32).toString('base64'), { mode: 0o600 });
    const root = `root-${randomBytes(12).toString('hex')}`;
    const [portA, portB] = [await freePort(), await freePort()];
    const base = ['--storage', redis.url, '--root-key-file', keyFile, '--listen', '127.0.0.1:0'];
    const a = {
      ...(await startCli([
        ...base,
        '--initial-root-token',
        root,
        '--metrics-listen',
        `127.0.0.1:${portA}`,
      ])),
      root,
    };
    servers.push(a);
    const b = { ...(await startCli([...base, '--metrics-listen', `127.0.0.1:${portB}`])), root };
    servers.push(b);
    for (let i = 0; i < 3; i++) {
      expect(
        (await call(a, 'POST', '/v1/transit/encrypt/shared', { body: { plaintext: 'aGk=' } }))
          .status,
      ).toBe(200);
    }
    expect(
      (await call(b, 'POST', '/v1/transit/encrypt/shared', { body: { plaintext: 'aGk=' } })).status,
    ).toBe(200);
    const scrape = async (port: number) => (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const [textA, textB] = [await scrape(portA), await scrape(portB)];
    expect(sample(textA, 'transitkit_node_active')).toBe(1);
    expect(sample(textB, 'transitkit_node_active')).toBe(0);
    expect(sample(textA, ENCRYPT_200)).toBe(3);
    expect(sample(textB, ENCRYPT_200)).toBe(1);
    expect(textA).toContain('adapter="redis"');
    expect(textB).toContain('adapter="redis"');
    expect(await a.stop()).toBe(0);
    expect(await b.stop()).toBe(0);
  }, 60_000);
});
