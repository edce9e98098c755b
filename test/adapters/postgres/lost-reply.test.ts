/**
 * PostgresStorage: a put or delete whose connection breaks before its reply
 * takes effect exactly once (write-once.ts). A TCP proxy between the adapter
 * and a real PostgreSQL forwards the statement and swallows its reply:
 *
 * - lost during COMMIT, committed: the adapter asks the server what became of
 *   the transaction and reports success without running the write again, so
 *   another instance's write made meanwhile stays;
 * - lost before COMMIT: nothing committed, and the write runs once more (the
 *   row's version shows a single write);
 * - lost during COMMIT with the server out of reach until the retry time
 *   ends: the outcome is reported as unknown;
 * - a COMMIT that never reached a server whose backend crashed meanwhile
 *   (the server reinitialises, keeps its start time and hands the lost
 *   transaction's id out again): not reported as success;
 * - a COMMIT lost on a half-open connection: the server ends the idle
 *   transaction, so no row lock outlives the write.
 */
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { PostgresStorage } from '../../../adapters/postgres/index.js';
import { isTransitError } from '../../../src/errors.js';
import { b, text } from '../../helpers/acked-writer.js';
import {
  NO_POSTGRES_REASON,
  PostgresServer,
  SKIP_POSTGRES,
} from '../../helpers/postgres-server.js';
import { TcpProxy } from '../../helpers/tcp-proxy.js';

if (SKIP_POSTGRES) it.skip(`PostgresStorage lost replies [skipped: ${NO_POSTGRES_REASON}]`);

describe.skipIf(SKIP_POSTGRES)('PostgresStorage: a write whose reply was lost', () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
  });
  let server: PostgresServer | undefined;
  async function setup(retryTimeoutMs = 15_000) {
    server ??= await PostgresServer.start();
    const table = `lost_${Math.random().toString(36).slice(2, 10)}`;
    const proxy = await TcpProxy.start(server.port);
    cleanups.push(() => proxy.close());
    const url = `postgres://postgres@127.0.0.1:${proxy.port}/postgres`;
    const storage = await PostgresStorage.connect(url, { table, retryTimeoutMs });
    cleanups.push(() => storage.close());
    const direct = await PostgresStorage.connect(server.url, { table });
    cleanups.push(() => direct.close());
    await storage.put('warm', b('w')); // prepare the statements on a pooled connection
    return { proxy, storage, direct, table };
  }
  afterAll(async () => {
    await server?.destroy();
  });

  it("a put committed but unanswered succeeds, and leaves another instance's write made meanwhile", async () => {
    const { proxy, storage, direct } = await setup();
    proxy.hold(); // the adapter's next connection (asking the outcome) waits
    proxy.armDrop('COMMIT\0');
    const putting = storage.put('k', b('mine'));
    await expect.poll(() => proxy.dropped, { timeout: 10_000 }).toBe(1);
    expect(text(await direct.get('k'))).toBe('mine'); // it committed
    expect(await direct.compareAndSet('k', b('mine'), b('theirs'))).toBe(true);
    proxy.release();
    await putting;
    expect(text(await direct.get('k'))).toBe('theirs');
  });

  it('a delete committed but unanswered leaves a key another instance created meanwhile', async () => {
    const { proxy, storage, direct } = await setup();
    await storage.put('k', b('x'));
    proxy.hold();
    proxy.armDrop('COMMIT\0');
    const deleting = storage.delete('k');
    await expect.poll(() => proxy.dropped, { timeout: 10_000 }).toBe(1);
    expect(await direct.get('k')).toBeUndefined();
    expect(await direct.compareAndSet('k', undefined, b('y'))).toBe(true);
    proxy.release();
    await deleting;
    expect(text(await direct.get('k'))).toBe('y');
  });

  it('a put whose statement went unanswered runs again, and is stored once', async () => {
    const { proxy, storage, direct, table } = await setup();
    proxy.armDrop(`tk:${table}:p\0`);
    await storage.put('fresh', b('v'));
    expect(proxy.dropped).toBe(1);
    expect(text(await direct.get('fresh'))).toBe('v');
    const pool = new (await import('pg')).default.Pool({ connectionString: server?.url });
    cleanups.push(() => pool.end());
    const r = await pool.query(`SELECT version FROM "${table}" WHERE key = 'fresh'`);
    expect(r.rows).toEqual([{ version: '1' }]); // one committed write, not a re-run over it
  });

  it('a commit left unanswered while the server stays out of reach is reported as unknown', async () => {
    const { proxy, storage, direct } = await setup(300);
    proxy.armDrop('COMMIT\0');
    proxy.hold();
    const putting = storage.put('k', b('secret-value')).then(
      () => undefined,
      (e: unknown) => e,
    );
    await expect.poll(() => proxy.dropped, { timeout: 10_000 }).toBe(1);
    await proxy.close(); // every later connection is refused
    const e = await putting;
    expect(isTransitError(e, 'internal')).toBe(true);
    expect((e as Error).message).toMatch(/put failed.*may or may not have been applied/);
    expect((e as Error).message).not.toContain('secret-value');
    expect(text(await direct.get('k'))).toBe('secret-value'); // it had committed
  });

  it('a COMMIT that never reached a server whose backend crashed is not reported as success', async () => {
    const { proxy, storage, direct, table } = await setup(60_000);
    await storage.put('k', b('old'));
    const victim = new pg.Client({ connectionString: server?.url });
    victim.on('error', () => undefined);
    await victim.connect();
    const pid = (await victim.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
    let crashed!: () => void;
    const atCommit = new Promise<void>((r) => {
      crashed = r;
    });
    proxy.intercept('COMMIT\0', () => {
      proxy.hold(); // the adapter's next connection waits for the recovery
      process.kill(pid, 'SIGKILL'); // a backend crash: the server reinitialises
      crashed();
    });
    const putting = storage.put('k', b('mine')).then(
      () => 'success',
      (e: unknown) => String(e),
    );
    await atCommit;
    // Once it is back, other transactions take the lost transaction's id again.
    let fresh: pg.Client | undefined;
    for (let i = 0; i < 200 && fresh === undefined; i++) {
      const c = new pg.Client({ connectionString: server?.url });
      c.on('error', () => undefined);
      try {
        await c.connect();
        await c.query('SELECT 1');
        fresh = c;
      } catch {
        await c.end().catch(() => undefined);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    if (!fresh) throw new Error('PostgreSQL did not come back');
    for (let i = 0; i < 20; i++) await fresh.query('SELECT txid_current()');
    await fresh.end();
    proxy.release();
    const outcome = await putting;
    const stored = text(await direct.get('k'));
    // Not applied: either run again (success, stored) or refused; never success with 'old'.
    if (outcome === 'success') expect(stored).toBe('mine');
    else expect(outcome).toMatch(/put failed/);
    expect(outcome).toBe('success'); // the probe found it uncommitted, so it ran again
    const check = new pg.Client({ connectionString: server?.url });
    await check.connect();
    const probes = await check.query(
      `SELECT count(*)::int AS n FROM "${table}_ops" WHERE by = 'p'`,
    );
    await check.end();
    expect(probes.rows[0].n).toBe(1);
  }, 90_000);

  it('a COMMIT lost on a half-open connection leaves no transaction holding the key', async () => {
    const { proxy, storage, table } = await setup(2_000);
    const other = await PostgresStorage.connect(server?.url as string, {
      table,
      retryTimeoutMs: 2_000,
      statementTimeoutMs: 8_000,
    });
    cleanups.push(() => other.close());
    await storage.put('k', b('v0'));
    proxy.intercept('COMMIT\0', (client, upstream) => {
      // Only the client's side dies; the server's side of the connection stays up.
      upstream.removeAllListeners('close');
      client.removeAllListeners('close');
      client.destroy();
      cleanups.push(async () => upstream.destroy());
    });
    const first = await storage.put('k', b('mine')).then(
      () => 'success',
      (e: unknown) => String(e),
    );
    // The transaction was ended by the server; the write was never applied.
    expect(first).toMatch(/put failed/);
    expect(first).not.toMatch(/may or may not/);
    // Another instance's write does not wait on the dead writer's row lock.
    await other.put('k', b('theirs'));
    expect(text(await other.get('k'))).toBe('theirs');
  }, 60_000);
});
