/**
 * Lease locks on Redis: `SET lock token NX PX ttl`, with a random 128-bit token
 * per take; refresh and release run as Lua scripts that act only for that token.
 *
 * Expiry runs on the Redis server's clock (one clock for every instance). As in
 * the memory adapter, a lease that expired but that nobody took since is still
 * its holder's: `refresh` takes it back. To tell "expired, unclaimed" from
 * "taken and released by someone else", the last taker's token is kept in a
 * separate `holder` key, cleared by its release.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import type { LockHandle } from 'transitkit';
import { checkLockName, lockTtlMs } from '../../src/storage/lock-args.js';
import { redisFailure } from './errors.js';
import type { KeyLayout } from './key-layout.js';
import { LOCK_ACQUIRE, LOCK_REFRESH, LOCK_RELEASE, runScript } from './scripts.js';

/**
 * Take the lock `name` for `ttlMs`, or `undefined` while another holder has it.
 * @throws `TransitError` `invalid_request` for a bad name or TTL; `internal` when Redis fails.
 * @internal
 */
export async function acquireLock(
  client: Redis | Cluster,
  layout: KeyLayout,
  name: string,
  ttlMs: number,
): Promise<LockHandle | undefined> {
  checkLockName(name);
  const ttl = lockTtlMs(ttlMs);
  const keys = [layout.lock(name), layout.holder(name)];
  const token = randomBytes(16).toString('hex');
  let taken: unknown;
  try {
    taken = await runScript(client, LOCK_ACQUIRE, keys, [token, ttl]);
  } catch (e) {
    throw redisFailure('lock', e);
  }
  if (taken !== 1) return undefined;
  return {
    refresh: async (nextTtlMs: number) => {
      const nextTtl = lockTtlMs(nextTtlMs);
      try {
        return (await runScript(client, LOCK_REFRESH, keys, [token, nextTtl])) === 1;
      } catch (e) {
        throw redisFailure('lock refresh', e);
      }
    },
    release: async () => {
      try {
        await runScript(client, LOCK_RELEASE, keys, [token]);
      } catch (e) {
        throw redisFailure('lock release', e);
      }
    },
  };
}
