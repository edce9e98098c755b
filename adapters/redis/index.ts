/**
 * `transitkit/adapters/redis`: shared storage on Redis (standalone or Cluster)
 * for several instances, with compare-and-set, leader locks and change
 * notifications for cache invalidation.
 *
 * This entry point is the only public surface of the folder; the other modules
 * (key layout, Lua scripts, lock, change feed) are implementation details.
 * Node only (ioredis, `node:*`), hence its own subpath. ioredis 5 is an optional
 * peer dependency: install it to use this adapter.
 *
 * @module
 */

export type { RedisStorageOptions } from './redis-storage.js';
export { RedisStorage } from './redis-storage.js';
