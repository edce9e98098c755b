/**
 * Options of the PostgreSQL adapter, and the `pg.Pool` configuration that
 * {@link PostgresStorage.connect} builds from them.
 *
 * @module
 */
import type { PoolConfig } from 'pg';
import { invalidRequest } from '../../src/errors.js';
// For TSDoc links only.
import type { PostgresStorage } from './postgres-storage.js';
import type { postgresSchemaSql } from './schema.js';

/**
 * What {@link PostgresStorage} needs of a pool: a node-postgres 8 `pg.Pool`
 * fits. Typed structurally so that the adapter's declarations do not depend on
 * `@types/pg`.
 * @public
 */
export interface PostgresPool {
  /** Check out a client (a `pg.PoolClient`). */
  connect(): Promise<unknown>;
  /** Listen for errors of idle clients. */
  on(event: 'error', listener: (err: Error) => void): unknown;
}

/** Options of {@link PostgresStorage}. @public */
export interface PostgresStorageOptions {
  /**
   * The store's table; its locks live in `<table>_locks` and its change feed on
   * channel `<table>_changes`. Stores with different tables share a database
   * without seeing each other. Default `transitkit`. 1 to 48 characters of
   * `a-z`, `0-9`, `_`, not starting with a digit. Resolved through the
   * connection's `search_path`.
   */
  table?: string;
  /**
   * Create the tables on first use when they are missing (default true). With
   * false, call {@link PostgresStorage.migrate} (or apply
   * {@link postgresSchemaSql}) before use.
   */
  migrate?: boolean;
  /**
   * How long a statement keeps retrying while PostgreSQL is unreachable, in ms
   * (default 15,000). 0 fails at once.
   */
  retryTimeoutMs?: number;
}

/** Options of {@link PostgresStorage.connect}. @public */
export interface PostgresConnectOptions extends PostgresStorageOptions {
  /** Server-side `statement_timeout` of every connection, in ms (default 30,000; 0 = none). */
  statementTimeoutMs?: number;
  /**
   * Most connections in the pool (default 10; at least 2, since watching holds one).
   */
  maxConnections?: number;
  /** Give up opening one connection after this many ms (default 5,000). */
  connectTimeoutMs?: number;
}

/**
 * The pool configuration of {@link PostgresStorage.connect}.
 * @throws `TransitError` `invalid_request` for a bad number.
 * @internal
 */
export function poolConfig(url: string, options: PostgresConnectOptions): PoolConfig {
  const config: PoolConfig = {
    connectionString: url,
    max: atLeast(2, options.maxConnections, 10, 'maxConnections'),
    connectionTimeoutMillis: atLeast(1, options.connectTimeoutMs, 5_000, 'connectTimeoutMs'),
    statement_timeout: nonNegative(options.statementTimeoutMs, 30_000, 'statementTimeoutMs'),
    application_name: 'transitkit',
  };
  if (config.statement_timeout === 0) delete config.statement_timeout;
  return config;
}

function atLeast(min: number, v: number | undefined, fallback: number, what: string): number {
  if (v === undefined) return fallback;
  if (!Number.isSafeInteger(v) || v < min) {
    throw invalidRequest(`PostgresStorage ${what} must be an integer >= ${min}`);
  }
  return v;
}

function nonNegative(v: number | undefined, fallback: number, what: string): number {
  if (v === undefined) return fallback;
  if (!Number.isSafeInteger(v) || v < 0) {
    throw invalidRequest(`PostgresStorage ${what} must be an integer >= 0`);
  }
  return v;
}
