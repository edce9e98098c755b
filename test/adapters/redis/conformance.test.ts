/**
 * RedisStorage: the shared conformance suites (core, lock, watch) against a real
 * redis-server started for this file, twice: standalone (clients made by
 * `RedisStorage.connect`) and a one-node Redis Cluster (an ioredis `Cluster`
 * client passed in), where any script touching two hash slots would fail with
 * CROSSSLOT.
 *
 * Lock and watch fixtures return a `peer`: a second RedisStorage on its own
 * connection over the same prefix, acting as the other node. Each fixture gets
 * a fresh prefix; cleanup deletes the database.
 */
import { Cluster, Redis } from 'ioredis';
import {
  LOCK_CLOCK_TESTS,
  runLockConformance,
  runStorageConformance,
  runWatchConformance,
  type SkipRule,
} from 'transitkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisStorage } from '../../../adapters/redis/index.js';
import { NO_REDIS_REASON, RedisServer, SKIP_REDIS } from '../../helpers/redis-server.js';

const SERVER_CLOCK: SkipRule = {
  reason:
    'lease expiry runs on the Redis server clock, not a FakeClock; real-TTL expiry is covered in redis-storage.test.ts',
  tests: [...LOCK_CLOCK_TESTS],
};

/** The exported suite registers its tests with this file's vitest. */
const harness = { describe, it, expect };

let n = 0;
const freshPrefix = (): string => `t${process.pid}-${++n}:`;

describe.skipIf(SKIP_REDIS)('RedisStorage on standalone Redis', () => {
  let server: RedisServer;
  let admin: Redis;
  beforeAll(async () => {
    server = await RedisServer.start();
    admin = new Redis(server.url);
  });
  afterAll(async () => {
    await admin?.quit();
    await server?.destroy();
  });

  /** A store and a peer (two connections) on one fresh prefix. */
  async function pair() {
    const prefix = freshPrefix();
    const storage = await RedisStorage.connect(server.url, { prefix });
    const peer = await RedisStorage.connect(server.url, { prefix });
    return {
      storage,
      peer,
      cleanup: async () => {
        await storage.close();
        await peer.close();
        await admin.flushdb();
      },
    };
  }

  runStorageConformance(harness, 'redis', async () => {
    const { storage, peer, cleanup } = await pair();
    await peer.close();
    return { storage, cleanup };
  });
  runLockConformance(harness, 'redis', pair, { skip: [SERVER_CLOCK] });
  runWatchConformance(harness, 'redis', pair);
});

describe.skipIf(SKIP_REDIS)('RedisStorage on a one-node Redis Cluster', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await RedisServer.start({ cluster: true });
  });
  afterAll(async () => {
    await server?.destroy();
  });

  /** Two Cluster clients, each wrapped by a RedisStorage on one fresh prefix. */
  async function pair() {
    const prefix = freshPrefix();
    const clients = [0, 1].map(() => new Cluster([{ host: '127.0.0.1', port: server.port }]));
    const [a, b] = clients.map((c) => new RedisStorage(c, { prefix })) as [
      RedisStorage,
      RedisStorage,
    ];
    return {
      storage: a,
      peer: b,
      cleanup: async () => {
        await a.close();
        await b.close();
        server.cli('FLUSHALL');
        await Promise.all(clients.map((c) => c.quit()));
      },
    };
  }

  runStorageConformance(harness, 'redis cluster', pair);
  runLockConformance(harness, 'redis cluster', pair, { skip: [SERVER_CLOCK] });
  runWatchConformance(harness, 'redis cluster', pair);
});

if (SKIP_REDIS) it.skip(`RedisStorage conformance [skipped: ${NO_REDIS_REASON}]`);
