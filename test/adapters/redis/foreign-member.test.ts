/**
 * RedisStorage when Redis returns something it did not write.
 * `list` once decoded index members outside its error handling (redis-storage.ts
 * `#page`: `members.map(decodeMember)` after `#io`), so an index member of an
 * odd number of bytes (anything not written by this adapter: a hand-made
 * member, another tool or an older layout sharing the prefix) makes `list`
 * throw a raw `RangeError` ("Buffer size must be a multiple of 16-bits")
 * instead of the adapter's documented `TransitError` `internal`; the HTTP
 * adapter turns that into a 500 with the Node message, and a watcher's
 * reconnection report retries it forever. Every other failure of the adapter
 * is a TransitError naming the operation.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisStorage } from '../../../adapters/redis/index.js';
import { isTransitError } from '../../../src/errors.js';
import { RedisServer } from '../../helpers/redis-server.js';

let server: RedisServer;
let admin: Redis;
beforeAll(async () => {
  server = await RedisServer.start();
  admin = new Redis(server.url);
}, 60_000);
afterAll(async () => {
  await admin?.quit();
  await server?.destroy();
});

const b = (s: string) => new TextEncoder().encode(s);

describe('RedisStorage: an index member it did not write', () => {
  it('list fails with TransitError internal (naming list), not a raw RangeError', async () => {
    const prefix = 'foreign:';
    const s = await RedisStorage.connect(server.url, { prefix });
    try {
      await s.put('a', b('1'));
      // A member of odd length (e.g. written as UTF-8 by another tool): 'zz!'.
      await admin.zadd(`{${prefix}}index`, 0, Buffer.from('zz!'));
      let err: unknown;
      try {
        await s.list('');
      } catch (e) {
        err = e;
      }
      expect(err, 'list should fail').toBeDefined();
      expect(isTransitError(err, 'internal'), `got ${String(err)}`).toBe(true);
      expect((err as Error).message).toMatch(/^RedisStorage: list failed/);
    } finally {
      await s.close();
    }
  });
});
