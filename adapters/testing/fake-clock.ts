/**
 * A hand-driven {@link Clock} for tests (exported by `transitkit/testing`).
 *
 * Tests of lease expiry, auto-rotation and token TTLs move time forward
 * explicitly and never sleep. The clock starts at a fixed instant so that runs
 * are reproducible. The storage conformance suite drives lock expiry with it.
 *
 * @module
 */
import type { Clock } from 'transitkit';

/** 2026-01-01T00:00:00Z, the default start of every {@link FakeClock}. @public */
export const FAKE_CLOCK_START = Date.UTC(2026, 0, 1);

/**
 * A clock that only moves when told to.
 *
 * @example
 * ```ts
 * const clock = new FakeClock();
 * const storage = new MemoryStorage({ clock });
 * const lock = await storage.lock('leader', 1_000);
 * clock.advance(1_000); // the lease has now expired
 * ```
 * @public
 */
export class FakeClock implements Clock {
  #now: number;

  /** @param start - the initial time in ms since the epoch (default {@link FAKE_CLOCK_START}). */
  constructor(start: number = FAKE_CLOCK_START) {
    this.#now = checkTime(start);
  }

  /** The current fake time in ms since the epoch. */
  now(): number {
    return this.#now;
  }

  /** Move time forward by `ms` (at least 0) and return the new time. */
  advance(ms: number): number {
    if (!Number.isFinite(ms) || ms < 0) {
      throw new RangeError(`FakeClock.advance: ms must be a finite number >= 0, got ${ms}`);
    }
    this.#now += ms;
    return this.#now;
  }

  /** Jump to the absolute time `ms` (may go backwards, to test clock skew). */
  set(ms: number): void {
    this.#now = checkTime(ms);
  }
}

function checkTime(ms: number): number {
  if (!Number.isFinite(ms)) throw new RangeError(`FakeClock: time must be finite, got ${ms}`);
  return ms;
}
