/**
 * Lease locks on PostgreSQL: one row per held name in `<table>_locks`, holding a
 * random 128-bit token per take and an expiry on the database server's clock
 * (one clock for every instance). Each operation is one statement (schema.ts).
 *
 * Why lease rows and not session advisory locks: an advisory lock lives as long
 * as its session, and the server only notices a dead session when the TCP
 * connection breaks. A holder that was SIGKILLed closes its socket, but one whose
 * host froze or was cut off can keep a half-open session, and so the lock, for
 * as long as TCP keepalive allows (hours by default). A lease row is free
 * `ttl` after its holder's last refresh, whatever happened to the holder; the
 * leader duty fails over within `ttl` plus one refresh interval (LeaseManager:
 * 10 s + 5 s by default).
 *
 * As in the memory and Redis adapters, a lease that expired but that nobody took
 * since is still its holder's: the row keeps the last taker's token until it
 * releases, so `refresh` extends it and a new taker changes the token.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import type { LockHandle } from 'transitkit';
import { checkLockName, lockTtlMs } from '../../src/storage/lock-args.js';
import type { Schema, Statement } from './schema.js';

/** Runs one idempotent statement (retried through reconnections); resolves to its row count. @internal */
export type RunStatement = (op: string, sql: Statement, params: unknown[]) => Promise<number>;

/**
 * Take the lock `name` for `ttlMs`, or `undefined` while another holder has it.
 * @throws `TransitError` `invalid_request` for a bad name or TTL; `internal` when PostgreSQL fails.
 * @internal
 */
export async function acquireLock(
  run: RunStatement,
  schema: Schema,
  name: string,
  ttlMs: number,
): Promise<LockHandle | undefined> {
  checkLockName(name);
  const ttl = lockTtlMs(ttlMs);
  const token = randomBytes(16).toString('hex');
  const taken = await run('lock', schema.lockAcquire, [name, token, ttl]);
  if (taken !== 1) return undefined;
  return {
    refresh: async (nextTtlMs: number) => {
      const nextTtl = lockTtlMs(nextTtlMs);
      return (await run('lock refresh', schema.lockRefresh, [name, token, nextTtl])) === 1;
    },
    release: async () => {
      await run('lock release', schema.lockRelease, [name, token]);
    },
  };
}
