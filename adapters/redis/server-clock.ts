/**
 * The Redis server's clock as seen from this process, for the deadlines of
 * writes (scripts.ts, `writeOnce`).
 *
 * A write must name, on the server's clock, the moment after which a late
 * re-send of it may no longer run. This process learns the server's time with
 * one `TIME` (through a script on the store's hash tag, so a Cluster asks the
 * node that runs the store's writes) and from then on counts on its own
 * monotonic clock (`performance.now()`), which a wall-clock step here does not
 * move. The estimate is early by at most the round trip of that `TIME`; it
 * is learned again every ten minutes (so that the two clocks' drift stays far
 * below the window) and whenever a write came back refused as late.
 *
 * @module
 */
import { performance } from 'node:perf_hooks';
import type { Cluster, Redis } from 'ioredis';
import { runScript, SERVER_TIME, WRITE_WINDOW_MS } from './scripts.js';

/** How long one reading of the server's clock is used. */
const RESYNC_MS = 10 * 60_000;

/** @internal */
export class ServerClock {
  readonly #client: Redis | Cluster;
  readonly #key: string;
  /** Server ms minus `performance.now()`, once known. */
  #offset: number | undefined;
  #readAt = 0;
  #reading: Promise<number> | undefined;

  /** `key`: any Redis key of the store (it routes the `TIME` in a Cluster). */
  constructor(client: Redis | Cluster, key: string) {
    this.#client = client;
    this.#key = key;
  }

  /** The deadline, in server ms, of a write issued now. */
  async deadline(): Promise<number> {
    const now = performance.now();
    const offset =
      this.#offset !== undefined && now - this.#readAt < RESYNC_MS
        ? this.#offset
        : await this.#read();
    return Math.floor(now + offset) + WRITE_WINDOW_MS;
  }

  /** Forget the reading: the next deadline reads the server's clock again. */
  forget(): void {
    this.#offset = undefined;
  }

  #read(): Promise<number> {
    this.#reading ??= (async () => {
      try {
        const reply = (await runScript(this.#client, SERVER_TIME, [this.#key], [])) as unknown[];
        const after = performance.now();
        const serverMs = Number(reply[0]) * 1000 + Math.floor(Number(reply[1]) / 1000);
        if (!Number.isFinite(serverMs)) throw new Error('Redis TIME returned no time');
        // As if the server had been read at `after`: the offset can only come out
        // smaller than it is, so deadlines come early, never late (a read that
        // waited out an outage does not stretch them).
        this.#offset = serverMs - after;
        this.#readAt = after;
        return this.#offset;
      } finally {
        this.#reading = undefined;
      }
    })();
    return this.#reading;
  }
}
