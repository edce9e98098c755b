/**
 * Writes that take effect once although their connection may break in flight.
 *
 * A `put` or `delete` whose connection broke before its reply cannot simply be
 * run again: if the first run committed and another instance wrote the key
 * meanwhile, the second run would undo that acknowledged write (or delete what
 * it created). So each runs in an explicit transaction that first records a
 * random id for it in `<table>_ops` (`by = 'w'`), then writes, then commits:
 *
 * - a connection lost before `COMMIT` was sent left nothing committed (the
 *   server rolls the transaction back), so the write runs again, with a new id;
 * - a connection lost during `COMMIT` is settled on a fresh connection by a
 *   probe that inserts the same id with `by = 'p'`. While the write's own
 *   transaction still runs, the probe waits for it (its row holds the id).
 *   If the write committed, the probe finds `'w'`: success. If not, the probe's
 *   `'p'` row stands, and the write's transaction can never commit after it:
 *   the write runs again, with a new id. A probe repeated after its own reply
 *   was lost finds its `'p'`.
 *
 * This holds through a server crash, a restart and a backend crash alike
 * (asking `txid_status` does not: a crash can hand a lost transaction's id to
 * another one). A transaction whose client vanished without the server
 * noticing (a half-open connection) would hold the key's row lock, and the
 * probe, until TCP keepalive; `idle_in_transaction_session_timeout` ends it
 * after {@link IDLE_TIMEOUT_MS}. Outcomes older than ten minutes (or four
 * retry timeouts) are dropped now and then.
 *
 * The price: a put or delete takes three round trips instead of one. Reads,
 * lists, locks and compare-and-set keep their single statement.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import type { Pool, QueryResult } from 'pg';
import { isConnectionError, pgFailure } from './errors.js';
import { Backoff, connect } from './retry.js';
import type { Schema, Statement } from './schema.js';

/** What a write needs of its store. @internal */
export interface WriteContext {
  readonly pool: Pool;
  readonly schema: Schema;
  /** How long to keep retrying while the server is unreachable. */
  readonly retryMs: number;
  /** False once the store is closing: stop retrying. */
  open(): boolean;
}

/** How long a write's transaction may sit idle (its client gone) before the server ends it. */
export const IDLE_TIMEOUT_MS = 5_000;
/** One write in this many drops old outcomes afterwards. */
const PRUNE_EVERY = 64;

/**
 * Run the write `sql` with `params` once; resolves to its result.
 * @throws `TransitError` `internal` (errors.ts) when PostgreSQL fails, stays
 * unreachable past `retryMs`, or cannot be asked whether the write committed.
 * @internal
 */
export async function writeOnce(
  ctx: WriteContext,
  op: string,
  sql: Statement,
  params: unknown[],
): Promise<QueryResult> {
  const deadline = Date.now() + ctx.retryMs;
  const backoff = new Backoff(deadline, ctx.open);
  for (;;) {
    const client = await connect(ctx.pool, backoff, op);
    const id = randomBytes(16).toString('hex'); // hex: safe inside the literal below
    let result: QueryResult | undefined;
    try {
      await client.query(
        `BEGIN; SET LOCAL idle_in_transaction_session_timeout = ${IDLE_TIMEOUT_MS}; INSERT INTO ${ctx.schema.ops} (id, by) VALUES ('${id}', 'w')`,
      );
      result = await client.query({ name: sql.name, text: sql.text, values: params });
      await client.query('COMMIT');
      client.release();
      if (Math.random() * PRUNE_EVERY < 1) prune(ctx);
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
      // Lost before COMMIT was sent: nothing was written. Lost during it: ask.
      const committed = result === undefined ? false : await probe(ctx, id, deadline);
      if (committed === true) return result as QueryResult;
      if (committed === undefined) throw pgFailure(op, e, true);
      if (!backoff.canRetry()) throw pgFailure(op, e);
      await backoff.wait();
    }
  }
}

/**
 * Whether the write with `id` committed (see the module comment); `undefined`
 * when the server cannot be asked before `deadline`. Asks at least once.
 */
async function probe(
  ctx: WriteContext,
  id: string,
  deadline: number,
): Promise<boolean | undefined> {
  const { name, text } = ctx.schema.opProbe;
  const backoff = new Backoff(deadline, ctx.open, 20);
  for (;;) {
    try {
      const r = await ctx.pool.query({ name, text, values: [id] });
      return (r.rows[0] as { by: string } | undefined)?.by === 'w';
    } catch (e) {
      if (!isConnectionError(e) || !backoff.canRetry()) return undefined;
    }
    await backoff.wait();
  }
}

/** Drop outcomes no probe can still ask for (best effort, in the background). */
function prune(ctx: WriteContext): void {
  const { name, text } = ctx.schema.opPrune;
  const age = Math.max(10 * 60_000, 4 * ctx.retryMs);
  ctx.pool.query({ name, text, values: [age] }).catch(() => undefined);
}
