/**
 * A Transit's start-up (settings read, then the storage watch subscription)
 * that failed — one storage read that failed, a subscription that could not
 * connect — is started again by the next call, as the token and ACL stores
 * retry a failed subscription. It used to run once, in the constructor, and
 * every later call rejected with that error forever, though storage answered
 * again; a failure that is not a TransitError is reported as `internal`.
 */
import { isTransitError, MemoryStorage, Transit } from 'transitkit';
import { describe, expect, it } from 'vitest';

describe('Transit start-up', () => {
  it('one failed storage read at construction does not fail every later call', async () => {
    const storage = new MemoryStorage();
    let failures = 1;
    const get = storage.get.bind(storage);
    storage.get = async (key: string) => {
      if (failures > 0) {
        failures--;
        throw new Error('ECONNRESET');
      }
      return get(key);
    };
    const transit = new Transit({ storage, autoRotate: false });
    try {
      await transit.createKey('k').catch(() => undefined); // may fail: storage was down
      // Storage answers again: the next call starts the engine again.
      const r = await transit.createKey('k').then(
        () => 'ok',
        (e: unknown) => (isTransitError(e) ? `${e.code}: ${e.message}` : String(e)),
      );
      expect(r).toBe('ok');
    } finally {
      await transit.close();
    }
  });

  it('one failed watch subscription at construction does not fail every later call', async () => {
    const storage = new MemoryStorage();
    let failures = 1;
    const watch = storage.watch.bind(storage);
    storage.watch = async (prefix, onChange) => {
      if (failures > 0) {
        failures--;
        throw new Error('ECONNREFUSED');
      }
      return watch(prefix, onChange);
    };
    const transit = new Transit({ storage, autoRotate: false });
    try {
      await transit.createKey('k').catch(() => undefined);
      const r = await transit.createKey('k').then(
        () => 'ok',
        (e: unknown) => (isTransitError(e) ? `${e.code}: ${e.message}` : String(e)),
      );
      expect(r).toBe('ok');
    } finally {
      await transit.close();
    }
  });
});

import { RedisStorage } from '../../adapters/redis/index.js';
import { RedisServer, SKIP_REDIS } from '../helpers/redis-server.js';

describe.skipIf(SKIP_REDIS)('Transit start-up on a real Redis', () => {
  it('a Transit made while Redis was away works once Redis is back', async () => {
    const server = await RedisServer.start();
    const storage = await RedisStorage.connect(server.url, { prefix: 'st:' });
    try {
      await server.stop('SIGKILL'); // Redis away (a restart, a failover) as the app starts
      const transit = new Transit({ storage, autoRotate: false });
      const first = await transit.listKeys().then(
        () => 'ok',
        (e: unknown) => String(e),
      );
      await server.restart();
      // Storage itself answers again.
      for (let i = 0; i < 100; i++) {
        if (
          await storage.get('probe').then(
            () => true,
            () => false,
          )
        )
          break;
        await new Promise((r) => setTimeout(r, 100));
      }
      await transit.createKey('k').catch(() => undefined);
      await new Promise((r) => setTimeout(r, 1_500));
      const later = await transit.createKey('k').then(
        () => 'ok',
        (e: unknown) => String(e),
      );
      expect({ first, later }).toEqual({ first, later: 'ok' });
      await transit.close();
    } finally {
      await storage.close();
      await server.destroy();
    }
  }, 60_000);
});
