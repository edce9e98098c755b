/**
 * Bounded concurrency that keeps the event loop responsive.
 *
 * A revocation against an in-memory store never leaves the microtask queue, so
 * a batch of them would run as one long macrotask. {@link Pacer} notices how
 * long it has been since the event loop last turned (a marker macrotask that
 * records the time) and, past a small budget, makes the next worker wait for
 * a turn. Workers already inside an item finish it, so the number allowed to
 * run adapts (AIMD): halved when a turn comes late, one more when turns are
 * quick. Work that waits on real I/O lets the loop turn by itself and keeps
 * full concurrency. Wall time here, not the injected clock: this is about the
 * process's latency, not about lease time.
 * @module
 */
import { yieldToLoop } from './lease.js';

const perfNow: () => number =
  typeof globalThis.performance?.now === 'function'
    ? () => globalThis.performance.now()
    : () => Date.now();

/** @internal */
export class Pacer {
  readonly #budgetMs: number;
  readonly #max: number;
  /** Workers allowed to run: halved when a turn came late, grown by one when turns are quick. */
  #allowed: number;
  #lastTurn = perfNow();
  #armed = false;

  /**
   * @param max - the most workers that may run at once.
   * @param budgetMs - the longest stretch of work between two event-loop turns.
   */
  constructor(max: number, budgetMs = 8) {
    this.#max = Math.max(1, max);
    this.#allowed = this.#max;
    this.#budgetMs = budgetMs;
  }

  /** Resolve when worker `index` may start an item: at once, or after event-loop turns. */
  async pace(index = 0): Promise<void> {
    this.#arm();
    while (index >= this.#allowed || perfNow() - this.#lastTurn > this.#budgetMs) {
      await yieldToLoop();
      this.#arm();
    }
  }

  /** Schedule the marker macrotask that records when the loop turned, and how late. */
  #arm(): void {
    if (this.#armed) return;
    this.#armed = true;
    const scheduled = perfNow();
    void yieldToLoop().then(() => {
      const now = perfNow();
      const gap = now - scheduled;
      if (gap > 2 * this.#budgetMs) this.#allowed = Math.max(1, this.#allowed >> 1);
      else if (gap < this.#budgetMs / 2) this.#allowed = Math.min(this.#max, this.#allowed + 1);
      this.#lastTurn = now;
      this.#armed = false;
    });
  }
}

/**
 * Run `fn` over `items` with at most `concurrency` in flight, pacing before each
 * item. `fn` must not reject (callers catch and count their own failures).
 * @internal
 */
export async function runPool<T>(
  items: readonly T[],
  concurrency: number,
  pacer: Pacer,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (index: number): Promise<void> => {
    while (next < items.length) {
      await pacer.pace(index);
      if (next >= items.length) return;
      const item = items[next++] as T;
      await fn(item);
    }
  };
  const n = Math.max(1, Math.min(concurrency, items.length));
  await Promise.all(Array.from({ length: n }, (_, i) => worker(i)));
}
