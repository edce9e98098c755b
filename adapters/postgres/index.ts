/**
 * `transitkit/adapters/postgres`: shared storage on PostgreSQL for several
 * instances, with compare-and-set, leader locks and change notifications
 * (LISTEN/NOTIFY) for cache invalidation.
 *
 * This entry point is the only public surface of the folder; the other modules
 * (schema and statements, lock, change feed, errors) are implementation details.
 * Node only (`pg`, `node:*`), hence its own subpath. pg 8 is an optional peer
 * dependency: install it to use this adapter.
 *
 * @module
 */

export type {
  PostgresConnectOptions,
  PostgresPool,
  PostgresStorageOptions,
} from './options.js';
export { PostgresStorage } from './postgres-storage.js';
export { postgresSchemaSql } from './schema.js';
