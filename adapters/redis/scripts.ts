/**
 * The Lua scripts of the Redis adapter, and how they are run.
 *
 * Each script touches only keys of one store (one hash tag, see key-layout.ts),
 * passed in `KEYS`, so it is legal in a Redis Cluster. A script runs atomically:
 * the value, the sorted-set index and the change notification move together.
 * Redis does not roll a script back when a command in it fails, so each script
 * changes the index before the value: a failure (a key of the wrong type, put
 * there by hand) leaves the value untouched. Scripts are sent by SHA1 (`EVALSHA`) and re-sent in full once when the server
 * does not know them (`NOSCRIPT`, e.g. after a restart or a `SCRIPT FLUSH`).
 *
 * @module
 */
import type { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';

/** A Lua script and its SHA1. @internal */
export interface Script {
  readonly source: string;
  readonly sha: string;
}

function script(source: string): Script {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

/**
 * put: KEYS = value, index; ARGV = bytes, member, channel, key.
 * Stores, indexes and publishes.
 */
export const PUT = script(`
redis.call('ZADD', KEYS[2], 0, ARGV[2])
redis.call('SET', KEYS[1], ARGV[1])
redis.call('PUBLISH', ARGV[3], ARGV[4])
return 1
`);

/**
 * delete: KEYS = value, index; ARGV = member, channel, key.
 * Publishes only when a value was removed (as the memory adapter).
 */
export const DELETE = script(`
redis.call('ZREM', KEYS[2], ARGV[1])
local removed = redis.call('DEL', KEYS[1])
if removed == 1 then redis.call('PUBLISH', ARGV[2], ARGV[3]) end
return removed
`);

/**
 * compareAndSet: KEYS = value, index; ARGV = expected present ('1'/'0'),
 * expected bytes, next present ('1'/'0'), next bytes, member, channel, key.
 * Returns 1 when the swap happened. Lua strings compare byte for byte.
 */
export const COMPARE_AND_SET = script(`
local cur = redis.call('GET', KEYS[1])
if ARGV[1] == '1' then
  if cur == false or cur ~= ARGV[2] then return 0 end
elseif cur ~= false then
  return 0
end
if ARGV[3] == '1' then
  redis.call('ZADD', KEYS[2], 0, ARGV[5])
  redis.call('SET', KEYS[1], ARGV[4])
  redis.call('PUBLISH', ARGV[6], ARGV[7])
elseif cur ~= false then
  redis.call('ZREM', KEYS[2], ARGV[5])
  redis.call('DEL', KEYS[1])
  redis.call('PUBLISH', ARGV[6], ARGV[7])
end
return 1
`);

/**
 * lock acquire: KEYS = lock, holder; ARGV = token, ttl ms.
 * SET NX PX; on success remember the taker. The lock already held by this
 * very token is taken too: the same call run again (ioredis re-sends a
 * command whose reply a dropped connection lost) must not find its own lock
 * taken by "someone else" and leave it unheld for a whole TTL.
 */
export const LOCK_ACQUIRE = script(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  redis.call('SET', KEYS[2], ARGV[1])
  return 1
end
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  redis.call('SET', KEYS[2], ARGV[1])
  return 1
end
return 0
`);

/**
 * lock refresh: KEYS = lock, holder; ARGV = token, ttl ms.
 * Extends our lease; an expired lease nobody took since is still ours.
 */
export const LOCK_REFRESH = script(`
local cur = redis.call('GET', KEYS[1])
if cur == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if cur == false and redis.call('GET', KEYS[2]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
`);

/**
 * lock release: KEYS = lock, holder; ARGV = token.
 * Frees only what this token holds.
 */
export const LOCK_RELEASE = script(`
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
if redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('DEL', KEYS[2]) end
return 1
`);

/**
 * Run `s` with `keys` and `args` (EVALSHA, then EVAL on NOSCRIPT).
 * @internal
 */
export async function runScript(
  client: Redis | Cluster,
  s: Script,
  keys: readonly string[],
  args: ReadonlyArray<string | Buffer | number>,
): Promise<unknown> {
  try {
    return await client.evalsha(s.sha, keys.length, ...keys, ...args);
  } catch (e) {
    if (!(e instanceof Error) || !e.message.startsWith('NOSCRIPT')) throw e;
    return client.eval(s.source, keys.length, ...keys, ...args);
  }
}
