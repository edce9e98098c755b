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
 * How long after it was issued a write may still run, and how long its
 * outcome is kept: see {@link writeOnce}. @internal
 */
export const WRITE_WINDOW_MS = 60_000;
/** Twice the window: outlives any send that arrives before its deadline. @internal */
export const OUTCOME_TTL_MS = 2 * WRITE_WINDOW_MS;

/**
 * Wrap the body of a write script so that it takes effect at most once.
 *
 * ioredis re-sends a command whose reply a dropped connection lost, after it
 * reconnects. Run again, a delete would remove what another instance wrote
 * meanwhile, a put would undo it, and a compare-and-set that committed would
 * report a mismatch with its own value. So every write carries a random id
 * (ARGV[3]) and a deadline on the Redis server's clock (ARGV[1], ms): its
 * first run records its result under the id in the hash `{prefix}ops`
 * (KEYS[3]), due to go {@link OUTCOME_TTL_MS} (ARGV[2]) later by the sorted
 * set `{prefix}ops:due` (KEYS[4]); a re-send returns that result without
 * running again, and a send that arrives after the deadline does not run at
 * all and returns -1 (its outcome is then reported as unknown: an earlier
 * send may have run and its record gone). Each write drops up to eight
 * records past due, so they stay bounded. Records are not keys with a TTL:
 * a `volatile-*` eviction policy would evict them first, and a re-send would
 * then run twice. The body sees its own arguments from ARGV[4] and leaves
 * its result in `r`.
 * @internal
 */
function writeOnce(body: string): Script {
  return script(`
local done = redis.call('HGET', KEYS[3], ARGV[3])
if done then return tonumber(done) end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if now > tonumber(ARGV[1]) then return -1 end
local r = 1
${body}
for _, old in ipairs(redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now, 'LIMIT', 0, 8)) do
  redis.call('HDEL', KEYS[3], old)
  redis.call('ZREM', KEYS[4], old)
end
redis.call('HSET', KEYS[3], ARGV[3], r)
redis.call('ZADD', KEYS[4], now + tonumber(ARGV[2]), ARGV[3])
return r
`);
}

/**
 * put: KEYS = value, index, ops, ops:due; ARGV = deadline, ttl, id, bytes,
 * member, channel, key. Stores, indexes and publishes.
 */
export const PUT = writeOnce(`
redis.call('ZADD', KEYS[2], 0, ARGV[5])
redis.call('SET', KEYS[1], ARGV[4])
redis.call('PUBLISH', ARGV[6], ARGV[7])
`);

/**
 * delete: KEYS = value, index, ops, ops:due; ARGV = deadline, ttl, id,
 * member, channel, key. Publishes only when a value was removed (as the
 * memory adapter).
 */
export const DELETE = writeOnce(`
redis.call('ZREM', KEYS[2], ARGV[4])
r = redis.call('DEL', KEYS[1])
if r == 1 then redis.call('PUBLISH', ARGV[5], ARGV[6]) end
`);

/**
 * compareAndSet: KEYS = value, index, ops, ops:due; ARGV = deadline, ttl, id,
 * expected present ('1'/'0'), expected bytes, next present ('1'/'0'), next
 * bytes, member, channel, key. Leaves 1 when the swap happened. Lua strings
 * compare byte for byte.
 */
export const COMPARE_AND_SET = writeOnce(`
local cur = redis.call('GET', KEYS[1])
if ARGV[4] == '1' then
  if cur == false or cur ~= ARGV[5] then r = 0 end
elseif cur ~= false then
  r = 0
end
if r == 1 then
  if ARGV[6] == '1' then
    redis.call('ZADD', KEYS[2], 0, ARGV[8])
    redis.call('SET', KEYS[1], ARGV[7])
    redis.call('PUBLISH', ARGV[9], ARGV[10])
  elseif cur ~= false then
    redis.call('ZREM', KEYS[2], ARGV[8])
    redis.call('DEL', KEYS[1])
    redis.call('PUBLISH', ARGV[9], ARGV[10])
  end
end
`);

/**
 * The Redis server's clock, in [seconds, microseconds]. KEYS = any key of the
 * store, so that a Cluster asks the node that runs the store's scripts.
 * @internal
 */
export const SERVER_TIME = script(`
local _ = KEYS[1]
return redis.call('TIME')
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
