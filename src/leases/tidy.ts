/**
 * `POST /sys/leases/tidy`: revoke the leases whose token is gone or expired
 * ("dangling" → revoked in the spec's lease state table).
 *
 * Kept simple: one pass over every lease entry, a page at a time; leases with
 * no `token` are application leases and are left alone; each distinct token
 * is checked once per pass through the `tokenExists` hook; a dangling lease is
 * revoked synchronously, and a revoker failure is counted (the lease is then
 * retried in the background like any other). It reads every lease, so it is
 * an operator's tool, not something to run on a timer.
 * @module
 */
import { conflict, unsupported } from '../errors.js';
import { type LeaseContext, leaseIds, readLease } from './lease-store.js';
import { Pacer, runPool } from './pool.js';
import { inBackground, revokeSync } from './revoke.js';
import type { TidyResult } from './types.js';

/** A pass's stop flag: set by {@link tidyRunner}'s `cancel` (the manager's `stop()`). */
type Pass = { stopped: boolean };

/**
 * One pass (through {@link tidyRunner}, one at a time). A stop is honoured
 * between leases, never inside one: a revocation under way finishes.
 * @throws TransitError `unsupported_operation` when no `tokenExists` hook was given;
 * `conflict` when the pass was stopped before its end.
 */
async function tidyLeases(ctx: LeaseContext, pass: Pass): Promise<TidyResult> {
  const tokenExists = tidyHook(ctx);
  const result: TidyResult = { checked: 0, revoked: 0, failed: 0 };
  const known = new Map<string, Promise<boolean>>();
  const pacer = new Pacer(ctx.concurrency);
  for await (const ids of leaseIds(ctx, '')) {
    if (pass.stopped) break;
    await runPool(ids, ctx.concurrency, pacer, async (id) => {
      if (pass.stopped) return;
      const snap = await readLease(ctx, id);
      const token = snap?.rec.token;
      if (token === undefined) return;
      result.checked++;
      let alive = known.get(token);
      if (alive === undefined) {
        alive = tokenExists(token);
        known.set(token, alive);
      }
      if (await alive) return;
      try {
        await revokeSync(ctx, id, false);
        result.revoked++;
      } catch (e) {
        result.failed++;
        ctx.onError(e);
      }
    });
  }
  if (pass.stopped) throw stoppedError(result);
  return result;
}

/** The errors of stopped passes (a background pass ends on one silently). */
const stops = new WeakSet<object>();
const isStopped = (e: unknown): boolean => typeof e === 'object' && e !== null && stops.has(e);

/** Why a stopped pass ends early; what it did before is in the text. */
function stoppedError(r: TidyResult): Error {
  const e = conflict(
    `tidy stopped: the lease manager is stopping (checked ${r.checked}, revoked ${r.revoked}, failed ${r.failed})`,
  );
  stops.add(e);
  return e;
}

/** The `tokenExists` hook tidy needs. @throws TransitError `unsupported_operation` without it. */
function tidyHook(ctx: LeaseContext): (token: string) => Promise<boolean> {
  const tokenExists = ctx.tokenExists;
  if (tokenExists === undefined) {
    throw unsupported('tidy needs the tokenExists option of the LeaseManager');
  }
  return tokenExists;
}

/**
 * One tidy at a time per manager: `run` joins the pass under way, if any
 * (Vault's `tidyLock`), else starts one; `start` runs it in the background
 * (Vault's `sys/leases/tidy`: answered at once, failures to `onError`, and
 * `idle()` waits for it), refusing at once when the manager cannot tidy;
 * `cancel` stops the pass under way at its next lease (Vault's tidy scans
 * under the expiration manager's quit context, which sealing cancels): its
 * callers get a `conflict`, and a background pass ends without an `onError`.
 * @internal
 */
export function tidyRunner(ctx: LeaseContext): {
  run(): Promise<TidyResult>;
  start(): void;
  cancel(): void;
} {
  let running: { pass: Pass; done: Promise<TidyResult> } | undefined;
  const run = (): Promise<TidyResult> => {
    if (running) return running.done;
    const pass: Pass = { stopped: false };
    const done = tidyLeases(ctx, pass).finally(() => {
      running = undefined; // no other pass starts while this one is `running`
    });
    running = { pass, done };
    return done;
  };
  return {
    run,
    start() {
      tidyHook(ctx);
      inBackground(ctx, () =>
        run().catch((e: unknown) => {
          if (!isStopped(e)) throw e;
        }),
      );
    },
    cancel() {
      if (running) running.pass.stopped = true;
    },
  };
}
