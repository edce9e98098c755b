/**
 * `GET /v1/sys/leader` over real HTTP, in Vault's shape (http/sys_leader.go
 * `handleSysLeaderGet`; its http/sys_leader_test.go body for a core without
 * HA): no token, a bare 405 for other methods, query ignored.
 *
 * - Not HA (a storage without a lock: every instance leads alone): 200
 *   `ha_enabled: false` while uninitialised, sealed and unsealed, as Vault
 *   answers `ErrHANotEnabled` before it looks at the seal.
 * - HA (MemoryStorage's lock): 503 "Vault is sealed" while uninitialised or
 *   sealed; unsealed, the leader says `is_self` with its `active_time`, a
 *   second node is standby; after the leader seals, the second takes over.
 * - A node given its own `Leadership` (the real class) with a rival holding
 *   the lock: standby, then leader, then standby again once its lock lapses.
 * In every state `sys/health`'s `standby` is `!is_self` (one source).
 * - A handler on fixed services has no such route (404), as the seal routes.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createHandler } from '../../adapters/http/index.js';
import { GO_ZERO_TIME, leaderStatus } from '../../adapters/http/leader.js';
import { createServer, type TransitkitServer } from '../../adapters/http/node-server.js';
import type { ServedBy } from '../../adapters/http/route.js';
import { rfc3339 } from '../../src/clock.js';
import { Leadership } from '../../src/node/leadership.js';
import { TransitNode } from '../../src/node/transit-node.js';
import type { StorageAdapter } from '../../src/storage/adapter.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { Transit } from '../../src/transit/transit.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { call } from './helpers.js';

const servers: TransitkitServer[] = [];
const nodes: TransitNode[] = [];
const leaderships: Leadership[] = [];
afterAll(async () => {
  for (const s of servers) await s.close({ drainMs: 0 });
  for (const n of nodes) await n.close();
  for (const l of leaderships) await l.stop();
});

type Served = { url: string; root: string };
const anon = { token: null } as const;

async function serve(node: TransitNode): Promise<Served> {
  nodes.push(node);
  const server = createServer(createHandler(node));
  servers.push(server);
  const { url } = await server.listen(0, '127.0.0.1');
  return { url, root: '' };
}

/** Vault's body for a core without HA (http/sys_leader_test.go `TestSysLeader_get`), in order. */
const NOT_HA = {
  ha_enabled: false,
  is_self: false,
  active_time: GO_ZERO_TIME,
  leader_address: '',
  leader_cluster_address: '',
  performance_standby: false,
  performance_standby_last_remote_wal: 0,
};

const leaderOf = (s: Served) => call(s, 'GET', '/v1/sys/leader', anon);

/** `sys/leader` of an unsealed HA node, checked against `sys/health` of the same node. */
async function haStatus(s: Served): Promise<{ is_self: boolean; active_time: string }> {
  const r = await leaderOf(s);
  expect(r.status, r.text).toBe(200);
  expect(r.headers.get('content-type')).toBe('application/json');
  expect(r.headers.get('cache-control')).toBe('no-store');
  expect(Object.keys(r.json)).toEqual(Object.keys(NOT_HA));
  expect(r.json).toEqual({
    ...NOT_HA,
    ha_enabled: true,
    is_self: r.json.is_self,
    active_time: r.json.active_time,
  });
  const h = await call(s, 'GET', '/v1/sys/health?standbyok=true', anon);
  expect(h.json.standby, 'sys/health standby is !is_self').toBe(!r.json.is_self);
  return { is_self: r.json.is_self, active_time: r.json.active_time };
}

/** `PUT sys/init` with one share: the share and the root token. */
async function init(s: Served): Promise<{ key: string; root: string }> {
  const r = await call(s, 'PUT', '/v1/sys/init', {
    ...anon,
    body: { secret_shares: 1, secret_threshold: 1 },
  });
  expect(r.status).toBe(200);
  return { key: r.json.keys[0] as string, root: r.json.root_token as string };
}

async function unseal(key: string, ...servers: Served[]): Promise<void> {
  for (const s of servers) {
    const u = await call(s, 'PUT', '/v1/sys/unseal', { ...anon, body: { key } });
    expect(u.json.sealed).toBe(false);
  }
}

/** `storage` without its lock capability: leadership is then not shared (not HA). */
function withoutLock(storage: MemoryStorage): StorageAdapter {
  return {
    get: storage.get.bind(storage),
    put: storage.put.bind(storage),
    delete: storage.delete.bind(storage),
    list: storage.list.bind(storage),
    compareAndSet: storage.compareAndSet.bind(storage),
    close: storage.close.bind(storage),
  };
}

describe('GET /v1/sys/leader', () => {
  it('without a shared lock (not HA): Vault’s non-HA body, sealed or not', async () => {
    const storage = withoutLock(new MemoryStorage());
    const node = new TransitNode({ storage, leases: { tickMs: false } });
    expect(node.haEnabled).toBe(false);
    const s = await serve(node);

    // Uninitialised and sealed alike: 200, as Vault's Core.Leader answers ErrHANotEnabled first.
    const early = await leaderOf(s);
    expect(early.status).toBe(200);
    expect(early.text).toBe(JSON.stringify(NOT_HA)); // Vault's fields, in Vault's order
    const { key } = await init(s);
    expect((await leaderOf(s)).json).toEqual(NOT_HA);

    // Unsealed: still not HA (is_self false, as Vault); sys/health says active.
    await unseal(key, s);
    const r = await leaderOf(s);
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.text).toBe(JSON.stringify(NOT_HA));
    expect((await call(s, 'GET', '/v1/sys/health', anon)).json.standby).toBe(false);

    // Vault's raw handler: no token needed (a bad one is not looked at), query
    // ignored, other methods a bare 405.
    expect((await call(s, 'GET', '/v1/sys/leader?foo=bar', anon)).json).toEqual(NOT_HA);
    expect((await call(s, 'GET', '/v1/sys/leader', { token: 'not-a-token' })).status).toBe(200);
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const m = await call(s, method, '/v1/sys/leader', anon);
      expect(m.status, method).toBe(405);
      expect(m.json).toEqual({ errors: [] });
    }
    expect((await call(s, 'HEAD', '/v1/sys/leader', anon)).status).toBe(405);
  });

  it('HA on one storage: sealed 503, the leader and a standby, then a takeover', async () => {
    const clock = new FakeClock();
    const storage = new MemoryStorage({ clock });
    const secondNode = new TransitNode({ storage, clock, leases: { tickMs: false } });
    const first = await serve(new TransitNode({ storage, clock, leases: { tickMs: false } }));
    const second = await serve(secondNode);
    expect(secondNode.haEnabled).toBe(true);

    // Uninitialised, then sealed: Vault's ErrSealed, 503.
    const sealed503 = async (s: Served, when: string) => {
      const r = await leaderOf(s);
      expect(r.status, when).toBe(503);
      expect(r.json).toEqual({ errors: ['Vault is sealed'] });
    };
    await sealed503(first, 'uninitialised');
    const { key, root } = await init(first);
    await sealed503(first, 'sealed');
    await sealed503(second, 'sealed');

    const unsealedAt = clock.now();
    await unseal(key, first, second);
    expect(await haStatus(first)).toEqual({ is_self: true, active_time: rfc3339(unsealedAt) });
    expect(await haStatus(second)).toEqual({ is_self: false, active_time: GO_ZERO_TIME });
    expect((await call(second, 'GET', '/v1/sys/health', anon)).status).toBe(429);

    // The leader seals (releasing the lock): 503 there; the standby takes over on its next try.
    expect((await call({ url: first.url, root }, 'PUT', '/v1/sys/seal')).status).toBe(204);
    await sealed503(first, 'sealed again');
    clock.advance(1_500);
    expect(await secondNode.leases.leadership.ensure()).toBe(true);
    expect(await haStatus(second)).toEqual({
      is_self: true,
      active_time: rfc3339(unsealedAt + 1_500),
    });
    expect((await call(second, 'GET', '/v1/sys/health', anon)).status).toBe(200);
  });

  it('a node on its own Leadership: standby behind a rival, leader, then lapsed', async () => {
    const clock = new FakeClock();
    const storage = new MemoryStorage({ clock });
    const opts = { storage, clock, ttlMs: 10_000, refreshMs: 2_500 };
    const rival = new Leadership(opts);
    const mine = new Leadership(opts);
    leaderships.push(rival, mine);
    expect(await rival.ensure()).toBe(true);

    const node = new TransitNode({ storage, clock, leases: { tickMs: false, leadership: mine } });
    expect(node.haEnabled).toBe(true); // from the leadership, while sealed too
    const s = await serve(node);
    expect((await leaderOf(s)).status).toBe(503);
    await unseal((await init(s)).key, s);
    expect(await haStatus(s)).toEqual({ is_self: false, active_time: GO_ZERO_TIME });

    await rival.stop();
    clock.advance(250);
    expect(await mine.ensure()).toBe(true);
    const since = clock.now();
    expect(await haStatus(s)).toEqual({ is_self: true, active_time: rfc3339(since) });
    clock.advance(5_000);
    expect(await mine.ensure()).toBe(true); // a refresh keeps the time it became leader
    expect((await haStatus(s)).active_time).toBe(rfc3339(since));

    // No refresh for a whole TTL: it counts itself a standby, in both routes.
    clock.advance(10_000);
    expect(await haStatus(s)).toEqual({ is_self: false, active_time: GO_ZERO_TIME });
  });

  it('a lock that lapses between health and the answer: is_self and active_time from one read', async () => {
    const clock = new FakeClock();
    const storage = new MemoryStorage({ clock });
    const mine = new Leadership({ storage, clock, ttlMs: 10_000, refreshMs: 2_500 });
    leaderships.push(mine);
    const node = new TransitNode({ storage, clock, leases: { tickMs: false, leadership: mine } });
    nodes.push(node);
    const { keys } = await node.init({ secret_shares: 1, secret_threshold: 1 });
    await node.unseal({ key: keys[0] as string });
    expect(await mine.ensure()).toBe(true);
    // Health is read while this instance leads; the lock lapses before the body is built.
    const lapsing = {
      health: async () => {
        const state = await node.health();
        expect(state.standby).toBe(false);
        clock.advance(10_000);
        return state;
      },
    };
    const served = { ...node.services(), node, health: lapsing } as unknown as ServedBy;
    const body = await leaderStatus(served);
    expect({ is_self: body.is_self, active_time: body.active_time }).toEqual({
      is_self: false,
      active_time: GO_ZERO_TIME,
    });
  });

  it('leader_address: the active node’s apiAddr on every node, replaced on takeover', async () => {
    const clock = new FakeClock();
    const storage = new MemoryStorage({ clock });
    const node = (apiAddr?: string) =>
      new TransitNode({
        storage,
        clock,
        leases: { tickMs: false },
        ...(apiAddr ? { apiAddr } : {}),
      });
    const aNode = node('https://vault-a.example:8200');
    const bNode = node('http://10.0.0.2:8200');
    const a = await serve(aNode);
    const b = await serve(bNode);
    const { key, root } = await init(a);
    await unseal(key, a, b);
    const addressOf = async (s: Served) => (await leaderOf(s)).json.leader_address;
    expect((await leaderOf(a)).json).toMatchObject({ is_self: true });
    expect(await addressOf(a)).toBe('https://vault-a.example:8200');
    expect(await addressOf(b)).toBe('https://vault-a.example:8200');
    // The advertisement is stored below the barrier: no address in the clear.
    for (const k of await storage.list('')) {
      expect(new TextDecoder().decode((await storage.get(k)) ?? new Uint8Array())).not.toContain(
        'vault-a.example',
      );
    }

    // A takes no part any more: B takes the lock and names itself, here and on a new node.
    expect((await call({ url: a.url, root }, 'PUT', '/v1/sys/seal')).status).toBe(204);
    clock.advance(1_500);
    expect(await bNode.leases.leadership.ensure()).toBe(true);
    expect(await addressOf(b)).toBe('http://10.0.0.2:8200');
    const c = await serve(node());
    await unseal(key, c);
    expect((await leaderOf(c)).json).toMatchObject({
      is_self: false,
      leader_address: 'http://10.0.0.2:8200',
    });

    // A leader without an address replaces the last one with "".
    expect((await call({ url: b.url, root }, 'PUT', '/v1/sys/seal')).status).toBe(204);
    clock.advance(1_500);
    expect(await nodes[nodes.length - 1]?.leases.leadership.ensure()).toBe(true);
    expect((await leaderOf(c)).json).toMatchObject({ is_self: true, leader_address: '' });
  });

  it('a node on its own Leadership advertises once per gain, however often it was unsealed', async () => {
    const clock = new FakeClock();
    const memory = new MemoryStorage({ clock });
    let adverts = 0;
    const storage: StorageAdapter & Pick<MemoryStorage, 'lock'> = {
      ...withoutLock(memory),
      lock: memory.lock.bind(memory),
      put(key: string, value: Uint8Array) {
        if (key === 'sys/leader/advert') adverts++;
        return memory.put(key, value);
      },
    };
    const mine = new Leadership({ storage: memory, clock, ttlMs: 10_000, refreshMs: 2_500 });
    leaderships.push(mine);
    const node = new TransitNode({
      storage,
      clock,
      apiAddr: 'https://a.example:8200',
      leases: { tickMs: false, leadership: mine },
    });
    nodes.push(node);
    const { keys } = await node.init({ secret_shares: 1, secret_threshold: 1 });
    for (let round = 1; round <= 3; round++) {
      await node.unseal({ key: keys[0] as string });
      // The caller's leadership outlives each unsealed period: lose it and take it again.
      await mine.stop();
      const before = adverts;
      expect(await mine.ensure()).toBe(true);
      await new Promise((r) => setTimeout(r, 10));
      expect(adverts - before, `writes on one gain, unsealed period ${round}`).toBe(1);
      await node.seal();
    }
  });

  it('apiAddr must be an http or https URL', () => {
    for (const apiAddr of ['vault.example:8200', 'ftp://vault.example', 'https://', '', 42]) {
      expect(
        () => new TransitNode({ storage: new MemoryStorage(), apiAddr: apiAddr as never }),
        String(apiAddr),
      ).toThrow(
        expect.objectContaining({
          code: 'invalid_request',
          message: "'apiAddr' must be an http or https URL, such as https://vault.example:8200",
        }),
      );
    }
    expect(
      new TransitNode({ storage: new MemoryStorage(), apiAddr: 'http://[::1]:8200' }).apiAddr,
    ).toBe('http://[::1]:8200');
  });

  it('is not served on fixed services (no node): 404, as the seal routes', async () => {
    const storage = new MemoryStorage();
    const server = createServer(
      createHandler({ transit: new Transit({ storage, autoRotate: false }) }, { auth: false }),
    );
    servers.push(server);
    const { url } = await server.listen(0, '127.0.0.1');
    const r = await call({ url, root: '' }, 'GET', '/v1/sys/leader', anon);
    expect(r.status).toBe(404);
  });
});
