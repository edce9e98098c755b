/**
 * Several instances on one Redis (design.md, "Concurrency and many instances"):
 * two `Transit` engines, each on its own RedisStorage connection, over one store.
 *
 * - A key created, rotated, reconfigured or deleted by one is seen by the
 *   other's next operation: its cached policy is dropped by `watch`. The test
 *   waits for the notification to reach the other instance (a listener on the
 *   same subscriber, registered after the engine's, so it runs after the engine's
 *   invalidation), then makes exactly one call; no polling on the engine.
 * - Concurrent rotations from both end with contiguous versions (compare-and-set).
 * - One leader at a time: LeaseManagers on both race for the leader lock.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RedisStorage } from '../../../adapters/redis/index.js';
import { isTransitError, LeaseManager, Transit } from '../../../src/index.js';
import { keyspace } from '../../../src/storage/keyspace.js';
import { NO_REDIS_REASON, RedisServer, SKIP_REDIS } from '../../helpers/redis-server.js';

const plaintext = btoa('attack at dawn');

/** Resolves on the next notification of `key` after the call, on `storage`. */
class Notifications {
  readonly #waiters = new Map<string, Array<() => void>>();
  static async on(storage: RedisStorage): Promise<Notifications> {
    const n = new Notifications();
    await storage.watch('', (key) => {
      const waiting = n.#waiters.get(key) ?? [];
      n.#waiters.delete(key);
      for (const resolve of waiting) resolve();
    });
    return n;
  }
  next(key: string): Promise<void> {
    return new Promise((resolve) => {
      this.#waiters.set(key, [...(this.#waiters.get(key) ?? []), resolve]);
    });
  }
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => undefined,
    (e: unknown) => e,
  );
}

if (SKIP_REDIS) it.skip(`Transit on Redis [skipped: ${NO_REDIS_REASON}]`);

describe.skipIf(SKIP_REDIS)('two instances on one Redis', () => {
  let server: RedisServer;
  let n = 0;
  const cleanups: Array<() => Promise<void>> = [];
  beforeAll(async () => {
    server = await RedisServer.start();
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  afterAll(async () => {
    await server?.destroy();
  });

  async function twoStorages() {
    const prefix = `multi${++n}:`;
    const sa = await RedisStorage.connect(server.url, { prefix });
    const sb = await RedisStorage.connect(server.url, { prefix });
    cleanups.push(async () => {
      await sa.close();
      await sb.close();
    });
    return { sa, sb };
  }

  /** Two engines (timers off), ready; `seenByB` hears B's storage after B's engine. */
  async function twoEngines() {
    const { sa, sb } = await twoStorages();
    const a = new Transit({ storage: sa, autoRotate: false });
    const b = new Transit({ storage: sb, autoRotate: false });
    cleanups.push(async () => {
      await a.close();
      await b.close();
    });
    await a.readKeysConfig(); // both engines loaded and watching
    await b.readKeysConfig();
    const seenByB = await Notifications.on(sb);
    return { a, b, seenByB };
  }

  const policy = keyspace.policy('orders');

  it('a key created by one is usable by the other', async () => {
    const { a, b, seenByB } = await twoEngines();
    expect(isTransitError(await rejection(b.readKey('orders')), 'not_found')).toBe(true);
    const created = seenByB.next(policy);
    await a.createKey('orders');
    await created;
    const { ciphertext } = await b.encrypt('orders', { plaintext });
    expect((await a.decrypt('orders', { ciphertext })).plaintext).toBe(plaintext);
  });

  it('a rotation by one is used by the other’s next encrypt', async () => {
    const { a, b, seenByB } = await twoEngines();
    await a.createKey('orders');
    const v1 = await b.encrypt('orders', { plaintext }); // B now caches version 1
    expect(v1.ciphertext.startsWith('vault:v1:')).toBe(true);
    const rotated = seenByB.next(policy);
    await a.rotateKey('orders');
    await rotated;
    const v2 = await b.encrypt('orders', { plaintext });
    expect(v2.ciphertext.startsWith('vault:v2:')).toBe(true);
    expect((await b.readKey('orders')).latest_version).toBe(2);
  });

  it('a config change and a delete by one are seen by the other’s next call', async () => {
    const { a, b, seenByB } = await twoEngines();
    await a.createKey('orders');
    const { ciphertext: old } = await b.encrypt('orders', { plaintext });
    await a.rotateKey('orders');
    expect((await b.decrypt('orders', { ciphertext: old })).plaintext).toBe(plaintext);

    let changed = seenByB.next(policy);
    await a.updateKeyConfig('orders', { min_decryption_version: 2, deletion_allowed: true });
    await changed;
    const refused = await rejection(b.decrypt('orders', { ciphertext: old }));
    expect(isTransitError(refused), String(refused)).toBe(true);
    expect((await b.readKey('orders')).deletion_allowed).toBe(true);

    changed = seenByB.next(policy);
    await a.deleteKey('orders');
    await changed;
    expect(isTransitError(await rejection(b.readKey('orders')), 'not_found')).toBe(true);
  });

  it('concurrent rotations from both end with contiguous versions', async () => {
    const { a, b } = await twoEngines();
    await a.createKey('orders');
    await b.readKey('orders');
    const rotations = Array.from({ length: 24 }, (_, i) => (i % 2 ? a : b).rotateKey('orders'));
    const results = await Promise.all(rotations);
    const latest = results.map((r) => r.latest_version).sort((x, y) => x - y);
    expect(latest).toEqual(Array.from({ length: 24 }, (_, i) => i + 2)); // each rotation its own version
    const info = await a.readKey('orders');
    expect(info.latest_version).toBe(25);
    expect(Object.keys(info.keys).map(Number)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    // Every version encrypts and decrypts on both sides.
    const { ciphertext } = await b.encrypt('orders', { plaintext, key_version: 13 });
    expect((await a.decrypt('orders', { ciphertext })).plaintext).toBe(plaintext);
  });

  it('only one LeaseManager holds the leader lock at a time', async () => {
    const { sa, sb } = await twoStorages();
    const managers = [sa, sb].map((storage) => new LeaseManager({ storage, leaderTtlMs: 60_000 }));
    cleanups.push(async () => {
      for (const m of managers) await m.stop();
    });
    const [ma, mb] = managers as [LeaseManager, LeaseManager];
    for (let round = 0; round < 5; round++) {
      const ticks = await Promise.all([ma.tick(), mb.tick()]);
      expect(ticks.filter((t) => t.leader)).toHaveLength(1);
      expect([ma.isLeader(), mb.isLeader()].filter(Boolean)).toHaveLength(1);
    }
    const [leader, follower] = ma.isLeader() ? [ma, mb] : [mb, ma];
    await leader.stop(); // releases the lock
    expect((await follower.tick()).leader).toBe(true);
    expect(follower.isLeader()).toBe(true);
    expect(leader.isLeader()).toBe(false);
  });
});
