/**
 * Writes that take effect once although their connection may break in flight.
 *
 * A `put` or `delete` whose connection broke before its reply cannot simply be
 * run again: if the first run committed and another instance wrote the key
 * meanwhile, the second run would undo that acknowledged write (or delete what
 * it created). So each runs in an explicit transaction whose id is learned
 * before the write (`BEGIN; SELECT txid_current()`), then the write, then
 * `COMMIT`:
 *
 * - a connection lost before `COMMIT` was sent leaves nothing committed (the
 *   server rolls the transaction back), so the write is run again;
 * - a connection lost during `COMMIT` is settled by asking the server, on a
 *   fresh connection, what became of that transaction (`txid_status`):
 *   committed is success, aborted is run again, and every other answer is
 *   reported as "may or may not have been applied".
 *
 * A crash can make the server hand out a transaction id again: one whose
 * records never reached the disk before the crash was never committed, and
 * recovery does not know it was used. So an id the server calls "in the
 * future" is aborted, and "committed" is believed only when the server has not
 * restarted since the id was learned (`pg_postmaster_start_time`); after a
 * restart it could be another transaction's, and the outcome is unknown.
 *
 * The price is two more round trips per put or delete; reads, lists, locks and
 * compare-and-set keep their single statement.
 *
 * @module
 */
import type { Pool, PoolClient, QueryResult } from 'pg';
import { isConnectionError, pgFailure } from './errors.js';
import type { Statement } from './schema.js';

/** What a write needs of its store. @internal */
export interface WriteContext {
  readonly pool: Pool;
  /** How long to keep retrying while the server is unreachable. */
  readonly retryMs: number;
  /** False once the store is closing: stop retrying. */
  open(): boolean;
}

const BEGIN =
  'BEGIN; SELECT txid_current()::text AS xid, pg_postmaster_start_time()::text AS started';
const STATUS =
  'SELECT txid_status($1::bigint) AS status, pg_postmaster_start_time()::text AS started';

/** The id of a write's transaction, and when the server that gave it started. */
interface Txn {
  readonly xid: string;
  readonly started: string;
}

/**
 * Run the write `sql` with `params` once; resolves to its result.
 * @throws `TransitError` `internal` (errors.ts) when PostgreSQL fails, stays
 * unreachable past `retryMs`, or cannot tell whether the write committed.
 * @internal
 */
export async function writeOnce(
  ctx: WriteContext,
  op: string,
  sql: Statement,
  params: unknown[],
): Promise<QueryResult> {
  const deadline = Date.now() + ctx.retryMs;
  let delay = 50;
  const retryOrThrow = async (e: unknown): Promise<void> => {
    if (!ctx.open() || Date.now() + delay > deadline) throw pgFailure(op, e);
    await pause(delay);
    delay = Math.min(delay * 2, 1_000);
  };
  for (;;) {
    let client: PoolClient;
    try {
      client = await ctx.pool.connect();
      guard(client);
    } catch (e) {
      if (!isConnectionError(e)) throw pgFailure(op, e);
      await retryOrThrow(e);
      continue;
    }
    let txn: Txn | undefined;
    let result: QueryResult | undefined;
    try {
      const begun = (await client.query(BEGIN)) as unknown as QueryResult[];
      txn = begun[1]?.rows[0] as Txn | undefined;
      result = await client.query({ name: sql.name, text: sql.text, values: params });
      await client.query('COMMIT');
      client.release();
      return result;
    } catch (e) {
      if (!isConnectionError(e)) {
        await client.query('ROLLBACK').then(
          () => client.release(),
          (r: unknown) => client.release(r as Error),
        );
        throw pgFailure(op, e);
      }
      client.release(e as Error); // a broken connection is discarded
      if (result === undefined || txn === undefined) {
        await retryOrThrow(e); // COMMIT was never sent: nothing was written
        continue;
      }
      const status = await statusOf(ctx, txn, deadline);
      if (status === 'committed') return result;
      if (status !== 'aborted') throw pgFailure(op, e, true);
      await retryOrThrow(e);
    }
  }
}

/**
 * What became of `txn`: `committed`, `aborted`, or `undefined` when that
 * cannot be known (see the module comment) or asked before `deadline`. Waits
 * while it is still in progress (a backend that has not yet noticed its lost
 * connection). Asks at least once.
 */
async function statusOf(
  ctx: WriteContext,
  txn: Txn,
  deadline: number,
): Promise<string | undefined> {
  for (let delay = 20; ; delay = Math.min(delay * 2, 1_000)) {
    try {
      const r = await ctx.pool.query(STATUS, [txn.xid]);
      const row = r.rows[0] as { status: string | null; started: string } | undefined;
      const status = row?.status ?? undefined;
      if (status === 'committed') return row?.started === txn.started ? status : undefined;
      if (status !== 'in progress') return status;
    } catch (e) {
      // Never logged before a crash, so never committed.
      if (isFuture(e)) return 'aborted';
      if (!isConnectionError(e)) return undefined;
    }
    if (!ctx.open() || Date.now() + delay > deadline) return undefined;
    await pause(delay);
  }
}

/** txid_status of an id past the server's next one (22023, "… is in the future"). */
function isFuture(e: unknown): boolean {
  return (
    e instanceof Error &&
    (e as { code?: unknown }).code === '22023' &&
    /in the future/.test(e.message)
  );
}

const guarded = new WeakSet<PoolClient>();

/**
 * node-postgres emits `error` on a client whose connection drops, even while a
 * query of ours is running on it (the query is rejected too), and the pool only
 * listens on idle clients: without this listener the process would crash.
 * @internal
 */
export function guard(client: PoolClient): void {
  if (guarded.has(client)) return;
  guarded.add(client);
  client.on('error', () => undefined); // the running query reports it
}

/** Resolve after `ms`. @internal */
export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
