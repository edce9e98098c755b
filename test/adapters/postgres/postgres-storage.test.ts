/**
 * PostgresStorage beyond the shared conformance suites, on a real server:
 * the documented schema and `migrate()`, `list` as one index range scan, lock
 * expiry on the server clock, statement timeouts and in-flight failures that
 * leave nothing half-written, long keys in the change feed, and errors that
 * never carry values, keys or passwords.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresStorage, postgresSchemaSql } from '../../../adapters/postgres/index.js';
import { schemaFor } from '../../../adapters/postgres/schema.js';
import { isTransitError } from '../../../src/errors.js';
import {
  NO_POSTGRES_REASON,
  PostgresServer,
  SKIP_POSTGRES,
} from '../../helpers/postgres-server.js';

const b = (s: string): Uint8Array => new TextEncoder().encode(s);
const text = (u: Uint8Array | undefined): string | undefined =>
  u === undefined ? undefined : new TextDecoder().decode(u);

async function failure(p: Promise<unknown>): Promise<Error> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(e instanceof Error)) throw new Error('expected a rejection');
  return e;
}

/** Everything an error says, cause included. */
const everything = (e: Error): string =>
  `${e.message} ${String((e as { cause?: unknown }).cause)} ${JSON.stringify(e)}`;

let n = 0;
const freshTable = (): string => `s${process.pid}_${++n}`;

if (SKIP_POSTGRES) it.skip(`PostgresStorage [skipped: ${NO_POSTGRES_REASON}]`);

describe.skipIf(SKIP_POSTGRES)('PostgresStorage on a real PostgreSQL', () => {
  let server: PostgresServer;
  let admin: pg.Pool;
  const opened: PostgresStorage[] = [];
  beforeAll(async () => {
    server = await PostgresServer.start();
    admin = new pg.Pool({ connectionString: server.url, max: 3 });
  });
  afterAll(async () => {
    for (const s of opened) await s.close();
    await admin?.end();
    await server?.destroy();
  });
  async function open(options: Parameters<typeof PostgresStorage.connect>[1] = {}) {
    const s = await PostgresStorage.connect(server.url, {
      table: freshTable(),
      maxConnections: 4,
      ...options,
    });
    opened.push(s);
    return s;
  }

  it('keys up to 1,000 random UTF-16 units round-trip; a random one too long for the index is invalid_request, never internal', async () => {
    const s = await open();
    // Random text does not compress: the index row holds every byte of its sort_key.
    const random = (n: number) =>
      Array.from({ length: n }, () =>
        String.fromCharCode(0x4e00 + Math.floor(Math.random() * 20_000)),
      ).join('');
    const longest = random(1_000);
    await s.put(longest, b('fits'));
    expect(text(await s.get(longest))).toBe('fits');
    expect(await s.compareAndSet(longest, b('fits'), b('swapped'))).toBe(true);
    expect(await s.list(longest.slice(0, 500))).toEqual([longest.slice(500)]);
    const over = random(2_000);
    for (const write of [
      () => s.put(over, b('x')),
      () => s.compareAndSet(over, undefined, b('x')),
    ]) {
      const refused = await write().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isTransitError(refused, 'invalid_request'), String(refused)).toBe(true);
      expect((refused as Error).message).toMatch(
        /the key is too long for PostgreSQL's index .*\[54000\]$/,
      );
      expect((refused as Error).message).not.toContain(over.slice(0, 20));
    }
    expect(await s.get(over)).toBeUndefined();
    await s.delete(over);
    expect(await s.compareAndSet(over, undefined, undefined)).toBe(true);
  });

  it('creates the documented tables on first use, and migrate() is idempotent', async () => {
    const s = await open();
    await s.put('a', b('1'));
    const cols = await admin.query(
      `SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
       WHERE table_name IN ($1, $2, $3) ORDER BY table_name, ordinal_position`,
      [s.table, `${s.table}_locks`, `${s.table}_ops`],
    );
    expect(cols.rows.map((r) => `${r.table_name}.${r.column_name} ${r.data_type}`)).toEqual([
      `${s.table}.sort_key bytea`,
      `${s.table}.key text`,
      `${s.table}.value bytea`,
      `${s.table}.version bigint`,
      `${s.table}.updated_at timestamp with time zone`,
      `${s.table}_locks.name text`,
      `${s.table}_locks.token text`,
      `${s.table}_locks.expires_at timestamp with time zone`,
      `${s.table}_ops.id text`,
      `${s.table}_ops.by text`,
      `${s.table}_ops.at timestamp with time zone`,
    ]);
    expect(cols.rows.every((r) => r.is_nullable === 'NO')).toBe(true);
    await s.migrate();
    await s.migrate();
    expect(text(await s.get('a'))).toBe('1');
    expect(postgresSchemaSql(s.table)).toContain(`CREATE TABLE IF NOT EXISTS "${s.table}"`);
    expect(postgresSchemaSql(s.table)).toContain(`CREATE TABLE IF NOT EXISTS "${s.table}_ops"`);
  });

  it('a store made before the outcome table gets it from migrate(), and writes work', async () => {
    const s = await open();
    await s.put('a', b('1'));
    await admin.query(`DROP TABLE "${s.table}_ops"`); // as a store of an earlier version
    const again = await open({ table: s.table });
    await again.put('b', b('2'));
    expect(text(await again.get('b'))).toBe('2');
    const t = await admin.query('SELECT to_regclass($1) IS NOT NULL AS ok', [`"${s.table}_ops"`]);
    expect(t.rows[0].ok).toBe(true);
  });

  it('version counts the writes of a key; the key column holds the key as text', async () => {
    const s = await open();
    await s.put('k/1', b('a'));
    await s.put('k/1', b('b'));
    expect(await s.compareAndSet('k/1', b('b'), b('c'))).toBe(true);
    const r = await admin.query(`SELECT key, version FROM "${s.table}"`);
    expect(r.rows).toEqual([{ key: 'k/1', version: '3' }]);
  });

  it('many processes migrating one new table at once all succeed', async () => {
    const table = freshTable();
    const stores = await Promise.all(
      Array.from({ length: 6 }, () =>
        PostgresStorage.connect(server.url, { table, maxConnections: 2 }),
      ),
    );
    opened.push(...stores);
    await Promise.all(stores.map((s, i) => s.put(`k${i}`, b(String(i)))));
    expect(await stores[0]?.list('')).toEqual(['k0', 'k1', 'k2', 'k3', 'k4', 'k5']);
  });

  it('with migrate: false and no tables, statements fail clearly; migrate() fixes it', async () => {
    const table = freshTable();
    const s = await open({ table, migrate: false });
    const e = await failure(s.get('a'));
    expect(isTransitError(e, 'internal')).toBe(true);
    expect(e.message).toMatch(
      /^PostgresStorage: get failed: PostgreSQL statement failed \[42P01\]/,
    );
    await s.migrate();
    await s.put('a', b('1'));
    expect(text(await s.get('a'))).toBe('1');
  });

  it('a list page is one range scan of the primary key index', async () => {
    const s = await open();
    for (let i = 0; i < 500; i += 100) {
      await Promise.all(
        Array.from({ length: 100 }, (_, j) => s.put(`p/${String(i + j).padStart(4, '0')}`, b('v'))),
      );
    }
    await admin.query(`ANALYZE "${s.table}"`);
    const client = await admin.connect();
    try {
      // The adapter's own statement, with a generic plan (as a prepared statement
      // gets after a few runs): both bounds must be index conditions.
      await client.query('SET enable_seqscan = off');
      await client.query('SET plan_cache_mode = force_generic_plan');
      await client.query(
        `PREPARE page(bytea, bytea, bigint) AS ${schemaFor(s.table).list.afterTo.text}`,
      );
      const hex = (k: string) => `'\\x${Buffer.from(k, 'utf16le').swap16().toString('hex')}'`;
      const plan = await client.query(`EXPLAIN EXECUTE page(${hex('p/0010')}, ${hex('p0')}, 10)`);
      const lines = plan.rows.map((r) => r['QUERY PLAN'] as string).join('\n');
      expect(lines).toMatch(new RegExp(`Index Scan using ${s.table}_pkey`));
      expect(lines).toMatch(/Index Cond: \(\(sort_key > \$1\) AND \(sort_key < \$2\)\)/);
      expect(lines).not.toMatch(/Sort|Filter/);
    } finally {
      await client.query('DEALLOCATE ALL; RESET ALL');
      client.release();
    }
    expect(await s.list('p/', { after: '0010', limit: 3 })).toEqual(['0011', '0012', '0013']);
  });

  it('a lock expires on the server clock; refresh of an unclaimed expired lease keeps it', async () => {
    const a = await open();
    const other = new PostgresStorage(admin, { table: a.table });
    const h = await a.lock('leader', 50);
    expect(h).toBeDefined();
    // Unclaimed after expiry: still ours.
    await expect
      .poll(
        async () =>
          (
            await admin.query(
              `SELECT expires_at <= clock_timestamp() AS gone FROM "${a.table}_locks"`,
            )
          ).rows[0]?.gone,
        { timeout: 10_000 },
      )
      .toBe(true);
    expect(await h?.refresh(50)).toBe(true);
    // Expired again, and taken by another: lost.
    let taker: Awaited<ReturnType<typeof other.lock>>;
    const take = async (): Promise<boolean> => {
      taker = await other.lock('leader', 60_000);
      return taker !== undefined;
    };
    await expect.poll(take, { timeout: 10_000, interval: 20 }).toBe(true);
    expect(await h?.refresh(1_000)).toBe(false);
    await h?.release(); // must not free the new holder
    expect(await a.lock('leader', 1_000)).toBeUndefined();
    await taker?.release();
    expect(await a.lock('leader', 1_000)).toBeDefined();
  });

  it('a put blocked past the statement timeout fails, naming the timeout, and writes nothing', async () => {
    const s = await open({ statementTimeoutMs: 300 });
    const watcher = await open({ table: s.table });
    const seen: string[] = [];
    await watcher.watch('', (k) => seen.push(k));
    await s.put('k', b('old'));
    const blocker = await admin.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query(`SELECT 1 FROM "${s.table}" FOR UPDATE`);
      const e = await failure(s.put('k', b('secret-new-value')));
      expect(isTransitError(e, 'internal')).toBe(true);
      expect(e.message).toMatch(
        /put failed: PostgreSQL cancelled the statement \(statement timeout\) \[57014\]/,
      );
      expect(everything(e)).not.toMatch(/secret-new-value|736563726574/);
      const cas = await failure(s.compareAndSet('k', b('old'), b('secret-new-value')));
      expect(cas.message).toMatch(/statement timeout/);
    } finally {
      await blocker.query('ROLLBACK');
      blocker.release();
    }
    expect(text(await s.get('k'))).toBe('old');
    await s.put('sentinel', b('1'));
    await expect.poll(() => seen.includes('sentinel')).toBe(true);
    expect(seen).toEqual(['k', 'sentinel']); // no notification for the failed writes
  });

  it('a CAS whose connection is killed in flight fails as "outcome unknown" and wrote nothing', async () => {
    const s = await open({ retryTimeoutMs: 0 });
    await s.put('k', b('old'));
    const blocker = await admin.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query(`SELECT 1 FROM "${s.table}" FOR UPDATE`);
      const pending = failure(s.compareAndSet('k', b('old'), b('secret-new-value')));
      // Wait until the CAS is blocked on the row lock, then kill its backend.
      await expect
        .poll(
          async () =>
            (
              await admin.query(
                `SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity
                 WHERE wait_event_type = 'Lock' AND query LIKE 'WITH w AS (%UPDATE%'`,
              )
            ).rowCount,
          { timeout: 10_000, interval: 20 },
        )
        .toBe(1);
      const e = await pending;
      expect(isTransitError(e, 'internal')).toBe(true);
      expect(e.message).toMatch(/PostgreSQL is unreachable.*may or may not have been applied/);
      expect(everything(e)).not.toMatch(/secret-new-value/);
    } finally {
      await blocker.query('ROLLBACK');
      blocker.release();
    }
    expect(text(await s.get('k'))).toBe('old');
    expect(await s.compareAndSet('k', b('old'), b('new'))).toBe(true);
  });

  it('a killed LISTEN session is replaced, and its watchers told about every key', async () => {
    const s = await open();
    const peer = await open({ table: s.table });
    await peer.put('w/a', b('1'));
    await peer.put('x/b', b('1'));
    const seen: string[] = [];
    await s.watch('w/', (k) => seen.push(k));
    const kill = async () =>
      (
        await admin.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = $1`,
          [`LISTEN "${s.table}_changes"`],
        )
      ).rowCount;
    expect(await kill()).toBe(1);
    await expect.poll(() => seen.includes('w/a'), { timeout: 10_000 }).toBe(true);
    // The full report: the prefix itself (deletions cannot be listed), then each key; nothing outside it.
    expect(seen).toEqual(['w/', 'w/a']);
    // Listening again: live notifications flow.
    await expect
      .poll(
        async () => {
          await peer.put('w/live', b('1'));
          return seen.includes('w/live');
        },
        { timeout: 10_000 },
      )
      .toBe(true);
  });

  it('a key too long for NOTIFY makes watchers report every key under their prefix', async () => {
    const s = await open();
    const peer = await open({ table: s.table });
    await s.put('w/short', b('1'));
    const seen: string[] = [];
    await s.watch('w/', (k) => seen.push(k));
    const long = `w/${'x'.repeat(8_000)}`;
    await peer.put(long, b('1'));
    await expect.poll(() => seen.includes(long), { timeout: 5_000 }).toBe(true);
    expect(seen).toContain('w/short');
  });

  it('errors name the operation and never carry the password; closed stores refuse', async () => {
    const url = `postgres://postgres:hunter2-secret@127.0.0.1:1/postgres`;
    const e = await failure(PostgresStorage.connect(url, { connectTimeoutMs: 2_000 }));
    expect(isTransitError(e, 'internal')).toBe(true);
    expect(e.message).toMatch(
      /cannot connect to postgres:\/\/postgres@127\.0\.0\.1:1\/postgres: PostgreSQL is unreachable/,
    );
    expect(everything(e)).not.toMatch(/hunter2/);
    for (const bad of ['redis://x', '', 'postgres:/x']) {
      expect(isTransitError(await failure(PostgresStorage.connect(bad)), 'invalid_request')).toBe(
        true,
      );
    }
    for (const bad of [
      { maxConnections: 1 },
      { connectTimeoutMs: 0 },
      { statementTimeoutMs: -1 },
      { retryTimeoutMs: -1 },
    ]) {
      expect(isTransitError(await failure(open(bad)), 'invalid_request'), JSON.stringify(bad)).toBe(
        true,
      );
    }
    for (const table of ['', 'Upper', '1abc', 'a-b', 'a'.repeat(49), 'x"; DROP TABLE y; --']) {
      expect(isTransitError(await failure(open({ table })), 'invalid_request'), table).toBe(true);
    }
    const s = await open();
    await s.close();
    await s.close();
    const closed = await failure(s.get('a'));
    expect(closed.message).toMatch(/is closed/);
  });
});
