/**
 * The gaps left by the other lease tests, found by auditing them against the
 * spec's lease state table and issue 6's Done-when:
 * - a lease between failed attempts is not active: renew is refused, lookup
 *   says not renewable, and an explicit revoke runs it now;
 * - a revoker that hangs, then recovers: the lease ends revoked, nothing lost;
 *   the signal it reads after its timeout is aborted;
 * - a restart keeps the retry schedule (attempt count, next time) and the
 *   irrevocable leases with their error;
 * - a leader's heap does not grow with renewals (stale pairs trigger a reload);
 * - two managers on one MemoryStorage, both ticking: only the leader's revoker
 *   ever runs, and a take-over continues a lease's attempts where they were.
 */
import { describe, expect, it } from 'vitest';
import { isTransitError } from '../../src/errors.js';
import { MIN_STALE_FOR_REBUILD } from '../../src/leases/expiry-queue.js';
import type { StorageAdapter } from '../../src/storage/adapter.js';
import { keyspace } from '../../src/storage/keyspace.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { CrashableStorage, HOUR, MINUTE, SECOND, setup } from './helpers.js';

async function message(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isTransitError(err), String(err)).toBe(true);
  return (err as Error).message;
}

/** The time of the next scheduled action of the only due lease. */
async function nextDue(storage: StorageAdapter): Promise<number> {
  const keys = await storage.list(keyspace.leaseDuePrefix);
  expect(keys).toHaveLength(1);
  return Number(keys[0]?.slice(0, 13));
}

describe('a lease between failed revocation attempts', () => {
  it('cannot be renewed, looks up as not renewable, and an explicit revoke runs it now', async () => {
    const { leases, clock } = setup();
    let fail = true;
    const seen: number[] = [];
    leases.registerRevoker('db/', (lease) => {
      seen.push(lease.attempt);
      if (fail) throw new Error('connection refused');
    });
    const { lease_id } = await leases.issue({ path: 'db/x', ttl: 60, renewable: true });
    clock.advance(MINUTE);
    expect((await leases.tick()).retried).toBe(1);
    expect(await message(leases.renew(lease_id, 60))).toBe('lease expired');
    expect(await leases.lookup(lease_id)).toMatchObject({ renewable: false, ttl: 0 });
    fail = false;
    await leases.revoke(lease_id); // before its retry time
    expect(seen).toEqual([1, 2]);
    expect(await message(leases.lookup(lease_id))).toBe('invalid lease');
    clock.advance(HOUR);
    expect(await leases.tick()).toMatchObject({ revoked: 0, retried: 0 }); // nothing left over
  });
});

describe('a revoker that hangs, then recovers', () => {
  it('the timed-out attempt is retried and the lease ends revoked', async () => {
    const { leases, clock, storage } = setup({ revokeTimeoutMs: 20 });
    let hang = true;
    const done: string[] = [];
    leases.registerRevoker('db/', async (lease) => {
      if (hang) return new Promise<void>(() => undefined);
      done.push(lease.lease_id);
    });
    const { lease_id } = await leases.issue({ path: 'db/x', ttl: 1, renewable: true });
    clock.advance(SECOND);
    expect(await leases.tick()).toMatchObject({ revoked: 0, retried: 1 });
    expect(await leases.count({ type: 'irrevocable' })).toEqual({ lease_count: 0, counts: {} });
    hang = false;
    clock.advance((await nextDue(storage)) - clock.now());
    expect(await leases.tick()).toMatchObject({ revoked: 1, retried: 0 });
    expect(done).toEqual([lease_id]);
    expect(await storage.list('sys/leases/')).toEqual([]);
  });
});

describe('the signal of a timed-out attempt', () => {
  it('is aborted, also when the revoker first reads it after the timeout', async () => {
    const { leases, clock } = setup({ revokeTimeoutMs: 20 });
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const seen: boolean[] = [];
    leases.registerRevoker('db/', async (_lease, { signal }) => {
      await gate;
      seen.push(signal.aborted);
    });
    await leases.issue({ path: 'db/x', ttl: 1, renewable: true });
    clock.advance(SECOND);
    expect((await leases.tick()).retried).toBe(1); // resolved by the timeout
    release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual([true]);
  });
});

describe('restarts keep the schedule', () => {
  it('a lease waiting for its retry keeps its attempt count and time in a new manager', async () => {
    const clock = new FakeClock();
    const first = setup({ clock });
    first.leases.registerRevoker('db/', () => {
      throw new Error('connection refused');
    });
    const { lease_id } = await first.leases.issue({ path: 'db/x', ttl: 1, renewable: true });
    clock.advance(SECOND);
    await first.leases.tick(); // attempt 1 failed
    const due = await nextDue(first.storage);
    await first.leases.stop();
    const second = setup({ clock, storage: first.storage });
    clock.advance(due - clock.now() - 1);
    expect((await second.leases.tick()).revoked).toBe(0); // not before its time
    clock.advance(1);
    expect((await second.leases.tick()).revoked).toBe(1);
    expect(second.revoked.map((l) => [l.lease_id, l.attempt])).toEqual([[lease_id, 2]]);
  });

  it('irrevocable leases and their errors survive a restart, and stay out of the schedule', async () => {
    const clock = new FakeClock();
    const first = setup({ clock, maxRevokeAttempts: 1 });
    first.leases.registerRevoker('db/', () => {
      throw new Error('role missing');
    });
    const a = await first.leases.issue({ path: 'db/a', ttl: 1, renewable: true });
    const b = await first.leases.issue({ path: 'other/b', ttl: 2, renewable: true });
    clock.advance(2 * SECOND);
    expect((await first.leases.tick()).irrevocable).toBe(2);
    const second = setup({ clock, storage: first.storage });
    expect(await second.leases.count({ type: 'irrevocable' })).toEqual({
      lease_count: 2,
      counts: { 'db/': 1, 'other/': 1 },
    });
    expect((await second.leases.listIrrevocable({ limit: 'none' })).leases).toEqual([
      { lease_id: a.lease_id, mount_id: 'db/', error: 'out of retries: role missing' },
      {
        lease_id: b.lease_id,
        mount_id: 'other/',
        error: `no revoker registered for lease "${b.lease_id}"`,
      },
    ]);
    clock.advance(HOUR);
    expect((await second.leases.tick()).revoked).toBe(0);
    expect(second.revoked).toEqual([]); // irrevocable: never retried by the schedule
    await second.leases.revoke(a.lease_id); // an explicit revoke tries again, and succeeds
    expect(second.revoked.map((l) => l.lease_id)).toEqual([a.lease_id]);
    expect((await second.leases.count({ type: 'irrevocable' })).lease_count).toBe(1);
  });
});

describe('the heap of a leader stays O(live leases)', () => {
  it('a lease renewed thousands of times: the stale pairs are dropped by a reload, expiry unchanged', async () => {
    const clock = new FakeClock();
    const inner = new MemoryStorage({ clock });
    const loads: number[] = [];
    const storage = new CrashableStorage(inner); // no lock capability: always the leader
    const list = storage.list.bind(storage);
    storage.list = (prefix, options) => {
      if (prefix === keyspace.leaseDuePrefix && options?.limit === 2_000) loads.push(clock.now());
      return list(prefix, options);
    };
    const { leases, revoked } = setup({ clock, storage });
    const other = await leases.issue({ path: 'db/other', ttl: 7_200, renewable: false });
    const { lease_id } = await leases.issue({ path: 'db/x', ttl: 3_600, renewable: true });
    await leases.tick();
    expect(loads).toHaveLength(1);
    for (let i = 0; i < MIN_STALE_FOR_REBUILD + 10; i++) {
      clock.advance(1); // each renewal moves the expiry: one more stale pair
      await leases.renew(lease_id, 3_600);
    }
    await leases.tick();
    expect(loads).toHaveLength(2); // reloaded from the storage index
    clock.advance(HOUR - 1);
    expect((await leases.tick()).revoked).toBe(0);
    clock.advance(1);
    expect((await leases.tick()).revoked).toBe(1);
    clock.advance(HOUR);
    expect((await leases.tick()).revoked).toBe(1);
    expect(revoked.map((l) => l.lease_id)).toEqual([lease_id, other.lease_id]);
    expect(loads).toHaveLength(2);
  });
});

describe('two managers on one MemoryStorage', () => {
  it('both ticking: only the leader revokes, whoever issued the leases', async () => {
    const clock = new FakeClock();
    const storage = new MemoryStorage({ clock });
    const a = setup({ clock, storage });
    const b = setup({ clock, storage });
    for (let i = 0; i < 50; i++) {
      await (i % 2 === 0 ? a : b).leases.issue({ path: 'db/x', ttl: 1 + (i % 5), renewable: true });
    }
    const results = [];
    for (let s = 0; s < 6; s++) {
      clock.advance(SECOND);
      results.push(...(await Promise.all([a.leases.tick(), b.leases.tick()])));
    }
    expect(results.filter((r) => r.leader).length).toBe(6); // exactly one leader per round
    expect(a.revoked).toHaveLength(50);
    expect(b.revoked).toEqual([]);
    expect(await storage.list(keyspace.leaseEntryPrefix)).toEqual([]);
  });

  it('a take-over continues a failing lease’s attempts and ends it irrevocable, once', async () => {
    const clock = new FakeClock();
    const storage = new MemoryStorage({ clock });
    const leaderTtlMs = 30 * SECOND;
    const a = setup({ clock, storage, leaderTtlMs, maxRevokeAttempts: 3 });
    const b = setup({ clock, storage, leaderTtlMs, maxRevokeAttempts: 3 });
    const attempts: string[] = [];
    for (const [name, m] of [
      ['a', a],
      ['b', b],
    ] as const) {
      m.leases.registerRevoker('db/', (lease) => {
        attempts.push(`${name}${lease.attempt}`);
        throw new Error('down');
      });
    }
    await a.leases.issue({ path: 'db/x', ttl: 1, renewable: true });
    clock.advance(SECOND);
    expect((await a.leases.tick()).retried).toBe(1); // a leads: attempt 1
    expect((await b.leases.tick()).leader).toBe(false);
    // a stops ticking; its lock lapses; b takes over at the retry time.
    clock.advance(Math.max(leaderTtlMs, (await nextDue(storage)) - clock.now()));
    expect(await b.leases.tick()).toMatchObject({ leader: true, retried: 1 });
    clock.advance((await nextDue(storage)) - clock.now());
    expect(await b.leases.tick()).toMatchObject({ leader: true, irrevocable: 1 });
    expect((await a.leases.tick()).leader).toBe(false);
    expect(attempts).toEqual(['a1', 'b2', 'b3']);
    expect((await b.leases.count({ type: 'irrevocable' })).lease_count).toBe(1);
  });
});
