/**
 * The life of a `Transit` instance, kept out of the facade so that it stays a
 * list of one-line methods: the engine context built from the options, the
 * start-up work every call waits for (persisted settings, the storage watch),
 * the auto-rotation timer (gated by the node's `Leadership` when one is
 * given: background duties run on the leader only), and `close()`.
 * @module
 */

import { internal, isTransitError, TransitError } from '../errors.js';
import { asRequest } from '../request.js';
import { settledWithin } from '../util/settled-within.js';
import type { AutoRotateResult } from './auto-rotate.js';
import { loadSettings } from './config.js';
import type { Engine } from './engine.js';
import { watchForChanges } from './invalidation.js';
import { autoRotateSchedule, engineFromOptions, type TransitOptions } from './options.js';

/** A started engine. @internal */
export interface Lifecycle {
  /** The engine context (usable at once; calls should go through {@link Lifecycle.engine}). */
  readonly context: Engine;
  /** The engine, once start-up finished (rejects if it failed; the next call starts it again). */
  engine(): Promise<Engine>;
  /**
   * The engine when start-up has finished well, else `undefined`: the hot
   * calls use it to run without awaiting {@link engine} (one tick) and without
   * an async wrapper adopting their promise (two more).
   */
  started(): Engine | undefined;
  /** Stop the timer and the storage watch; storage is left open. */
  close(): Promise<void>;
}

/**
 * Validate the options, start loading settings and watching storage, and
 * schedule `tick` (an auto-rotation pass) unless `autoRotate` is false.
 * @throws TransitError `invalid_request` for a bad option.
 * @internal
 */
export function startTransit(
  opts: unknown,
  tick: (proceed?: () => Promise<boolean>) => Promise<AutoRotateResult>,
): Lifecycle {
  const options = asRequest(opts, 'options') as TransitOptions;
  const e = engineFromOptions(options);
  const schedule = autoRotateSchedule(options);
  let unwatch: (() => Promise<void>) | undefined;
  let timer: ReturnType<typeof setInterval> | undefined;
  let started: Engine | undefined;
  let ready: Promise<void> = Promise.resolve();
  let engine: Promise<Engine> | undefined;
  // Start-up: the persisted settings, then the storage watch. One promise for
  // every call: awaiting it once settled costs a call one tick, where an async
  // wrapper cost three and a new promise each time. A start-up that failed (a
  // storage unreachable a moment) is tried again by the next call, not kept.
  const start = (): Promise<Engine> => {
    ready = (async () => {
      await loadSettings(e);
      const stop = await watchForChanges(e);
      // A close that gave up waiting for this start-up has run: no watch is left behind.
      if (e.state.closed) await stop?.();
      else unwatch = stop;
    })();
    const attempt: Promise<Engine> = ready.then(
      () => {
        started = e;
        return e;
      },
      (err: unknown) => {
        if (engine === attempt) engine = undefined;
        if (isTransitError(err)) throw err;
        const reason = err instanceof Error ? err.message : String(err);
        throw internal(`the transit engine failed to start: ${reason}`, err);
      },
    );
    // Keep an unhandled rejection from escaping; every call awaits it and sees it.
    attempt.catch(() => undefined);
    return attempt;
  };
  engine = start();
  // The auto-rotation pass in flight, and when it began.
  let pass: { done: Promise<void>; since: number } | undefined;
  let closing = false;
  if (schedule) {
    const leadership = options.leadership;
    // Before each key: this engine is open, and (with a node's leadership) still leads.
    const proceed = async () =>
      !closing && (leadership === undefined || (await leadership.stillLeader()));
    // A pass whose storage call never settles is given up after ten intervals
    // (else no pass would run again, here or, since this node keeps the lock,
    // anywhere); a slow but live pass is joined by at most one more then.
    const stuckMs = 10 * schedule.intervalMs;
    timer = setInterval(() => {
      // One pass at a time: a pass longer than the interval (many keys, a slow
      // store) is not joined by another scanning every key again.
      if (pass && Date.now() - pass.since < stuckMs) return;
      // With a node's leadership, only its leader rotates (as only it expires
      // leases), and the pass checks it still leads before each key.
      const lead = leadership === undefined ? Promise.resolve(true) : leadership.ensure();
      const current = {
        since: Date.now(),
        done: lead
          .then(async (leader) => {
            if (!leader) return;
            const result = await tick(proceed);
            schedule.onResult?.(result);
          })
          .catch(() => undefined)
          .finally(() => {
            if (pass === current) pass = undefined;
          }),
      };
      pass = current;
    }, schedule.intervalMs);
    (timer as { unref?: () => void }).unref?.();
  }
  // Once closed (a node's seal closes its engine), nothing made before can use
  // a key again: a stream or call holding this lifecycle is refused, and the
  // parsed keys are dropped from memory.
  let closed: Promise<Engine> | undefined;
  return {
    context: e,
    engine: () => {
      if (closed) return closed;
      engine ??= start();
      return engine;
    },
    started: () => (closed ? undefined : started),
    async close() {
      if (!closed) {
        closed = Promise.reject(new TransitError('sealed', 'the transit engine is closed'));
        closed.catch(() => undefined);
        e.state.closed = true;
        e.store.invalidate();
      }
      if (timer) clearInterval(timer);
      timer = undefined;
      // A pass in flight stops at its next key; it is waited for (2 s at
      // most: a storage call that hangs does not hold the close).
      closing = true;
      if (pass) await settledWithin(pass.done, CLOSE_WAIT_MS);
      // Start-up (its settings read) is waited for as long, no longer.
      await settledWithin(ready, CLOSE_WAIT_MS);
      const stop = unwatch;
      unwatch = undefined;
      await stop?.();
    },
  };
}

/** How long `close()` waits for an auto-rotation pass in flight. */
const CLOSE_WAIT_MS = 2_000;
