/**
 * PrometheusMetrics (adapters/http/metrics-prometheus.ts) on prom-client: one
 * instrument per definition, kinds checked, gauges read at scrape time from
 * every callback (a failing one left out), its own registry per instance;
 * Vault's JSON summary (metrics-json.ts); the scrape listener
 * (metrics-server.ts); createHandler's option checks.
 */

import { Registry } from 'prom-client';
import { METRICS, MemoryStorage, type MetricDefinition, Transit } from 'transitkit';
import { createHandler } from 'transitkit/http';
import { metricsListener, PrometheusMetrics } from 'transitkit/http/node';
import { describe, expect, it } from 'vitest';
import { vaultSummary } from '../../adapters/http/metrics-json.js';

const line = (text: string, series: string) =>
  text.split('\n').find((l) => l.startsWith(`${series} `));

describe('PrometheusMetrics', () => {
  it('makes one instrument per definition and exposes Prometheus text', async () => {
    const m = new PrometheusMetrics();
    const a = m.counter(METRICS.cryptoOperations);
    const b = m.counter(METRICS.cryptoOperations);
    a.add(2, { operation: 'encrypt', key_type: 'aes256-gcm96' });
    b.add(1, { operation: 'encrypt', key_type: 'aes256-gcm96' });
    m.histogram(METRICS.batchSize).record(7, { operation: 'encrypt' });
    m.histogram(METRICS.batchSize).record(3, { operation: 'encrypt' });
    const text = await m.prometheus();
    expect(m.prometheusContentType).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(text).toContain('# HELP transitkit_crypto_operations_total Cryptographic operations');
    expect(
      line(text, 'transitkit_crypto_operations_total{operation="encrypt",key_type="aes256-gcm96"}'),
    ).toMatch(/ 3$/);
    expect(line(text, 'transitkit_batch_size_bucket{le="5",operation="encrypt"}')).toMatch(/ 1$/);
    expect(line(text, 'transitkit_batch_size_bucket{le="10",operation="encrypt"}')).toMatch(/ 2$/);
    expect(line(text, 'transitkit_batch_size_sum{operation="encrypt"}')).toMatch(/ 10$/);
  });

  it('finds series by value for unfrozen labels, by identity for frozen ones; checks labels and values', async () => {
    const m = new PrometheusMetrics();
    const c = m.counter(METRICS.cryptoOperations);
    const mutable = { operation: 'encrypt', key_type: 'aes256-gcm96' };
    c.add(1, mutable);
    mutable.operation = 'decrypt'; // an unfrozen object is looked up by its values each time
    c.add(1, mutable);
    const frozen = Object.freeze({ operation: 'sign', key_type: 'ed25519' });
    c.add(2, frozen);
    c.add(3, frozen);
    const text = await m.prometheus();
    const at = (op: string, type: string) =>
      line(text, `transitkit_crypto_operations_total{operation="${op}",key_type="${type}"}`);
    expect(at('encrypt', 'aes256-gcm96')).toMatch(/ 1$/);
    expect(at('decrypt', 'aes256-gcm96')).toMatch(/ 1$/);
    expect(at('sign', 'ed25519')).toMatch(/ 5$/);
    expect(() => c.add(1, { operation: 'encrypt' })).toThrow(/takes the labels/);
    expect(() => c.add(1, { operation: 'x', key_type: 'y', name: 'orders' })).toThrow(
      /takes the labels/,
    );
    expect(() => c.add(-1, frozen)).toThrow(/not a valid value/);
    const h = m.histogram(METRICS.leaseExpiryLag);
    expect(() => h.record(Number.NaN)).toThrow(/not a valid value/);
    h.record(0.05);
    h.record(7);
    h.record(99_999);
    const lag = await m.prometheus();
    expect(line(lag, 'transitkit_lease_expiry_lag_seconds_bucket{le="0.01"}')).toMatch(/ 0$/);
    expect(line(lag, 'transitkit_lease_expiry_lag_seconds_bucket{le="0.1"}')).toMatch(/ 1$/);
    expect(line(lag, 'transitkit_lease_expiry_lag_seconds_bucket{le="10"}')).toMatch(/ 2$/);
    expect(line(lag, 'transitkit_lease_expiry_lag_seconds_bucket{le="3600"}')).toMatch(/ 2$/);
    expect(line(lag, 'transitkit_lease_expiry_lag_seconds_bucket{le="+Inf"}')).toMatch(/ 3$/);
    expect(line(lag, 'transitkit_lease_expiry_lag_seconds_count')).toMatch(/ 3$/);
    m.registry.resetMetrics();
    expect(line(await m.prometheus(), 'transitkit_lease_expiry_lag_seconds_count')).toBeUndefined();
  });

  it('refuses a definition of another kind under a known name', () => {
    const m = new PrometheusMetrics();
    m.counter(METRICS.cryptoOperations);
    expect(() => m.histogram(METRICS.cryptoOperations)).toThrow(/is a counter/);
    const fake: MetricDefinition = { ...METRICS.batchSize, kind: 'counter' };
    m.histogram(METRICS.batchSize);
    expect(() => m.counter(fake)).toThrow(/already a histogram/);
    m.gauge(METRICS.nodeSealed, () => undefined);
    expect(() => m.counter({ ...METRICS.nodeSealed, kind: 'counter' })).toThrow(/is a gauge/);
    expect(() => m.gauge(METRICS.cryptoOperations, () => undefined)).toThrow(/is a counter/);
  });

  it('reads every gauge callback at scrape time; a failing one is left out; removal works', async () => {
    const m = new PrometheusMetrics();
    let sealed = 1;
    const remove = m.gauge(METRICS.nodeSealed, (observe) => observe(sealed));
    m.gauge(METRICS.leasesActive, async (observe) => observe(4));
    m.gauge(METRICS.leasesIrrevocable, () => {
      throw new Error('storage down');
    });
    let text = await m.prometheus();
    expect(line(text, 'transitkit_node_sealed')).toBe('transitkit_node_sealed 1');
    expect(line(text, 'transitkit_leases_active')).toBe('transitkit_leases_active 4');
    // Unknown, not 0: its only source failed.
    // prom-client writes `Nan` (Prometheus parses NaN in any case).
    expect(line(text, 'transitkit_leases_irrevocable')).toMatch(
      /^transitkit_leases_irrevocable nan$/i,
    );
    expect((await m.vaultJson()).Gauges.map((g) => g.Name)).not.toContain(
      'transitkit_leases_irrevocable',
    );
    sealed = 0;
    text = await m.prometheus();
    expect(line(text, 'transitkit_node_sealed')).toBe('transitkit_node_sealed 0');
    remove();
    text = await m.prometheus();
    expect(line(text, 'transitkit_node_sealed')).toMatch(/^transitkit_node_sealed nan$/i);
  });

  it('keeps each instance in its own registry, or the one given; process metrics on request', async () => {
    const a = new PrometheusMetrics();
    const b = new PrometheusMetrics();
    a.counter(METRICS.keyCacheHits).add(1);
    expect(await b.prometheus()).not.toContain('transitkit_key_cache_hits_total');
    const registry = new Registry();
    const c = new PrometheusMetrics({ registry, processMetrics: true });
    c.counter(METRICS.keyCacheHits).add(5);
    const text = await registry.metrics();
    expect(line(text, 'transitkit_key_cache_hits_total')).toBe('transitkit_key_cache_hits_total 5');
    expect(text).toContain('transitkit_process_cpu_user_seconds_total');
    expect(() => new PrometheusMetrics({ registry: {} as Registry })).toThrow(
      /prom-client Registry/,
    );
  });

  it("summarises in Vault's JSON shape", async () => {
    const m = new PrometheusMetrics();
    m.counter(METRICS.cryptoOperations).add(4, { operation: 'sign', key_type: 'ed25519' });
    const h = m.histogram(METRICS.httpRequestDuration);
    const labels = { route: '/transit/keys/:name', method: 'GET', status: '200' };
    h.record(0.002, labels);
    h.record(0.004, labels);
    m.gauge(METRICS.nodeActive, (observe) => observe(1));
    const json = await m.vaultJson();
    expect(json.Timestamp).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+0000 UTC$/);
    expect(json.Points).toEqual([]);
    expect(json.Gauges).toEqual([{ Name: 'transitkit_node_active', Value: 1, Labels: {} }]);
    expect(json.Counters).toEqual([
      expect.objectContaining({
        Name: 'transitkit_crypto_operations_total',
        Count: 4,
        Sum: 4,
        Labels: { operation: 'sign', key_type: 'ed25519' },
      }),
    ]);
    expect(json.Samples).toHaveLength(1);
    expect(json.Samples[0]).toMatchObject({
      Name: 'transitkit_http_request_duration_seconds',
      Count: 2,
      Labels: labels,
    });
    expect(json.Samples[0]?.Sum).toBeCloseTo(0.006);
    expect(json.Samples[0]?.Mean).toBeCloseTo(0.003);
  });

  it('computes Rate over the time since start, and Mean 0 for an empty sample', () => {
    const now = new Date(Date.UTC(2026, 10, 26, 9, 30, 0));
    const summary = vaultSummary(
      [
        { name: 'c_total', type: 'counter', values: [{ value: 20, labels: {} }] },
        {
          name: 'h',
          type: 'histogram',
          values: [
            { value: 0, labels: { le: 1 }, metricName: 'h_bucket' },
            { value: 0, labels: {}, metricName: 'h_sum' },
            { value: 0, labels: {}, metricName: 'h_count' },
          ],
        },
      ],
      now,
      now.getTime() - 10_000,
    );
    expect(summary.Timestamp).toBe('2026-11-26 09:30:00 +0000 UTC');
    expect(summary.Counters[0]).toMatchObject({ Count: 20, Sum: 20, Rate: 2 });
    expect(summary.Samples).toEqual([
      { Name: 'h', Count: 0, Rate: 0, Sum: 0, Mean: 0, Labels: {} },
    ]);
  });
});

describe('metricsListener (the --metrics-listen port)', () => {
  const fakeRes = () => {
    const out = { status: 0, headers: {} as Record<string, string>, body: undefined as unknown };
    const done = new Promise<typeof out>((resolve) => {
      Object.assign(out, {
        writeHead(status: number, headers: Record<string, string>) {
          out.status = status;
          out.headers = headers;
        },
        end(body?: string) {
          out.body = body;
          resolve(out);
        },
      });
    });
    return { res: out as unknown as Parameters<ReturnType<typeof metricsListener>>[1], done };
  };

  it('serves GET /metrics only', async () => {
    const m = new PrometheusMetrics();
    m.counter(METRICS.keyCacheMisses).add(2);
    const listener = metricsListener(m);
    const ok = fakeRes();
    listener({ method: 'GET', url: '/metrics?x=1' }, ok.res);
    expect(await ok.done).toMatchObject({
      status: 200,
      headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' },
    });
    expect(String((await ok.done).body)).toContain('transitkit_key_cache_misses_total 2');
    const other = fakeRes();
    listener({ method: 'GET', url: '/v1/sys/metrics' }, other.res);
    expect((await other.done).status).toBe(404);
    const post = fakeRes();
    listener({ method: 'POST', url: '/metrics' }, post.res);
    expect(await post.done).toMatchObject({ status: 405, headers: { allow: 'GET, HEAD' } });
  });

  it('answers 500 without detail when collection fails, and logs it', async () => {
    const m = new PrometheusMetrics();
    const errors: string[] = [];
    const failing = Object.assign(Object.create(m), {
      prometheus: () => Promise.reject(new Error('secret detail')),
    });
    const listener = metricsListener(failing, { logger: { error: (msg) => errors.push(msg) } });
    const r = fakeRes();
    listener({ method: 'GET', url: '/metrics' }, r.res);
    const got = await r.done;
    expect(got.status).toBe(500);
    expect(String(got.body)).not.toContain('secret');
    expect(errors).toEqual(['transitkit/metrics: collection failed']);
  });
});

describe('createHandler metrics options', () => {
  const services = () => ({ transit: new Transit({ storage: new MemoryStorage() }) });
  it('refuses a metrics object that cannot export, and a non-boolean unauthenticated flag', () => {
    expect(() => createHandler(services(), { auth: false, metrics: {} as never })).toThrow(
      /metrics must be a PrometheusMetrics/,
    );
    expect(() =>
      createHandler(services(), {
        auth: false,
        metrics: new PrometheusMetrics(),
        unauthenticatedMetricsAccess: 'yes' as never,
      }),
    ).toThrow(/unauthenticatedMetricsAccess must be a boolean/);
  });

  it('serves sys/metrics on fixed services too (auth: false)', async () => {
    const metrics = new PrometheusMetrics();
    const h = createHandler(services(), { auth: false, metrics });
    const r = await h.dispatch({
      method: 'GET',
      url: '/v1/sys/metrics?format=prometheus',
      headers: () => undefined,
    });
    expect(r?.status).toBe(200);
    const again = await metrics.prometheus();
    expect(again).toContain('route="/sys/metrics",method="GET",status="200"');
  });
});
