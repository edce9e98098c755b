/**
 * The PostgreSQL schema of a {@link PostgresStorage} store, the SQL that reads
 * and writes it, and how storage keys map to an ordered column.
 *
 * One store is three tables and one notification channel, all named from the
 * store's `table` option (default `transitkit`). This layout is stable: a later
 * version adds to it only through `migrate()`, never by changing a column.
 *
 * ```sql
 * CREATE TABLE transitkit (
 *   sort_key   bytea       PRIMARY KEY,  -- the key as UTF-16 code units, big-endian
 *   key        text        NOT NULL,     -- the key as text (for people and psql)
 *   value      bytea       NOT NULL,
 *   version    bigint      NOT NULL DEFAULT 1,   -- +1 on every write of the key
 *   updated_at timestamptz NOT NULL DEFAULT now()
 * );
 * CREATE TABLE transitkit_locks (
 *   name       text        PRIMARY KEY,
 *   token      text        NOT NULL,     -- random, per take: the holder's proof
 *   expires_at timestamptz NOT NULL      -- on the database server's clock
 * );
 * CREATE TABLE transitkit_ops (         -- recent puts and deletes (write-once.ts)
 *   id         text        PRIMARY KEY,  -- random, per write
 *   by         text        NOT NULL,     -- 'w': the write committed; 'p': a probe, it did not
 *   at         timestamptz NOT NULL DEFAULT now()
 * );
 * -- change feed: NOTIFY transitkit_changes, payload = the changed key
 * ```
 *
 * Why `sort_key`: the storage contract orders keys by UTF-16 code unit (as
 * JavaScript compares strings). `text COLLATE "C"` orders by code point, which
 * differs above U+FFFF (U+FFFD sorts before U+1F511 by code point, after it by
 * code unit). Big-endian UTF-16 bytes compare, byte by byte, exactly as
 * JavaScript strings do, and a string prefix is a byte prefix; so `list` is one
 * range scan of the primary key index, O(log n + page).
 *
 * Every write is one statement; the ones that notify wrap the write in a CTE
 * whose `SELECT pg_notify(…)` runs only for rows actually written, and
 * PostgreSQL delivers the notification only if that statement's transaction
 * commits. NOTIFY payloads are limited to 8000 bytes: a key longer than
 * {@link MAX_NOTIFY_KEY_BYTES} is announced with an empty payload, which watchers
 * read as "anything may have changed".
 *
 * @module
 */
import { Buffer } from 'node:buffer';
import { invalidRequest } from '../../src/errors.js';

/** The table name used when none is given. */
export const DEFAULT_TABLE = 'transitkit';

/** The longest key (UTF-8 bytes) carried in a NOTIFY payload. @internal */
export const MAX_NOTIFY_KEY_BYTES = 7_000;

/**
 * One statement of a store, run as a named prepared statement (parsed and
 * planned once per connection). Names carry the table, so stores of different
 * tables never share one. @internal
 */
export interface Statement {
  readonly name: string;
  readonly text: string;
}

/** SQL names and statements of one store. @internal */
export interface Schema {
  /** The key/value table (as given, unquoted). */
  readonly table: string;
  /** The LISTEN/NOTIFY channel. */
  readonly channel: string;
  /** Statements creating the tables (idempotent). */
  readonly migrate: string;
  readonly get: Statement;
  /** $1 sort key, $2 key, $3 value. */
  readonly put: Statement;
  /** $1 sort key. */
  readonly delete: Statement;
  /** $1 sort key, $2 expected, $3 next: replace when equal. */
  readonly casReplace: Statement;
  /** $1 sort key, $2 key, $3 next: insert when absent. */
  readonly casInsert: Statement;
  /** $1 sort key, $2 expected: delete when equal. */
  readonly casDelete: Statement;
  /** $1 sort key: true when absent. */
  readonly absent: Statement;
  /**
   * `list` pages, by bounds: `from` (>= $1) or `after` (> $1), then `To`
   * (< $2) when the prefix has an upper bound; the last parameter is the limit
   * (null = all). Every bound is an index condition, in any plan.
   */
  readonly list: {
    readonly from: Statement;
    readonly fromTo: Statement;
    readonly after: Statement;
    readonly afterTo: Statement;
  };
  /** $1 name, $2 token, $3 ttl ms. */
  readonly lockAcquire: Statement;
  /** $1 name, $2 token, $3 ttl ms. */
  readonly lockRefresh: Statement;
  /** $1 name, $2 token. */
  readonly lockRelease: Statement;
  /** The write-outcome table (quoted). */
  readonly ops: string;
  /** $1 write id: what became of that write, `w` (committed) or `p` (it never will). */
  readonly opProbe: Statement;
  /** $1 age in ms: drop outcomes older than that. */
  readonly opPrune: Statement;
}

const TABLE_NAME = /^[a-z_][a-z0-9_]{0,47}$/;

/**
 * Validate `table` and build the statements of its store.
 * @throws `TransitError` `invalid_request` unless `table` is 1 to 48 characters
 * of lower-case ASCII letters, digits and `_`, not starting with a digit (so that
 * it, `<table>_locks`, `<table>_ops` and `<table>_changes` are plain PostgreSQL identifiers).
 * @internal
 */
export function schemaFor(table: unknown = DEFAULT_TABLE): Schema {
  if (typeof table !== 'string' || !TABLE_NAME.test(table)) {
    throw invalidRequest(
      'PostgresStorage table must be 1 to 48 characters of a-z, 0-9 and _, not starting with a digit',
    );
  }
  const t = `"${table}"`;
  const locks = `"${table}_locks"`;
  const ops = `"${table}_ops"`;
  const channel = `${table}_changes`;
  const st = (name: string, text: string): Statement => ({ name: `tk:${table}:${name}`, text });
  const page = (name: string, low: '>=' | '>', high: boolean): Statement =>
    st(
      name,
      `SELECT key FROM ${t} WHERE sort_key ${low} $1${high ? ' AND sort_key < $2' : ''} ORDER BY sort_key LIMIT $${high ? 3 : 2}`,
    );
  const notify = `SELECT pg_notify('${channel}', CASE WHEN octet_length(w.key) <= ${MAX_NOTIFY_KEY_BYTES} THEN w.key ELSE '' END) FROM w`;
  return {
    table,
    channel,
    migrate: `
CREATE TABLE IF NOT EXISTS ${t} (
  sort_key   bytea       PRIMARY KEY,
  key        text        NOT NULL,
  value      bytea       NOT NULL,
  version    bigint      NOT NULL DEFAULT 1,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS ${locks} (
  name       text        PRIMARY KEY,
  token      text        NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE TABLE IF NOT EXISTS ${ops} (
  id         text        PRIMARY KEY,
  by         text        NOT NULL,
  at         timestamptz NOT NULL DEFAULT now()
);`,
    get: st('g', `SELECT value FROM ${t} WHERE sort_key = $1`),
    put: st(
      'p',
      `WITH w AS (
  INSERT INTO ${t} AS s (sort_key, key, value) VALUES ($1, $2, $3)
  ON CONFLICT (sort_key) DO UPDATE
    SET value = EXCLUDED.value, version = s.version + 1, updated_at = now()
  RETURNING s.key
) ${notify}`,
    ),
    delete: st('d', `WITH w AS (DELETE FROM ${t} WHERE sort_key = $1 RETURNING key) ${notify}`),
    casReplace: st(
      'cr',
      `WITH w AS (
  UPDATE ${t} SET value = $3, version = version + 1, updated_at = now()
  WHERE sort_key = $1 AND value = $2
  RETURNING key
) ${notify}`,
    ),
    casInsert: st(
      'ci',
      `WITH w AS (
  INSERT INTO ${t} (sort_key, key, value) VALUES ($1, $2, $3)
  ON CONFLICT (sort_key) DO NOTHING
  RETURNING key
) ${notify}`,
    ),
    casDelete: st(
      'cd',
      `WITH w AS (DELETE FROM ${t} WHERE sort_key = $1 AND value = $2 RETURNING key) ${notify}`,
    ),
    absent: st('a', `SELECT NOT EXISTS (SELECT 1 FROM ${t} WHERE sort_key = $1) AS absent`),
    list: {
      from: page('lf', '>=', false),
      fromTo: page('lft', '>=', true),
      after: page('la', '>', false),
      afterTo: page('lat', '>', true),
    },
    // A take succeeds on a free name, an expired lease, or (a retried statement
    // whose first run committed) our own token.
    lockAcquire: st(
      'ka',
      `INSERT INTO ${locks} AS l (name, token, expires_at)
VALUES ($1, $2, clock_timestamp() + $3 * interval '1 millisecond')
ON CONFLICT (name) DO UPDATE
  SET token = EXCLUDED.token, expires_at = EXCLUDED.expires_at
  WHERE l.expires_at <= clock_timestamp() OR l.token = EXCLUDED.token
RETURNING 1`,
    ),
    // The row keeps the last taker's token until it releases: an expired lease
    // that nobody took since is still ours (as the memory and Redis adapters).
    lockRefresh: st(
      'kr',
      `UPDATE ${locks} SET expires_at = clock_timestamp() + $3 * interval '1 millisecond'
WHERE name = $1 AND token = $2
RETURNING 1`,
    ),
    lockRelease: st('kl', `DELETE FROM ${locks} WHERE name = $1 AND token = $2`),
    ops,
    // Waits for the write's own transaction while it runs (its insert of the id holds
    // the key), then either finds its row ('w') or puts one that it can never commit
    // past ('p'). A probe re-run after a lost reply finds its own 'p' again.
    opProbe: st(
      'op',
      `INSERT INTO ${ops} AS o (id, by) VALUES ($1, 'p')
ON CONFLICT (id) DO UPDATE SET by = o.by
RETURNING by`,
    ),
    opPrune: st('oq', `DELETE FROM ${ops} WHERE at < now() - $1 * interval '1 millisecond'`),
  };
}

/**
 * The SQL that creates the tables of the store named `table` (default
 * `transitkit`), for a DBA who applies schema changes by hand; then pass
 * `migrate: false` to the adapter. The same statements
 * `PostgresStorage.migrate()` runs (each `IF NOT EXISTS`).
 * @throws `TransitError` `invalid_request` for a bad table name.
 * @public
 */
export function postgresSchemaSql(table: string = DEFAULT_TABLE): string {
  return `${schemaFor(table).migrate.trim()}\n`;
}

/**
 * The `sort_key` of a storage key: its UTF-16 code units, big-endian (see the
 * module comment).
 * @internal
 */
export function sortKey(key: string): Buffer {
  return Buffer.from(key, 'utf16le').swap16();
}

/**
 * The `list` page statement and its bounds for "keys starting with `prefix`,
 * strictly after `prefix + after` when `after` is given".
 * @internal
 */
export function listQuery(
  schema: Schema,
  prefix: string,
  after: string | undefined,
  limit: number,
): [Statement, unknown[]] {
  const low = sortKey(after === undefined ? prefix : prefix + after);
  const high = successor(sortKey(prefix));
  const max = limit === 0 ? null : limit;
  const l = schema.list;
  if (after === undefined) {
    return high === undefined ? [l.from, [low, max]] : [l.fromTo, [low, high, max]];
  }
  return high === undefined ? [l.after, [low, max]] : [l.afterTo, [low, high, max]];
}

/**
 * The smallest byte string greater than every string that starts with `bytes`,
 * or `undefined` when there is none (empty, or all 0xff).
 */
function successor(bytes: Buffer): Buffer | undefined {
  let end = bytes.length;
  while (end > 0 && bytes[end - 1] === 0xff) end--;
  if (end === 0) return undefined;
  const out = Buffer.from(bytes.subarray(0, end));
  out[end - 1] = (out[end - 1] as number) + 1;
  return out;
}
