/**
 * `PostgresStorage`: the storage adapter for several processes sharing one
 * PostgreSQL database, with compare-and-set, leader locks and cross-instance
 * change notifications.
 *
 * Shape, and why:
 * - One table per store (schema.ts), created on first use or by `migrate()`.
 *   `list` is one range scan of the primary key (UTF-16BE `sort_key`),
 *   O(log n + page).
 * - Every operation is one statement in its own (autocommit) transaction: a
 *   write commits whole or not at all, and `compareAndSet` is a conditional
 *   `UPDATE`/`INSERT … ON CONFLICT DO NOTHING`/`DELETE`, which PostgreSQL
 *   re-checks on the latest row version under the row lock: no read-then-write
 *   race across processes.
 * - `lock` is a lease row with a random token (postgres-lock.ts); `watch` is
 *   LISTEN/NOTIFY on one held connection (change-feed.ts).
 * - Connections come from a `pg.Pool`. While the server is unreachable (a
 *   restart), statements wait and retry for up to `retryTimeoutMs`: a statement
 *   that never reached the server is always retried; one whose connection broke
 *   in flight is retried only when repeating it is harmless (reads, locks).
 *   `put` and `delete` run in a transaction that also records their random
 *   id, so a connection lost during the commit is settled by looking for it,
 *   and they take effect exactly once (write-once.ts); a `compareAndSet`
 *   whose connection broke in flight fails with a message saying its outcome
 *   is unknown.
 * - Failures are `TransitError` `internal` naming the operation (errors.ts),
 *   never carrying keys or values.
 *
 * @module
 */
import { Buffer } from 'node:buffer';
import type { Pool, QueryResult } from 'pg';
// Public types come from the package entry, so the built declarations of this
// subpath refer to `transitkit` instead of carrying copies of them.
import type {
  ListOptions,
  LockHandle,
  StorageAdapter,
  StorageLock,
  StorageWatch,
} from 'transitkit';
import { internal, invalidRequest, isTransitError } from '../../src/errors.js';
import { checkBytes, checkKey, checkListArgs, copyBytes } from '../../src/storage/kit.js';
import { REPLAY_PAGE } from '../../src/storage/watchers.js';
import { redactUrl } from '../../src/util/redact-url.js';
import { ChangeFeed } from './change-feed.js';
import { describe, isConnectionError, pgFailure } from './errors.js';
import {
  type PostgresConnectOptions,
  type PostgresPool,
  type PostgresStorageOptions,
  poolConfig,
} from './options.js';
import { acquireLock } from './postgres-lock.js';
import { Backoff, connect } from './retry.js';
import { listQuery, type Schema, type Statement, schemaFor, sortKey } from './schema.js';
import { type WriteContext, writeOnce } from './write-once.js';

const DEFAULT_RETRY_MS = 15_000;

const ENCODING_QUERY = "SELECT current_setting('server_encoding') AS encoding";

/**
 * Keys are any Unicode text (the storage contract) and are kept in a `text`
 * column, so the database must store every character: UTF8 (or SQL_ASCII,
 * which keeps the client's UTF-8 bytes as they are). On another encoding a
 * key outside its charset would fail at its first `put`, long after connect.
 * @throws TransitError `invalid_request` naming the encoding.
 */
function checkEncoding(row: { encoding: string } | undefined): void {
  const encoding = row?.encoding ?? '';
  if (encoding === 'UTF8' || encoding === 'SQL_ASCII') return;
  throw invalidRequest(
    `PostgresStorage: the database's encoding is ${encoding || 'unknown'}; it must be UTF8 (CREATE DATABASE … ENCODING 'UTF8'), since keys are any Unicode text`,
  );
}

/**
 * A storage adapter on PostgreSQL (node-postgres) for many instances.
 *
 * @throws `TransitError` `invalid_request` for an empty key, NUL, a lone surrogate,
 * a value that is not a `Uint8Array`, or bad list/lock/watch arguments;
 * `internal` when PostgreSQL fails or is unreachable, and after `close`.
 *
 * @example
 * ```ts
 * import { Transit } from 'transitkit';
 * import { PostgresStorage } from 'transitkit/adapters/postgres';
 *
 * const storage = await PostgresStorage.connect('postgres://app@db.internal/app');
 * const transit = new Transit({ storage });
 * await transit.createKey('orders');
 * // …
 * await transit.close();
 * await storage.close();
 * ```
 * @public
 */
export class PostgresStorage implements StorageAdapter, StorageLock, StorageWatch {
  /** The store's table. */
  readonly table: string;
  readonly #pool: Pool;
  #owned = false;
  readonly #schema: Schema;
  readonly #feed: ChangeFeed;
  readonly #autoMigrate: boolean;
  #retryMs: number;
  #migrated: Promise<void> | undefined;
  /** The database encoding's check, once (a failed query is asked again). */
  #encodingChecked: Promise<void> | undefined;
  #closing: Promise<void> | undefined;

  /**
   * Use a `pg.Pool` that you own: {@link PostgresStorage.close} leaves it open.
   * Watching holds one of its connections while the store is open (so give the
   * pool at least two). Connect directly or through a session-mode pooler:
   * LISTEN does not work through a transaction-mode pooler such as PgBouncer's. An `error`
   * listener is added to the pool (an idle connection dropped by a server
   * restart must not crash the process; the next statement reconnects).
   * Configure `statement_timeout` on the pool if you want one.
   * @throws `TransitError` `invalid_request` for a bad table name, retry timeout or a missing pool.
   */
  constructor(pool: PostgresPool, options: PostgresStorageOptions = {}) {
    if (typeof (pool as Partial<PostgresPool> | undefined)?.connect !== 'function') {
      throw invalidRequest('PostgresStorage needs a pg Pool');
    }
    const retry = retryTimeout(options);
    this.#pool = pool as unknown as Pool; // a pg.Pool, typed loosely in the public API
    this.#schema = schemaFor(options.table);
    this.table = this.#schema.table;
    this.#autoMigrate = options.migrate ?? true;
    this.#retryMs = retry;
    pool.on('error', () => undefined); // reported by the statements that fail
    this.#feed = new ChangeFeed(this.#pool, this.#schema.channel, (prefix, after) =>
      this.#page(prefix, after, REPLAY_PAGE),
    );
  }

  /**
   * Connect to `url` (`postgres://user:password@host:port/db`, libpq's
   * `postgresql://` too, with `?sslmode=…`) through a new pool, check that the
   * server answers, and create the tables when missing (unless `migrate: false`).
   * {@link PostgresStorage.close} ends this pool.
   * @throws `TransitError` `invalid_request` for a bad URL or option, or a
   * database whose encoding is not UTF8 (SQL_ASCII is accepted); `internal`
   * (`PostgreSQL is unreachable`) when the first connection fails, or when `pg`
   * is not installed.
   */
  static async connect(
    url: string,
    options: PostgresConnectOptions = {},
  ): Promise<PostgresStorage> {
    if (typeof url !== 'string' || !/^postgres(ql)?:\/\//.test(url)) {
      throw invalidRequest(
        'PostgresStorage.connect: url must start with postgres:// or postgresql://',
      );
    }
    schemaFor(options.table); // validate before connecting
    const retry = retryTimeout(options);
    const config = poolConfig(url, options);
    let PoolClass: typeof Pool;
    try {
      const mod = (await import('pg')) as unknown as {
        default?: { Pool: typeof Pool };
        Pool?: typeof Pool;
      };
      PoolClass = (mod.default?.Pool ?? mod.Pool) as typeof Pool;
    } catch (e) {
      throw internal(`PostgresStorage needs the pg package (npm install pg): ${describe(e)}`);
    }
    const pool = new PoolClass(config);
    const storage = new PostgresStorage(pool, { ...options, retryTimeoutMs: 0 });
    storage.#owned = true;
    try {
      // The first statement: the server answers, with an encoding keys fit in.
      await storage.#checkEncoding();
      if (storage.#autoMigrate) await storage.migrate();
    } catch (e) {
      await pool.end().catch(() => undefined);
      if (isTransitError(e, 'invalid_request')) throw e;
      const reason = isConnectionError((e as { cause?: unknown }).cause)
        ? 'PostgreSQL is unreachable'
        : 'PostgreSQL refused the connection';
      throw internal(
        `PostgresStorage: cannot connect to ${redactUrl(url)}: ${reason} (${describe((e as { cause?: unknown }).cause ?? e)})`,
      );
    }
    storage.#retryMs = retry;
    return storage;
  }

  /**
   * Create the store's tables when missing (idempotent; safe when several
   * processes start at once: a transaction-scoped advisory lock serialises them).
   * Nothing is created when both tables exist, so a role without CREATE rights
   * works on a database migrated beforehand.
   */
  migrate(): Promise<void> {
    this.#checkOpen();
    this.#migrated ??= this.#migrate().catch((e: unknown) => {
      this.#migrated = undefined;
      throw e;
    });
    return this.#migrated;
  }

  /** The value at `key` (a fresh copy), or `undefined`. */
  async get(key: string): Promise<Uint8Array | undefined> {
    checkKey(key);
    const r = await this.#statement('get', this.#schema.get, [sortKey(key)], true);
    const row = r.rows[0] as { value: Buffer } | undefined;
    return row === undefined ? undefined : new Uint8Array(row.value);
  }

  /** Store `value` at `key` (captured when called); notifies watchers. */
  async put(key: string, value: Uint8Array): Promise<void> {
    checkKey(key);
    const data = asBuffer(copyBytes(value));
    await this.#write('put', this.#schema.put, [sortKey(key), key, data]);
  }

  /** Remove `key`; a missing key is fine (and notifies nobody). */
  async delete(key: string): Promise<void> {
    checkKey(key);
    await this.#write('delete', this.#schema.delete, [sortKey(key)]);
  }

  /** Keys under `prefix`, sorted by UTF-16 code unit, without the prefix; one range scan. */
  async list(prefix: string, options?: ListOptions): Promise<string[]> {
    const { after, limit } = checkListArgs(prefix, options);
    this.#checkOpen();
    return this.#page(prefix, after, limit);
  }

  /** Atomically swap `expected` for `next` (`undefined` = absent / delete), in one statement. */
  async compareAndSet(
    key: string,
    expected: Uint8Array | undefined,
    next: Uint8Array | undefined,
  ): Promise<boolean> {
    checkKey(key);
    if (expected !== undefined) checkBytes(expected, 'expected');
    const want = expected === undefined ? undefined : asBuffer(copyBytes(expected, 'expected'));
    const data = next === undefined ? undefined : asBuffer(copyBytes(next, 'next'));
    const s = this.#schema;
    const sk = sortKey(key);
    if (want === undefined && data === undefined) {
      const r = await this.#statement('compareAndSet', s.absent, [sk], true);
      return (r.rows[0] as { absent: boolean }).absent;
    }
    const [sql, params] =
      want === undefined
        ? [s.casInsert, [sk, key, data]]
        : data === undefined
          ? [s.casDelete, [sk, want]]
          : [s.casReplace, [sk, want, data]];
    const r = await this.#statement('compareAndSet', sql, params, false);
    return r.rowCount === 1;
  }

  /**
   * Take the lock `name` for `ttlMs` (on the PostgreSQL server's clock), or
   * `undefined` while another holder, in any process, has it.
   */
  async lock(name: string, ttlMs: number): Promise<LockHandle | undefined> {
    this.#checkOpen();
    return acquireLock(
      async (op, sql, params) => (await this.#statement(op, sql, params, true)).rowCount ?? 0,
      this.#schema,
      name,
      ttlMs,
    );
  }

  /**
   * Call `onChange(key)` after each put, delete of an existing key, or successful
   * compareAndSet under `prefix`, by any instance on this store. Resolves once
   * listening. After a lost connection, every key under `prefix` is reported once
   * (changes made meanwhile cannot be known). A throwing listener is ignored.
   */
  async watch(prefix: string, onChange: (key: string) => void): Promise<() => Promise<void>> {
    this.#checkOpen();
    await this.#ensureSchema();
    return this.#feed.watch(prefix, onChange);
  }

  /**
   * Stop watching and, when this instance created the pool
   * ({@link PostgresStorage.connect}), end it after the statements in flight.
   * A pool passed to the constructor stays open. Idempotent; any later call fails.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#feed.close();
      if (this.#owned) await this.#pool.end().catch(() => undefined);
    })();
    return this.#closing;
  }

  async #migrate(): Promise<void> {
    await this.#checkEncoding();
    const s = this.#schema;
    const exists = await this.#query(
      'migrate',
      'SELECT to_regclass($1) IS NOT NULL AND to_regclass($2) IS NOT NULL AND to_regclass($3) IS NOT NULL AS ok',
      [`"${s.table}"`, `"${s.table}_locks"`, s.ops],
      true,
    );
    if ((exists.rows[0] as { ok: boolean }).ok) return;
    // One simple-protocol string: one implicit transaction, so the advisory
    // lock is held until both tables exist.
    const lock = `SELECT pg_advisory_xact_lock(hashtext('transitkit migrate ${s.table}'));`;
    await this.#query('migrate', `${lock}${s.migrate}`, undefined, true);
  }

  #ensureSchema(): Promise<void> {
    // Tables made by hand (`migrate: false`): the encoding is still checked.
    return this.#autoMigrate ? this.migrate() : this.#checkEncoding();
  }

  /** {@link checkEncoding} of the server, once: a failed query is asked again; a wrong encoding stays wrong. */
  #checkEncoding(): Promise<void> {
    this.#encodingChecked ??= this.#query('connect', ENCODING_QUERY, [], true).then(
      (r) => checkEncoding(r.rows[0] as { encoding: string }),
      (e: unknown) => {
        this.#encodingChecked = undefined;
        throw e;
      },
    );
    return this.#encodingChecked;
  }

  async #page(prefix: string, after: string | undefined, limit: number): Promise<string[]> {
    const [statement, params] = listQuery(this.#schema, prefix, after, limit);
    const r = await this.#statement('list', statement, params, true);
    return (r.rows as Array<{ key: string }>).map((row) => row.key.slice(prefix.length));
  }

  /** Run one statement of the store (after creating the tables when needed). */
  async #statement(
    op: string,
    sql: Statement,
    params: unknown[],
    idempotent: boolean,
  ): Promise<QueryResult> {
    this.#checkOpen();
    await this.#ensureSchema();
    return this.#query(op, sql, params, idempotent);
  }

  /** Run a put or delete so that it takes effect once (write-once.ts). */
  async #write(op: string, sql: Statement, params: unknown[]): Promise<void> {
    this.#checkOpen();
    await this.#ensureSchema();
    const ctx: WriteContext = {
      pool: this.#pool,
      schema: this.#schema,
      retryMs: this.#retryMs,
      open: () => this.#closing === undefined,
    };
    await writeOnce(ctx, op, sql, params);
  }

  /**
   * Run `sql` (a named statement of the store, or ad-hoc SQL) on a pooled
   * connection, retrying while the server is unreachable (see the module
   * comment for what is retried).
   */
  async #query(
    op: string,
    sql: Statement | string,
    params: unknown[] | undefined,
    idempotent: boolean,
  ): Promise<QueryResult> {
    const backoff = new Backoff(Date.now() + this.#retryMs, () => this.#closing === undefined);
    for (;;) {
      const client = await connect(this.#pool, backoff, op);
      try {
        const r =
          typeof sql === 'string'
            ? await client.query(sql, params)
            : await client.query({ name: sql.name, text: sql.text, values: params });
        client.release();
        return r;
      } catch (e) {
        const lost = isConnectionError(e);
        client.release(lost ? (e as Error) : undefined); // a broken connection is discarded
        if (!lost || !idempotent || !backoff.canRetry()) {
          throw pgFailure(op, e, lost && !idempotent);
        }
        await backoff.wait();
      }
    }
  }

  #checkOpen(): void {
    if (this.#closing !== undefined) {
      throw internal(`PostgresStorage (table ${this.table}) is closed`);
    }
  }
}

function retryTimeout(options: PostgresStorageOptions): number {
  const retry = options.retryTimeoutMs ?? DEFAULT_RETRY_MS;
  if (typeof retry !== 'number' || !Number.isFinite(retry) || retry < 0) {
    throw invalidRequest('PostgresStorage retryTimeoutMs must be a finite number >= 0');
  }
  return retry;
}

/** A Buffer view of `u` (no copy; `u` is already a private copy). */
function asBuffer(u: Uint8Array): Buffer {
  return Buffer.from(u.buffer, u.byteOffset, u.byteLength);
}
