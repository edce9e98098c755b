/**
 * RedisStorage across redis-server restarts, with `appendonly yes`:
 *
 * - SIGTERM (clean shutdown, `appendfsync everysec`) and SIGKILL (a crash, with
 *   `appendfsync always`) while a writer is running: the same RedisStorage (no
 *   new connect) carries on through ioredis' reconnection, commands issued
 *   during the outage complete once the server is back, and every write that
 *   was acknowledged is there, with its value, in the index;
 * - a CAS counter incremented through the crash ends equal to its last
 *   acknowledged value (no lost and no phantom increment);
 * - watchers are resubscribed, and told about every key once (changes made
 *   while the subscription was down cannot be known otherwise).
 *
 * The writer is observed through events (a promise per acknowledged write),
 * never through sleeps.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RedisStorage } from '../../../adapters/redis/index.js';
import { b, expectAcked, startWriter, text } from '../../helpers/acked-writer.js';
import { NO_REDIS_REASON, RedisServer, SKIP_REDIS } from '../../helpers/redis-server.js';

if (SKIP_REDIS) it.skip(`RedisStorage restarts [skipped: ${NO_REDIS_REASON}]`);

describe.skipIf(SKIP_REDIS)('RedisStorage across redis-server restarts', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  async function setup(appendfsync: 'always' | 'everysec') {
    const server = await RedisServer.start({ appendonly: true, appendfsync });
    cleanups.push(() => server.destroy());
    const storage = await RedisStorage.connect(server.url, { prefix: 'restart:' });
    cleanups.push(() => storage.close());
    return { server, storage };
  }

  for (const [signal, appendfsync] of [
    ['SIGTERM', 'everysec'],
    ['SIGKILL', 'always'],
  ] as const) {
    it(`${signal} (appendfsync ${appendfsync}) mid-write: operations resume, nothing acknowledged is lost`, async () => {
      const { server, storage } = await setup(appendfsync);
      const writer = startWriter(storage, 400);
      await writer.reached(100);
      await server.stop(signal);
      const ackedBeforeStop = [...writer.acked];
      expect(ackedBeforeStop.length).toBeGreaterThanOrEqual(100);
      await server.restart();
      await writer.done; // the same client reconnected; the queued writes went through
      expect(writer.acked).toHaveLength(400);
      expect(writer.unknown).toEqual([]); // re-sent writes settle: no unknown outcome
      await expectAcked(storage, writer.acked);
      expect(await storage.list('restart/')).toHaveLength(400);

      // And once more, with nothing in flight: data survives a second restart.
      await server.stop(signal);
      await server.restart();
      await expectAcked(storage, ackedBeforeStop);
      await storage.put('after', b('ok'));
      expect(text(await storage.get('after'))).toBe('ok');
    });
  }

  it('a CAS counter driven through a SIGKILL ends at its last acknowledged value', async () => {
    const { server, storage } = await setup('always');
    let acked = 0;
    let reachedResolve!: () => void;
    const reached50 = new Promise<void>((r) => {
      reachedResolve = r;
    });
    const counter = (async () => {
      while (acked < 200) {
        const cur = await storage.get('counter');
        const value = cur === undefined ? 0 : Number(text(cur));
        if (await storage.compareAndSet('counter', cur, b(String(value + 1)))) {
          acked = value + 1;
          if (acked === 50) reachedResolve();
        }
      }
    })();
    await reached50;
    await server.stop('SIGKILL');
    const atKill = acked;
    await server.restart();
    // The first read after the crash already holds every acknowledged increment.
    expect(Number(text(await storage.get('counter')))).toBeGreaterThanOrEqual(atKill);
    await counter;
    expect(text(await storage.get('counter'))).toBe(String(acked));
    expect(acked).toBe(200);
  });

  it('watchers are resubscribed and told about every key after a restart', async () => {
    const { server, storage } = await setup('everysec');
    const other = await RedisStorage.connect(server.url, { prefix: 'restart:' });
    cleanups.push(() => other.close());
    await storage.put('policy/a', b('1'));
    await storage.put('policy/b', b('1'));
    await storage.put('other/x', b('1'));
    const seen: string[] = [];
    const sawAll = (keys: string[]) =>
      expect.poll(() => keys.every((k) => seen.includes(k)), { timeout: 10_000 }).toBe(true);
    await storage.watch('policy/', (k) => seen.push(k));

    await server.stop('SIGTERM');
    await server.restart();
    // The replay after resubscription: the prefix itself (anything may have
    // changed, deletions included), then every key under it, once.
    await sawAll(['policy/', 'policy/a', 'policy/b']);
    expect([...seen].sort()).toEqual(['policy/', 'policy/a', 'policy/b']);

    // Live notifications flow again, from another instance.
    await other.put('policy/c', b('1'));
    await sawAll(['policy/c']);
    expect(seen.filter((k) => k === 'policy/c')).toHaveLength(1);
    expect(seen).not.toContain('other/x');
  });
});
