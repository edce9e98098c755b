/**
 * `GET /v1/sys/metrics` through `createHandler` in-process (issue #19):
 * Prometheus text and Vault's JSON, the ACL (`read` on `sys/metrics`), the
 * unauthenticated option (answering while sealed too), request metrics by
 * route pattern, bounded label cardinality, and 404 without metrics.
 */
import { MemoryStorage, TransitNode } from 'transitkit';
import { createHandler, type HttpReply } from 'transitkit/http';
import { PrometheusMetrics } from 'transitkit/http/node';
import { describe, expect, it } from 'vitest';

type Handler = ReturnType<typeof createHandler>;

async function call(
  h: Handler,
  method: string,
  url: string,
  token?: string,
  body?: unknown,
): Promise<HttpReply> {
  const headers: Record<string, string> = token ? { 'x-vault-token': token } : {};
  const reply = await h.dispatch({
    method,
    url,
    headers: (n) => headers[n],
    body: body === undefined ? undefined : async () => JSON.stringify(body),
  });
  if (!reply) throw new Error('no reply');
  return reply;
}

/** An unsealed node on memory, with metrics on the node and the handler. */
async function setup(options: { open?: boolean } = {}) {
  const metrics = new PrometheusMetrics();
  const node = new TransitNode({
    storage: new MemoryStorage(),
    rootKey: globalThis.crypto.getRandomValues(new Uint8Array(32)),
    initialRootToken: 'root-token',
    metrics,
    storageType: 'inmem',
    leases: { tickMs: false },
  });
  await node.start();
  const handler = createHandler(node, {
    metrics,
    unauthenticatedMetricsAccess: options.open ?? false,
  });
  return { metrics, node, handler, root: 'root-token' };
}

/** The value of one Prometheus sample line (`name{labels} value`). */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('GET /v1/sys/metrics', () => {
  it('serves the Prometheus text exposition with the engine, node and request metrics', async () => {
    const { handler, root, node } = await setup();
    expect((await call(handler, 'POST', '/v1/transit/keys/orders', root, {})).status).toBe(200);
    const enc = await call(handler, 'POST', '/v1/transit/encrypt/orders', root, {
      batch_input: [{ plaintext: 'aGk=' }, { plaintext: 'aGk=' }, { plaintext: 'aGk=' }],
    });
    expect(enc.status).toBe(200);
    await call(handler, 'POST', '/v1/transit/encrypt/orders', root, { plaintext: 'aGk=' });
    const r = await call(handler, 'GET', '/v1/sys/metrics?format=prometheus', root);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = r.body as string;
    expect(text).toContain('# TYPE transitkit_http_request_duration_seconds histogram');
    expect(
      sample(
        text,
        'transitkit_http_request_duration_seconds_count{route="/transit/encrypt/:name",method="POST",status="200"}',
      ),
    ).toBe(2);
    expect(
      sample(
        text,
        'transitkit_crypto_operations_total{operation="encrypt",key_type="aes256-gcm96"}',
      ),
    ).toBe(4);
    expect(sample(text, 'transitkit_batch_size_count{operation="encrypt"}')).toBe(1);
    expect(sample(text, 'transitkit_batch_size_sum{operation="encrypt"}')).toBe(3);
    expect(sample(text, 'transitkit_node_sealed')).toBe(0);
    expect(sample(text, 'transitkit_node_active')).toBe(1);
    expect(sample(text, 'transitkit_node_initialized')).toBe(1);
    expect(sample(text, 'transitkit_leases_active')).toBe(0);
    expect(sample(text, 'transitkit_key_cache_hits_total')).toBeGreaterThan(0);
    expect(
      sample(
        text,
        'transitkit_storage_operation_duration_seconds_count{adapter="inmem",operation="get"}',
      ),
    ).toBeGreaterThan(0);
    // Key names never become labels.
    expect(text).not.toContain('orders');
    await node.close();
  });

  it("answers Vault's JSON summary without a format", async () => {
    const { handler, root, node } = await setup();
    await call(handler, 'POST', '/v1/transit/keys/k1', root, {});
    const r = await call(handler, 'GET', '/v1/sys/metrics', root);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json');
    const body = JSON.parse(r.body as string);
    expect(Object.keys(body).sort()).toEqual([
      'Counters',
      'Gauges',
      'Points',
      'Samples',
      'Timestamp',
    ]);
    expect(body.Timestamp).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+0000 UTC$/);
    expect(body.Gauges).toContainEqual({ Name: 'transitkit_node_sealed', Value: 0, Labels: {} });
    const req = body.Samples.find(
      (s: { Name: string; Labels: Record<string, string> }) =>
        s.Name === 'transitkit_http_request_duration_seconds' &&
        s.Labels.route === '/transit/keys/:name',
    );
    expect(req).toMatchObject({ Count: 1, Labels: { method: 'POST', status: '200' } });
    expect(req.Sum).toBeGreaterThan(0);
    expect(req.Mean).toBeCloseTo(req.Sum);
    await node.close();
  });

  it('refuses an unknown format with 400', async () => {
    const { handler, root, node } = await setup();
    const r = await call(handler, 'GET', '/v1/sys/metrics?format=xml', root);
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body as string).errors[0]).toContain('unknown');
    await node.close();
  });

  it('needs read on sys/metrics (as Vault)', async () => {
    const { handler, root, node } = await setup();
    expect((await call(handler, 'GET', '/v1/sys/metrics')).status).toBe(403);
    await call(handler, 'POST', '/v1/sys/policies/acl/scraper', root, {
      policy: 'path "sys/metrics" { capabilities = ["read"] }',
    });
    await call(handler, 'POST', '/v1/sys/policies/acl/other', root, {
      policy: 'path "transit/*" { capabilities = ["read"] }',
    });
    const tok = async (policy: string) => {
      const r = await call(handler, 'POST', '/v1/auth/token/create', root, { policies: [policy] });
      return JSON.parse(r.body as string).auth.client_token as string;
    };
    const scraper = await tok('scraper');
    const other = await tok('other');
    expect((await call(handler, 'GET', '/v1/sys/metrics?format=prometheus', scraper)).status).toBe(
      200,
    );
    expect((await call(handler, 'GET', '/v1/sys/metrics', other)).status).toBe(403);
    await node.close();
  });

  it('with unauthenticatedMetricsAccess: no token, and answers while sealed', async () => {
    const { handler, node } = await setup({ open: true });
    const r = await call(handler, 'GET', '/v1/sys/metrics?format=prometheus');
    expect(r.status).toBe(200);
    expect(sample(r.body as string, 'transitkit_node_sealed')).toBe(0);
    await node.seal();
    const sealed = await call(handler, 'GET', '/v1/sys/metrics?format=prometheus');
    expect(sealed.status).toBe(200);
    expect(sample(sealed.body as string, 'transitkit_node_sealed')).toBe(1);
    expect(sample(sealed.body as string, 'transitkit_node_active')).toBe(0);
    // Other routes still need the node unsealed.
    expect((await call(handler, 'GET', '/v1/transit/keys/x')).status).toBe(503);
  });

  it('is not served without metrics (404) and costs nothing there', async () => {
    const node = new TransitNode({
      storage: new MemoryStorage(),
      rootKey: new Uint8Array(32).fill(7),
      initialRootToken: 'root-token',
      leases: { tickMs: false },
    });
    await node.start();
    const handler = createHandler(node);
    expect((await call(handler, 'GET', '/v1/sys/metrics', 'root-token')).status).toBe(404);
    await node.close();
  });

  it('keeps label cardinality bounded: many key names, one series per route', async () => {
    const { handler, root, metrics, node } = await setup();
    for (let i = 0; i < 200; i++) {
      await call(handler, 'POST', `/v1/transit/encrypt/key-${i}`, root, { plaintext: 'aGk=' });
      await call(handler, 'GET', `/v1/transit/no-such-route-${i}/x`, root);
      await call(handler, `VERB${i}`, `/v1/transit/keys/key-${i}`, root);
    }
    const text = await metrics.prometheus();
    const series = text
      .split('\n')
      .filter((l) => l.startsWith('transitkit_http_request_duration_seconds_count'));
    // encrypt 200, the 404 of the unknown paths, the 405 of the odd verbs: a handful, not 600.
    expect(series.length).toBeLessThanOrEqual(4);
    expect(
      sample(
        text,
        'transitkit_http_request_duration_seconds_count{route="/transit/encrypt/:name",method="POST",status="200"}',
      ),
    ).toBe(200);
    expect(text).not.toMatch(/key-\d/);
    expect(text).not.toMatch(/VERB\d/);
    expect(text).not.toContain('root-token');
    const cryptoSeries = text
      .split('\n')
      .filter((l) => l.startsWith('transitkit_crypto_operations_total{'));
    expect(cryptoSeries).toEqual([
      'transitkit_crypto_operations_total{operation="encrypt",key_type="aes256-gcm96"} 200',
    ]);
    await node.close();
  });

  it('serves the same through the fetch binding', async () => {
    const { handler, root, node } = await setup();
    const res = await handler.fetch(
      new Request('http://localhost/v1/sys/metrics?format=prometheus', {
        headers: { 'x-vault-token': root },
      }),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(await res.text()).toContain('# TYPE transitkit_node_sealed gauge');
    await node.close();
  });

  it('each handler and node reports its own metrics', async () => {
    const a = await setup();
    const b = await setup();
    await call(a.handler, 'POST', '/v1/transit/keys/only-a', a.root, {});
    const textA = await a.metrics.prometheus();
    const textB = await b.metrics.prometheus();
    expect(textA).toContain('route="/transit/keys/:name"');
    expect(textB).not.toContain('route="/transit/keys/:name"');
    await a.node.close();
    await b.node.close();
  });
});
