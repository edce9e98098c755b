/**
 * Waiting out an unreachable server: the one retry rule every statement of
 * the store follows (postgres-storage.ts, write-once.ts).
 *
 * An attempt that failed with a connection error may be made again while the
 * store is open and the next wait ends before the deadline (`retryTimeoutMs`
 * after the operation began). The wait starts short and doubles up to 1 s.
 *
 * @module
 */
import type { Pool, PoolClient } from 'pg';
import { isConnectionError, pgFailure } from './errors.js';

/** The longest wait between two attempts. */
const MAX_DELAY_MS = 1_000;

/** The waits between the attempts of one operation. @internal */
export class Backoff {
  readonly #deadline: number;
  readonly #open: () => boolean;
  #delay: number;

  /**
   * @param deadline - `Date.now()` value after which no attempt starts.
   * @param open - false once the store is closing: stop retrying.
   * @param firstMs - the first wait.
   */
  constructor(deadline: number, open: () => boolean, firstMs = 50) {
    this.#deadline = deadline;
    this.#open = open;
    this.#delay = firstMs;
  }

  /** Whether another attempt may follow the next wait. */
  canRetry(): boolean {
    return this.#open() && Date.now() + this.#delay <= this.#deadline;
  }

  /** Wait before the next attempt; each wait doubles the next, up to 1 s. */
  async wait(): Promise<void> {
    await pause(this.#delay);
    this.#delay = Math.min(this.#delay * 2, MAX_DELAY_MS);
  }
}

/**
 * A pooled connection, waiting and trying again while connecting fails with a
 * connection error and `backoff` allows.
 * @throws `TransitError` `internal` (errors.ts) naming `op` otherwise.
 * @internal
 */
export async function connect(pool: Pool, backoff: Backoff, op: string): Promise<PoolClient> {
  for (;;) {
    try {
      const client = await pool.connect();
      guard(client);
      return client;
    } catch (e) {
      if (!isConnectionError(e) || !backoff.canRetry()) throw pgFailure(op, e);
      await backoff.wait();
    }
  }
}

const guarded = new WeakSet<PoolClient>();

/**
 * node-postgres emits `error` on a client whose connection drops, even while a
 * query of ours is running on it (the query is rejected too), and the pool only
 * listens on idle clients: without this listener the process would crash.
 */
function guard(client: PoolClient): void {
  if (guarded.has(client)) return;
  guarded.add(client);
  client.on('error', () => undefined); // the running query reports it
}

/** Resolve after `ms`. */
function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
