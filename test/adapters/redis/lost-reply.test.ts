/**
 * RedisStorage: a write whose reply is lost with its connection is re-sent by
 * ioredis after it reconnects (`autoResendUnfulfilledCommands`, on by default).
 * The re-send must not take effect a second time: a compare-and-set that
 * committed reports true, a delete or put re-sent after another instance's
 * write leaves that write alone, and a send past its deadline runs nothing.
 * A TCP proxy between the adapter and a real redis-server forwards the write
 * and swallows its reply.
 */
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { RedisStorage } from '../../../adapters/redis/index.js';
import {
  COMPARE_AND_SET,
  DELETE,
  OUTCOME_TTL_MS,
  PUT,
  runScript,
  SERVER_TIME,
} from '../../../adapters/redis/scripts.js';
import { isTransitError } from '../../../src/errors.js';
import { b, text } from '../../helpers/acked-writer.js';
import { NO_REDIS_REASON, RedisServer, SKIP_REDIS } from '../../helpers/redis-server.js';
import { TcpProxy } from '../../helpers/tcp-proxy.js';

if (SKIP_REDIS) it.skip(`RedisStorage lost replies [skipped: ${NO_REDIS_REASON}]`);

describe.skipIf(SKIP_REDIS)('RedisStorage: a write whose reply was lost', () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
  });

  async function setup() {
    const server = await RedisServer.start();
    cleanups.push(() => server.destroy());
    const proxy = await TcpProxy.start(server.port);
    cleanups.push(() => proxy.close());
    const storage = await RedisStorage.connect(`redis://127.0.0.1:${proxy.port}/0`, {
      prefix: 'p:',
    });
    cleanups.push(() => storage.close());
    const direct = await RedisStorage.connect(server.url, { prefix: 'p:' });
    cleanups.push(() => direct.close());
    const admin = new Redis(server.url);
    cleanups.push(() => admin.quit());
    // Load every script and read the server's clock first, so that the armed
    // write goes out as one EVALSHA of its own.
    await storage.put('warm', b('w'));
    await storage.compareAndSet('warm', b('w'), b('w2'));
    await storage.delete('warm');
    return { proxy, storage, direct, admin };
  }

  it('a compare-and-set that committed reports true, and stored its value once', async () => {
    const { proxy, storage, direct } = await setup();
    await storage.put('k', b('v1'));
    proxy.armDrop(COMPARE_AND_SET.sha);
    const swapped = await storage.compareAndSet('k', b('v1'), b('v2'));
    expect(proxy.dropped).toBe(1);
    expect(text(await direct.get('k'))).toBe('v2');
    expect(swapped).toBe(true);
  });

  it("a re-sent delete leaves another instance's write made meanwhile", async () => {
    const { proxy, storage, direct } = await setup();
    await storage.put('k', b('x'));
    proxy.hold(); // the reconnection, and with it the re-send, waits
    proxy.armDrop(DELETE.sha);
    const deleting = storage.delete('k');
    await expect.poll(() => proxy.dropped, { timeout: 5000 }).toBe(1);
    expect(await direct.get('k')).toBeUndefined(); // the delete ran once
    expect(await direct.compareAndSet('k', undefined, b('y'))).toBe(true);
    proxy.release();
    await deleting;
    expect(text(await direct.get('k'))).toBe('y');
  });

  it("a re-sent put does not undo another instance's write made meanwhile", async () => {
    const { proxy, storage, direct } = await setup();
    proxy.hold();
    proxy.armDrop(PUT.sha);
    const putting = storage.put('k', b('mine'));
    await expect.poll(() => proxy.dropped, { timeout: 5000 }).toBe(1);
    expect(await direct.compareAndSet('k', b('mine'), b('theirs'))).toBe(true);
    proxy.release();
    await putting;
    expect(text(await direct.get('k'))).toBe('theirs');
  });

  it('a failed compare-and-set re-sent after the value changed still reports false', async () => {
    const { proxy, storage, direct } = await setup();
    await storage.put('k', b('a'));
    proxy.hold();
    proxy.armDrop(COMPARE_AND_SET.sha);
    const swapping = storage.compareAndSet('k', b('b'), b('c'));
    await expect.poll(() => proxy.dropped, { timeout: 5000 }).toBe(1);
    await direct.put('k', b('b')); // now the expected value is there
    proxy.release();
    expect(await swapping).toBe(false); // the outcome of its one run
    expect(text(await direct.get('k'))).toBe('b');
  });

  it('a send past its deadline runs nothing and reports its outcome as unknown', async () => {
    const { admin, direct } = await setup();
    const keys = ['{p:}v:late', '{p:}index', '{p:}ops', '{p:}ops:due'];
    const member = Buffer.from('late', 'utf16le').swap16();
    const [sec] = (await admin.time()) as [number, number];
    const past = Number(sec) * 1000 - 1000;
    const args = [past, OUTCOME_TTL_MS, 'late-one', 'v', member, '{p:}changes:0', 'late'];
    expect(await runScript(admin, PUT, keys, args)).toBe(-1);
    expect(await direct.get('late')).toBeUndefined();
    expect(await admin.hexists('{p:}ops', 'late-one')).toBe(0);
  });

  it('keeps each outcome about two minutes, in a hash, and drops those past due', async () => {
    const { storage, admin } = await setup();
    await storage.put('k', b('v'));
    const [sec] = (await admin.time()) as [number, number];
    const due = await admin.zrange('{p:}ops:due', 0, -1, 'WITHSCORES');
    expect(due.length).toBeGreaterThan(0);
    for (let i = 1; i < due.length; i += 2) {
      const left = Number(due[i]) - Number(sec) * 1000;
      expect(left).toBeGreaterThan(OUTCOME_TTL_MS - 5_000);
      expect(left).toBeLessThanOrEqual(OUTCOME_TTL_MS + 1_000);
    }
    expect(await admin.hlen('{p:}ops')).toBe(due.length / 2);
    // No key of the store has a TTL: a volatile-* eviction policy finds nothing to evict.
    for (const name of await admin.keys('{p:}*')) expect(await admin.pttl(name)).toBe(-1);
    // Records past due go, a few with each write.
    await admin.zadd('{p:}ops:due', 1, 'stale-1', 1, 'stale-2');
    await admin.hset('{p:}ops', 'stale-1', '1', 'stale-2', '0');
    await storage.put('k2', b('v'));
    expect(await admin.hexists('{p:}ops', 'stale-1')).toBe(0);
    expect(await admin.zscore('{p:}ops:due', 'stale-2')).toBeNull();
  });

  it('under a volatile-* eviction policy a re-send still finds its outcome', async () => {
    const { proxy, storage, direct, admin } = await setup();
    const used = Number(/used_memory:(\d+)/.exec(await admin.info('memory'))?.[1]);
    await admin.config('SET', 'maxmemory-policy', 'volatile-ttl');
    await admin.config('SET', 'maxmemory', String(used + 4 * 1024 * 1024));
    proxy.hold();
    proxy.armDrop(PUT.sha);
    const putting = storage.put('k', b('mine'));
    await expect.poll(() => proxy.dropped, { timeout: 5000 }).toBe(1);
    expect(await direct.compareAndSet('k', b('mine'), b('theirs'))).toBe(true);
    // Another application's cache entries (with a TTL) fill the memory and get evicted.
    const chunk = 'x'.repeat(16 * 1024);
    for (let i = 0; i < 600; i++) await admin.set(`cache:${i}`, chunk, 'EX', 3600);
    expect(Number(/evicted_keys:(\d+)/.exec(await admin.info('stats'))?.[1])).toBeGreaterThan(0);
    proxy.release();
    await putting;
    expect(text(await direct.get('k'))).toBe('theirs');
  });

  it('a write whose reply ioredis stopped waiting for says its outcome is unknown', async () => {
    const server = await RedisServer.start();
    cleanups.push(() => server.destroy());
    const proxy = await TcpProxy.start(server.port);
    cleanups.push(() => proxy.close());
    const client = new Redis(proxy.port, '127.0.0.1', {
      maxRetriesPerRequest: 1,
      retryStrategy: (n) => (n > 3 ? null : 300),
    });
    client.on('error', () => undefined);
    cleanups.push(async () => client.disconnect());
    const storage = new RedisStorage(client, { prefix: 'p:' });
    const direct = await RedisStorage.connect(server.url, { prefix: 'p:' });
    cleanups.push(() => direct.close());
    await storage.put('warm', b('w'));
    proxy.armDrop(PUT.sha);
    const putting = storage.put('k', b('secret-mine')).then(
      () => undefined,
      (e: unknown) => e,
    );
    await expect.poll(() => proxy.dropped, { timeout: 5000, interval: 5 }).toBe(1);
    // Every reconnection (the first after 300 ms) is refused: ioredis gives up on the write.
    await proxy.close();
    const e = await putting;
    expect(isTransitError(e, 'internal')).toBe(true);
    expect((e as Error).message).toMatch(
      /put failed: Redis is unreachable.*may or may not have been applied/,
    );
    expect((e as Error).message).not.toContain('secret-mine');
    expect(text(await direct.get('k'))).toBe('secret-mine'); // it had run
  });

  it('the adapter reports a late write as unknown and reads the server clock again', async () => {
    const { admin } = await setup();
    // A client that moves the deadline of the next write a second into the
    // past, as if the server's clock had jumped since it was read; the script
    // still runs on the real server. It counts reads of the server's clock.
    const client = new Redis(admin.options.port ?? 6379, '127.0.0.1');
    cleanups.push(() => client.quit());
    let late = false;
    let clockReads = 0;
    const evalsha = client.evalsha.bind(client) as (...a: unknown[]) => Promise<unknown>;
    (client as unknown as { evalsha: unknown }).evalsha = (...a: unknown[]) => {
      if (a[0] === SERVER_TIME.sha) clockReads++;
      if (late && (a[0] === PUT.sha || a[0] === DELETE.sha)) {
        late = false;
        a[6] = 1000; // ARGV[1], after the sha, the key count and four keys
      }
      return evalsha(...a);
    };
    const storage = new RedisStorage(client as Redis, { prefix: 'q:' });
    await storage.put('k', b('1'));
    expect(clockReads).toBe(1);
    late = true;
    const e = await storage.put('k', b('2')).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(isTransitError(e) && e.code).toBe('internal');
    expect(String((e as Error).message)).toMatch(
      /put failed: the write reached Redis after its deadline.*may or may not have been applied/,
    );
    expect(String((e as Error).message)).not.toContain('2');
    expect(text(await storage.get('k'))).toBe('1'); // nothing ran
    await storage.put('k', b('3'));
    expect(clockReads).toBe(2); // read again after the refusal
    expect(text(await storage.get('k'))).toBe('3');
  });
});
