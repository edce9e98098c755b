/**
 * `/v1/sys/health` (reference §12): HEAD and GET without a token, every query code,
 * Vault's precedence, 400 `{"errors":[]}` for bad values, `Cache-Control: no-store`;
 * and a sealed or uninitialized node refusing other routes with 503.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandler, type HealthState } from '../../adapters/http/index.js';
import { MemoryStorage, Transit } from '../../src/index.js';
import { type CliServer, call, rawRequest, startDev } from './helpers.js';

function handlerWith(state: HealthState) {
  return createHandler(
    {
      transit: new Transit({ storage: new MemoryStorage(), autoRotate: false }),
      health: { health: () => state },
    },
    { auth: false, version: '9.9.9', clusterName: 'c1', clusterId: 'id-1' },
  );
}

async function health(state: HealthState, query = '', method = 'GET') {
  const h = handlerWith(state);
  const r = await h.dispatch({ method, url: `/v1/sys/health${query}`, headers: () => undefined });
  return {
    status: r?.status,
    body: r?.body === undefined ? undefined : JSON.parse(r.body),
    headers: r?.headers,
  };
}

const ACTIVE = { initialized: true, sealed: false, standby: false };
const STANDBY = { initialized: true, sealed: false, standby: true };
const SEALED = { initialized: true, sealed: true, standby: false };
const UNINIT = { initialized: false, sealed: true, standby: false };

describe('status by state and query codes', () => {
  it.each([
    [ACTIVE, '', 200],
    [STANDBY, '', 429],
    [SEALED, '', 503],
    [UNINIT, '', 501],
    [STANDBY, '?standbyok=true', 200],
    [STANDBY, '?standbyok=True', 200],
    [STANDBY, '?standbyok=1&activecode=204', 204],
    [STANDBY, '?standbycode=299', 299],
    [ACTIVE, '?activecode=202', 202],
    [SEALED, '?sealedcode=299&standbyok=true', 299],
    [UNINIT, '?uninitcode=299&sealedcode=298', 299],
    [SEALED, '?perfstandbyok=true&drsecondarycode=400&performancestandbycode=401', 503],
  ])('%j %s → %i', async (state, query, status) => {
    expect((await health(state, query)).status).toBe(status);
  });

  it.each([
    '?standbyok=yes',
    '?perfstandbyok=2',
    '?activecode=abc',
    '?sealedcode=12',
    '?uninitcode=600',
    '?standbycode=',
    '?activecode=',
    '?sealedcode',
  ])('bad value %s → 400 {"errors":[]} (an empty code too: Atoi("") fails)', async (query) => {
    const r = await health(ACTIVE, query);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ errors: [] });
  });
});

describe('body', () => {
  it('has the spec fields; cluster fields only when unsealed', async () => {
    const now = Math.floor(Date.now() / 1000);
    const active = (await health(ACTIVE)).body;
    expect(active).toMatchObject({
      initialized: true,
      sealed: false,
      standby: false,
      replication_performance_mode: 'disabled',
      replication_dr_mode: 'disabled',
      version: '9.9.9',
      cluster_name: 'c1',
      cluster_id: 'id-1',
    });
    expect(Math.abs(active.server_time_utc - now)).toBeLessThan(5);
    const sealed = (await health(SEALED)).body;
    expect(sealed.cluster_name).toBeUndefined();
    expect(sealed.cluster_id).toBeUndefined();
  });

  it("a sealed or uninitialised node is standby, its replication modes unknown (Vault's core)", async () => {
    for (const state of [SEALED, UNINIT]) {
      expect((await health(state)).body).toMatchObject({
        sealed: true,
        standby: true,
        performance_standby: false,
        replication_performance_mode: 'unknown',
        replication_dr_mode: 'unknown',
      });
    }
    // An unsealed standby reports the active node's modes, which here are always disabled.
    expect((await health(STANDBY)).body).toMatchObject({
      standby: true,
      replication_performance_mode: 'disabled',
      replication_dr_mode: 'disabled',
    });
  });

  it('HEAD has the status and content type, no body; other methods → 405', async () => {
    const head = await health(STANDBY, '', 'HEAD');
    expect(head.status).toBe(429);
    expect(head.body).toBeUndefined();
    expect(head.headers?.['content-type']).toBe('application/json');
    expect((await health(ACTIVE, '', 'POST')).status).toBe(405);
    expect((await health(ACTIVE, '', 'DELETE')).status).toBe(405);
  });
});

describe('sealed and uninitialized nodes refuse other routes', () => {
  it.each([
    [SEALED, 'Vault is sealed'],
    [UNINIT, 'Vault is not initialized'],
  ])('%j → 503 %s', async (state, message) => {
    const h = handlerWith(state);
    const r = await h.dispatch({
      method: 'POST',
      url: '/v1/transit/hash',
      headers: () => undefined,
      body: async () => '{"input":"YQ=="}',
    });
    expect(r?.status).toBe(503);
    expect(JSON.parse(r?.body ?? '')).toEqual({ errors: [message] });
  });
});

describe('over real HTTP (the dev server is active)', () => {
  let server: CliServer;
  beforeAll(async () => {
    server = await startDev();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('GET and HEAD need no token and are not cacheable', async () => {
    const get = await call(server, 'GET', '/v1/sys/health', { token: null });
    expect(get.status).toBe(200);
    expect(get.headers.get('cache-control')).toBe('no-store');
    expect(get.json.initialized).toBe(true);
    const head = await call(server, 'HEAD', '/v1/sys/health?activecode=203', { token: null });
    expect(head.status).toBe(203);
    expect(head.text).toBe('');
    expect(head.headers.get('content-type')).toBe('application/json');
  });

  it('a custom code of 204 or 304 has no body and no Content-Length (keep-alive stays framed)', async () => {
    const get = (q: string, last = false) =>
      `GET /v1/sys/health?${q} HTTP/1.1\r\nHost: x\r\n${last ? 'Connection: close\r\n' : ''}\r\n`;
    const raw = await rawRequest(
      server.url,
      get('activecode=204') + get('activecode=304') + get('activecode=200', true),
    );
    const replies = raw.split(/(?=HTTP\/1\.1 )/);
    expect(replies.map((r) => r.slice(9, 12))).toEqual(['204', '304', '200']);
    for (const r of replies.slice(0, 2)) {
      expect(r.toLowerCase()).not.toContain('content-length');
      expect(r.endsWith('\r\n\r\n')).toBe(true);
    }
    expect(JSON.parse(replies[2]?.split('\r\n\r\n')[1] ?? '').initialized).toBe(true);
  });

  it('ignores a bad token (health is unauthenticated)', async () => {
    const r = await call(server, 'GET', '/v1/sys/health', { token: 'garbage' });
    expect(r.status).toBe(200);
  });
});
