/**
 * RedisStorage behaviours beyond the shared suites: what lands in Redis (layout,
 * hash slot), prefix isolation, list served by ZRANGEBYLEX from the index, lock
 * expiry on the server clock, connect/close ownership, and error mapping (codes,
 * no secrets in messages).
 */
import { inspect } from 'node:util';
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisStorage } from '../../../adapters/redis/index.js';
import { LOCK_ACQUIRE, runScript } from '../../../adapters/redis/scripts.js';
import { isTransitError } from '../../../src/errors.js';
import { NO_REDIS_REASON, RedisServer, SKIP_REDIS } from '../../helpers/redis-server.js';

const b = (s: string): Uint8Array => new TextEncoder().encode(s);
const text = (u: Uint8Array | undefined): string | undefined =>
  u === undefined ? undefined : new TextDecoder().decode(u);

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => undefined,
    (e: unknown) => e,
  );
}

let n = 0;
const freshPrefix = (): string => `s${process.pid}-${++n}:`;

if (SKIP_REDIS) it.skip(`RedisStorage specifics [skipped: ${NO_REDIS_REASON}]`);

describe.skipIf(SKIP_REDIS)('RedisStorage specifics', () => {
  let server: RedisServer;
  let admin: Redis;
  const open: RedisStorage[] = [];
  beforeAll(async () => {
    server = await RedisServer.start();
    admin = new Redis(server.url);
  });
  afterAll(async () => {
    await Promise.all(open.map((s) => s.close()));
    await admin?.quit();
    await server?.destroy();
  });
  const connect = async (prefix = freshPrefix()) => {
    const s = await RedisStorage.connect(server.url, { prefix });
    open.push(s);
    return s;
  };

  it('stores values and the index under the hash tag {prefix}', async () => {
    const s = await connect('app:');
    await s.put('policy/k1', b('v1'));
    await s.put('policy/k2', b('v2'));
    await s.delete('policy/k2');
    const names = (await admin.keys('{app:}*')).sort();
    // Beside them, the writes' outcomes for two minutes (scripts.ts, writeOnce).
    expect(names).toEqual(['{app:}index', '{app:}ops', '{app:}ops:due', '{app:}v:policy/k1']);
    expect(await admin.hlen('{app:}ops')).toBe(3);
    expect((await admin.getBuffer('{app:}v:policy/k1'))?.toString()).toBe('v1');
    expect(await admin.zcard('{app:}index')).toBe(1);
    const lock = await s.lock('leader', 60_000);
    expect(await admin.exists('{app:}lock:leader', '{app:}holder:leader')).toBe(2);
    await lock?.release();
    expect(await admin.exists('{app:}lock:leader', '{app:}holder:leader')).toBe(0);
  });

  it('uses the prefix transitkit: by default', async () => {
    const s = await RedisStorage.connect(server.url);
    try {
      expect(s.prefix).toBe('transitkit:');
      await s.put('k', b('v'));
      expect(await admin.exists('{transitkit:}v:k')).toBe(1);
      await s.delete('k');
    } finally {
      await s.close();
    }
  });

  it('stores with different prefixes share a server without seeing each other', async () => {
    const [x, y] = [await connect(), await connect()];
    const seen: string[] = [];
    await y.watch('', (k) => seen.push(k));
    await x.put('k', b('x'));
    expect(await y.get('k')).toBeUndefined();
    expect(await y.list('')).toEqual([]);
    expect(await y.compareAndSet('k', undefined, b('y'))).toBe(true);
    expect(text(await x.get('k'))).toBe('x');
    expect(await x.lock('leader', 60_000)).toBeDefined();
    expect(await y.lock('leader', 60_000)).toBeDefined();
    await expect.poll(() => seen).toEqual(['k']); // y's own CAS, never x's put
  });

  it('list is one ZRANGEBYLEX with LIMIT on the index: no SCAN, no KEYS, no value reads', async () => {
    const s = await connect();
    const keys = Array.from({ length: 2_000 }, (_, i) => `p/${String(i).padStart(5, '0')}`);
    for (let i = 0; i < keys.length; i += 200) {
      await Promise.all(keys.slice(i, i + 200).map((k) => s.put(k, b('v'))));
    }
    await admin.config('RESETSTAT');
    expect(await s.list('p/', { after: '01000', limit: 3 })).toEqual(['01001', '01002', '01003']);
    const stats = (await admin.info('commandstats'))
      .split('\n')
      .filter((l) => l.startsWith('cmdstat_'))
      .map((l) => l.slice('cmdstat_'.length, l.indexOf(':')))
      .filter((c) => !c.startsWith('config') && c !== 'info');
    expect(stats).toEqual(['zrangebylex']);
  });

  it('re-sends its scripts when the server forgot them (SCRIPT FLUSH, restart)', async () => {
    const s = await connect();
    await s.put('k', b('v1'));
    await admin.script('FLUSH');
    expect(await s.compareAndSet('k', b('v1'), b('v2'))).toBe(true);
    await admin.script('FLUSH');
    await s.delete('k');
    await admin.script('FLUSH');
    await s.put('k', b('v3'));
    expect(text(await s.get('k'))).toBe('v3');
    expect(await s.list('')).toEqual(['k']);
  });

  it('all keys of a store hash to one Cluster slot', async () => {
    const cluster = await RedisServer.start({ cluster: true });
    const client = new Cluster([{ host: '127.0.0.1', port: cluster.port }]);
    try {
      const s = new RedisStorage(client, { prefix: 'tenant-7:' });
      await s.put('transit/policy/a', b('1'));
      await s.put('sys/leases/entry/x', b('2'));
      await s.lock('sys/leases/leader', 60_000);
      const names = (await client.keys('*')).sort();
      expect(names).toEqual([
        '{tenant-7:}holder:sys/leases/leader',
        '{tenant-7:}index',
        '{tenant-7:}lock:sys/leases/leader',
        '{tenant-7:}ops',
        '{tenant-7:}ops:due',
        '{tenant-7:}v:sys/leases/entry/x',
        '{tenant-7:}v:transit/policy/a',
      ]);
      const slots = new Set(names.map((k) => cluster.cli('CLUSTER', 'KEYSLOT', k)));
      expect(slots).toEqual(new Set([cluster.cli('CLUSTER', 'KEYSLOT', 'tenant-7:')]));
      await s.close();
    } finally {
      await client.quit();
      await cluster.destroy();
    }
  });

  describe('lock on the server clock', () => {
    it('a lease expires after its ttl (PX); then another instance takes it', async () => {
      const prefix = freshPrefix();
      const [a, peer] = [await connect(prefix), await connect(prefix)];
      const held = await a.lock('leader', 300);
      expect(held).toBeDefined();
      const pttl = await admin.pttl(`{${prefix}}lock:leader`);
      expect(pttl).toBeGreaterThan(0);
      expect(pttl).toBeLessThanOrEqual(300);
      expect(await peer.lock('leader', 60_000)).toBeUndefined();
      // Bounded wait for the server to expire the key (no event to await).
      await expect
        .poll(() => admin.exists(`{${prefix}}lock:leader`), { timeout: 5_000, interval: 20 })
        .toBe(0);
      const taker = await peer.lock('leader', 60_000);
      expect(taker).toBeDefined();
      expect(await held?.refresh(60_000)).toBe(false); // lost: someone took it
      await held?.release(); // must not free the new holder
      expect(await a.lock('leader', 60_000)).toBeUndefined();
      expect(await taker?.refresh(60_000)).toBe(true);
    });

    it('refresh extends the lease; fractional ttls round up to whole ms', async () => {
      const prefix = freshPrefix();
      const a = await connect(prefix);
      const h = await a.lock('leader', 0.5);
      expect(h).toBeDefined();
      expect(await h?.refresh(120_000)).toBe(true);
      expect(await admin.pttl(`{${prefix}}lock:leader`)).toBeGreaterThan(60_000);
    });

    it('an expired lease nobody took is still its holder’s (as the memory adapter)', async () => {
      const prefix = freshPrefix();
      const [a, peer] = [await connect(prefix), await connect(prefix)];
      const h = await a.lock('leader', 50);
      await expect
        .poll(() => admin.exists(`{${prefix}}lock:leader`), { timeout: 5_000, interval: 10 })
        .toBe(0);
      expect(await h?.refresh(60_000)).toBe(true);
      expect(await peer.lock('leader', 60_000)).toBeUndefined();
      await h?.release();
      expect(await h?.refresh(60_000)).toBe(false); // released: never taken back
      expect(await peer.lock('leader', 60_000)).toBeDefined();
    });

    it('an acquire run twice with one token (a re-sent command) takes the lock both times', async () => {
      // ioredis re-sends a command whose reply a dropped connection lost: the
      // second run must find the lock its own, not another holder's.
      const prefix = freshPrefix();
      const keys = [`{${prefix}}lock:leader`, `{${prefix}}holder:leader`];
      const acquire = () => runScript(admin, LOCK_ACQUIRE, keys, ['token-1', 60_000]);
      expect(await acquire()).toBe(1);
      expect(await acquire()).toBe(1);
      expect(await admin.get(keys[0] as string)).toBe('token-1');
      expect(await runScript(admin, LOCK_ACQUIRE, keys, ['token-2', 60_000])).toBe(0);
      const peer = await connect(prefix);
      expect(await peer.lock('leader', 60_000)).toBeUndefined();
    });

    it('of 20 concurrent takes from two instances exactly one wins', async () => {
      const prefix = freshPrefix();
      const [a, peer] = [await connect(prefix), await connect(prefix)];
      const handles = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 ? a : peer).lock('leader', 60_000)),
      );
      expect(handles.filter((h) => h !== undefined)).toHaveLength(1);
    });
  });

  describe('connect, close and ownership', () => {
    it('close quits a client made by connect, is idempotent; later calls fail', async () => {
      const s = await connect();
      await s.watch('', () => undefined); // opens the subscriber connection
      const clients = async () =>
        String(await admin.client('LIST'))
          .split('\n')
          .filter(Boolean).length;
      const before = await clients();
      await s.close();
      await s.close();
      await expect.poll(clients, { timeout: 5_000 }).toBe(before - 2);
      for (const call of [s.get('k'), s.put('k', b('v')), s.list(''), s.lock('l', 1_000)]) {
        const err = await rejection(call);
        expect(isTransitError(err, 'internal'), String(err)).toBe(true);
        expect((err as Error).message).toMatch(/closed/);
      }
    });

    it('close leaves a client passed to the constructor open', async () => {
      const client = new Redis(server.url);
      try {
        const s = new RedisStorage(client, { prefix: freshPrefix() });
        await s.put('k', b('v'));
        await s.watch('', () => undefined);
        await s.close();
        expect(await client.ping()).toBe('PONG');
        expect(client.status).toBe('ready');
      } finally {
        await client.quit();
      }
    });

    it('refuses bad URLs, prefixes and clients with invalid_request', async () => {
      for (const url of ['', 'http://127.0.0.1:6379', '127.0.0.1:6379', 7]) {
        const err = await rejection(RedisStorage.connect(url as string));
        expect(isTransitError(err, 'invalid_request'), String(url)).toBe(true);
      }
      const err = await rejection(RedisStorage.connect(server.url, { prefix: '{x}' }));
      expect(isTransitError(err, 'invalid_request')).toBe(true);
      expect(() => new RedisStorage({} as Redis)).toThrow(/ioredis/);
    });

    it('a refused connection is internal "Redis is unreachable", without the password', async () => {
      const down = await RedisServer.start();
      const url = `redis://user:hunter2-secret@127.0.0.1:${down.port}/0`;
      await down.destroy();
      const err = await rejection(RedisStorage.connect(url));
      expect(isTransitError(err, 'internal'), String(err)).toBe(true);
      const message = (err as Error).message;
      expect(message).toMatch(/Redis is unreachable/);
      expect(message).toContain(`127.0.0.1:${down.port}`);
      expect(message).not.toContain('hunter2');
    });

    it('a command on a lost server fails as internal "Redis is unreachable"', async () => {
      const lost = await RedisServer.start();
      const client = new Redis(lost.url, { maxRetriesPerRequest: 1, retryStrategy: () => 20 });
      client.on('error', () => undefined);
      try {
        const s = new RedisStorage(client, { prefix: freshPrefix() });
        await s.put('k', b('v'));
        await lost.stop('SIGKILL');
        const err = await rejection(s.get('k'));
        expect(isTransitError(err, 'internal'), String(err)).toBe(true);
        expect((err as Error).message).toMatch(/^RedisStorage: get failed: Redis is unreachable/);
      } finally {
        client.disconnect();
        await lost.destroy();
      }
    });
  });

  it('after a reconnection whose key listing fails, every watcher hears its prefix, and the keys come once listing works', async () => {
    const prefix = freshPrefix();
    const s = await connect(prefix);
    await s.put('b/k', b('1'));
    const seenA: string[] = [];
    const seenB: string[] = [];
    await s.watch('a/', (k) => seenA.push(k));
    await s.watch('b/', (k) => seenB.push(k));
    // The index answers no listing for a moment (the wrong type), then pub/sub drops.
    const index = `{${prefix}}index`;
    await admin.rename(index, `${index}-saved`);
    await admin.set(index, 'not a sorted set');
    server.cli('CLIENT', 'KILL', 'TYPE', 'pubsub');
    await expect
      .poll(() => seenA.includes('a/') && seenB.includes('b/'), { timeout: 10_000 })
      .toBe(true);
    expect(seenB).not.toContain('b/k');
    await admin.del(index);
    await admin.rename(`${index}-saved`, index);
    await expect.poll(() => seenB.includes('b/k'), { timeout: 10_000 }).toBe(true);
  });

  it('stores of one prefix in two databases, or under two keyPrefixes, do not hear each other (pub/sub is server-wide)', async () => {
    const prefix = freshPrefix();
    const db0 = await RedisStorage.connect(server.url, { prefix });
    const db1 = await RedisStorage.connect(server.url.replace(/\/\d*$/, '/1'), { prefix });
    const kpA = new Redis(server.url, { keyPrefix: 'tenant-a:' });
    const kpB = new Redis(server.url, { keyPrefix: 'tenant-b:' });
    const a = new RedisStorage(kpA, { prefix });
    const bb = new RedisStorage(kpB, { prefix });
    try {
      const heard1: string[] = [];
      const heardB: string[] = [];
      await db1.watch('', (k) => heard1.push(k));
      await bb.watch('', (k) => heardB.push(k));
      await db0.put('only-in-db0', b('1'));
      await a.put('only-for-tenant-a', b('1'));
      await db1.put('db1-sentinel', b('1'));
      await bb.put('tenant-b-sentinel', b('1'));
      await expect.poll(() => heard1.includes('db1-sentinel'), { timeout: 5_000 }).toBe(true);
      await expect.poll(() => heardB.includes('tenant-b-sentinel'), { timeout: 5_000 }).toBe(true);
      expect(heard1).toEqual(['db1-sentinel']);
      expect(heardB).toEqual(['tenant-b-sentinel']);
    } finally {
      await Promise.all([db0.close(), db1.close(), a.close(), bb.close()]);
      await Promise.all([kpA.quit(), kpB.quit()]);
    }
  });

  it('a failing script reports the operation, never the value or its bytes', async () => {
    const prefix = freshPrefix();
    const s = await connect(prefix);
    await admin.set(`{${prefix}}index`, 'not a sorted set'); // ZADD will fail: WRONGTYPE
    const secret = 'SECRET-PLAINTEXT-4f1c';
    const err = await rejection(s.put('k', b(secret)));
    expect(isTransitError(err, 'internal'), String(err)).toBe(true);
    expect((err as Error).message).toMatch(/^RedisStorage: put failed: Redis command failed/);
    const everything = inspect(err, { depth: 10, showHidden: true });
    expect(everything).not.toContain(secret);
    expect(everything).not.toContain(Buffer.from(secret).toString('hex').slice(0, 16));
    // The index is changed first, so its failure left the value unwritten.
    expect(await s.get('k')).toBeUndefined();
    await admin.del(`{${prefix}}index`);
    await s.put('k2', b('v'));
    expect(await s.list('')).toEqual(['k2']);
  });
});
