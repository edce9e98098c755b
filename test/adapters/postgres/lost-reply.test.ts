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
 *   ends: the outcome is reported as unknown.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { PostgresStorage } from '../../../adapters/postgres/index.js';
import { isTransitError } from '../../../src/errors.js';
import {
  NO_POSTGRES_REASON,
  PostgresServer,
  SKIP_POSTGRES,
} from '../../helpers/postgres-server.js';
import { TcpProxy } from '../../helpers/tcp-proxy.js';

const b = (s: string): Uint8Array => new TextEncoder().encode(s);
const text = (u: Uint8Array | undefined): string | undefined =>
  u === undefined ? undefined : new TextDecoder().decode(u);

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
});
