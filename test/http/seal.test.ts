/**
 * A TransitNode behind the HTTP adapter, over real HTTP: health walks all four
 * states (uninitialised 501 → init → sealed 503 → unseal → active 200; a
 * second node on the same store without the leader lock → standby 429, with
 * the query-code overrides), `sys/init`, `sys/unseal` (progress, reset),
 * `sys/seal-status` and `sys/seal` in Vault's shapes, every other route 503
 * while sealed (before any token check), sudo on `sys/seal` and `sys/rotate`,
 * and the seal routes absent from a handler built on fixed services.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createHandler } from '../../adapters/http/index.js';
import { createServer, type TransitkitServer } from '../../adapters/http/node-server.js';
import { TransitNode } from '../../src/node/transit-node.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { Transit } from '../../src/transit/transit.js';
import { b64, call } from './helpers.js';

const servers: TransitkitServer[] = [];
const nodes: TransitNode[] = [];
afterAll(async () => {
  for (const s of servers) await s.close({ drainMs: 0 });
  for (const n of nodes) await n.close();
});

async function serve(node: TransitNode): Promise<{ url: string; root: string }> {
  nodes.push(node);
  const server = createServer(createHandler(node, { clusterName: 'c1' }));
  servers.push(server);
  const { url } = await server.listen(0, '127.0.0.1');
  return { url, root: '' };
}

describe('a sealable node over HTTP', () => {
  it('walks uninitialised → sealed → active, and a second node is standby', async () => {
    const storage = new MemoryStorage();
    const s = await serve(new TransitNode({ storage, leases: { tickMs: false } }));
    const anon = { token: null } as const;
    const healthOf = async (query = '') => {
      const r = await call(s, 'GET', `/v1/sys/health${query}`, anon);
      return { status: r.status, body: r.json };
    };

    // Uninitialised: 501 (or uninitcode), every other route 503 before any token check.
    expect(await healthOf()).toMatchObject({
      status: 501,
      body: { initialized: false, sealed: true, standby: true },
    });
    expect((await healthOf('?uninitcode=299')).status).toBe(299);
    expect((await call(s, 'HEAD', '/v1/sys/health', anon)).status).toBe(501);
    expect((await call(s, 'GET', '/v1/sys/init', anon)).json).toEqual({ initialized: false });
    expect((await call(s, 'GET', '/v1/sys/seal-status', anon)).json).toMatchObject({
      type: 'shamir',
      initialized: false,
      sealed: true,
      t: 0,
      n: 0,
      progress: 0,
    });
    const early = await call(s, 'POST', '/v1/transit/keys/k', anon);
    expect(early.status).toBe(503);
    expect(early.json).toEqual({ errors: ['Vault is not initialized'] });

    // Vault's init options that are not offered are refused, not ignored.
    const pgp = await call(s, 'PUT', '/v1/sys/init', {
      ...anon,
      body: { secret_shares: 1, secret_threshold: 1, pgp_keys: ['abc'] },
    });
    expect(pgp.status).toBe(400);
    expect((await call(s, 'PUT', '/v1/sys/init', { ...anon, body: {} })).status).toBe(400);

    const init = await call(s, 'PUT', '/v1/sys/init', {
      ...anon,
      body: { secret_shares: 3, secret_threshold: 2 },
    });
    expect(init.status).toBe(200);
    expect(Object.keys(init.json).sort()).toEqual(['keys', 'keys_base64', 'root_token']);
    const { keys, keys_base64, root_token } = init.json;
    const again = await call(s, 'PUT', '/v1/sys/init', {
      ...anon,
      body: { secret_shares: 1, secret_threshold: 1 },
    });
    expect(again).toMatchObject({
      status: 400,
      json: { errors: ['Vault is already initialized'] },
    });

    // Sealed: 503 (or sealedcode); transit, token and lease routes 503.
    expect(await healthOf()).toMatchObject({
      status: 503,
      body: { initialized: true, sealed: true },
    });
    expect((await healthOf()).body.cluster_name).toBeUndefined();
    expect((await healthOf('?sealedcode=298')).status).toBe(298);
    for (const [method, path] of [
      ['POST', '/v1/transit/encrypt/k'],
      ['GET', '/v1/auth/token/lookup-self'],
      ['POST', '/v1/sys/leases/lookup'],
      ['GET', '/v1/sys/policy'],
      ['POST', '/v1/sys/seal'],
    ]) {
      const body = method === 'GET' ? undefined : {};
      const r = await call(s, method as string, path as string, { token: root_token, body });
      expect(r.status, path).toBe(503);
      expect(r.json).toEqual({ errors: ['Vault is sealed'] });
    }

    // Unseal: progress, reset, a malformed share (400), then the threshold.
    const u1 = await call(s, 'PUT', '/v1/sys/unseal', { ...anon, body: { key: keys[0] } });
    expect(u1.json).toMatchObject({ sealed: true, progress: 1, t: 2, n: 3 });
    expect(u1.json.nonce).not.toBe('');
    const reset = await call(s, 'PUT', '/v1/sys/unseal', { ...anon, body: { reset: true } });
    expect(reset.json).toMatchObject({ sealed: true, progress: 0, nonce: '' });
    const bad = await call(s, 'PUT', '/v1/sys/unseal', { ...anon, body: { key: 'nothex!' } });
    expect(bad.status).toBe(400);
    expect(bad.text).not.toContain('nothex!');
    await call(s, 'PUT', '/v1/sys/unseal', { ...anon, body: { key: keys_base64[1] } });
    const u2 = await call(s, 'PUT', '/v1/sys/unseal', { ...anon, body: { key: keys[2] } });
    expect(u2.json).toMatchObject({ sealed: false, progress: 0 });

    // Active.
    const active = await healthOf();
    expect(active).toMatchObject({
      status: 200,
      body: { initialized: true, sealed: false, standby: false, cluster_name: 'c1' },
    });
    const root = { url: s.url, root: root_token as string };
    const enc = await call(root, 'POST', '/v1/transit/encrypt/k', {
      body: { plaintext: b64('x') },
    });
    expect(enc.status).toBe(200);

    // A second node on the same store: unsealed, but the first holds the leader lock.
    const second = await serve(new TransitNode({ storage, leases: { tickMs: false } }));
    for (const k of keys.slice(1)) {
      await call(second, 'PUT', '/v1/sys/unseal', { token: null, body: { key: k } });
    }
    const standby = await call(second, 'GET', '/v1/sys/health', anon);
    expect(standby.status).toBe(429);
    expect(standby.json).toMatchObject({ initialized: true, sealed: false, standby: true });
    expect((await call(second, 'GET', '/v1/sys/health?standbyok=true', anon)).status).toBe(200);
    expect((await call(second, 'GET', '/v1/sys/health?standbycode=250', anon)).status).toBe(250);
    // A standby still serves requests (no request forwarding needed: one store).
    const dec = await call({ url: second.url, root: root_token }, 'POST', '/v1/transit/decrypt/k', {
      body: { ciphertext: enc.json.data.ciphertext },
    });
    expect(dec.json.data.plaintext).toBe(b64('x'));

    // Keyring rotation and key status (sudo).
    expect((await call(root, 'PUT', '/v1/sys/rotate')).status).toBe(204);
    const status = (await call(root, 'GET', '/v1/sys/key-status')).json;
    expect(status.data).toEqual({ term: 2, install_time: expect.any(String) });
    expect(Math.abs(Date.parse(status.data.install_time) - Date.now())).toBeLessThan(60_000);

    // sys/seal needs sudo: a token without it is refused, root seals.
    const limited = await call(root, 'POST', '/v1/auth/token/create', {
      body: { policies: ['default'] },
    });
    const weak = limited.json.auth.client_token as string;
    expect((await call(root, 'PUT', '/v1/sys/seal', { token: weak })).status).toBe(403);
    expect((await call(root, 'PUT', '/v1/sys/rotate', { token: weak })).status).toBe(403);
    expect((await call(root, 'PUT', '/v1/sys/seal', { token: null })).status).toBe(403);
    expect((await call(root, 'PUT', '/v1/sys/seal')).status).toBe(204);
    expect((await healthOf()).status).toBe(503);
    expect((await call(root, 'POST', '/v1/transit/encrypt/k', { body: {} })).status).toBe(503);
  });

  it('a handler on fixed services has no seal routes', async () => {
    const h = createHandler(
      { transit: new Transit({ storage: new MemoryStorage(), autoRotate: false }) },
      { auth: false },
    );
    for (const path of ['/v1/sys/init', '/v1/sys/seal-status']) {
      const r = await h.dispatch({ method: 'GET', url: path, headers: () => undefined });
      expect(r?.status, path).toBe(404);
    }
  });
});
