/**
 * Expiry on a fake clock: due leases are revoked by `tick()`, never before;
 * failing revokers are retried with Vault's backoff and end irrevocable;
 * hanging revokers time out; missing revokers are unrecoverable; a restart
 * (even mid-revocation) loses nothing; and with two instances only the
 * leader expires, while compare-and-set keeps them from double-processing.
 */
import { describe, expect, it } from 'vitest';
import { keyspace } from '../../src/storage/keyspace.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { CrashableStorage, HOUR, MINUTE, SECOND, setup } from './helpers.js';

describe('tick', () => {
  it('revokes a lease when it expires, not before, and passes the lease to the revoker', async () => {
    const { leases, clock, revoked, storage } = setup();
    const { lease_id } = await leases.issue({
      path: 'db/creds/ro',
      ttl: 60,
      renewable: true,
      token: 'tok',
      data: { username: 'v-1' },
    });
    clock.advance(59 * SECOND);
    expect(await leases.tick()).toEqual({ leader: true, revoked: 0, retried: 0, irrevocable: 0 });
    clock.advance(SECOND);
    expect((await leases.tick()).revoked).toBe(1);
    expect(revoked).toEqual([
      {
        lease_id,
        path: 'db/creds/ro',
        data: { username: 'v-1' },
        token: 'tok',
        auth: false,
        issue_time: '2026-01-01T00:00:00.000Z',
        expire_time: '2026-01-01T00:01:00.000Z',
        attempt: 1,
      },
    ]);
    expect(await storage.list('')).toEqual([]);
  });

  it('longest registered prefix wins; unregistering falls back to the shorter one', async () => {
    const { leases, clock } = setup();
    const calls: string[] = [];
    leases.registerRevoker('db/creds/', () => {
      calls.push('creds');
    });
    const off = leases.registerRevoker('db/creds/admin', () => {
      calls.push('admin');
    });
    await leases.issue({ path: 'db/creds/admin', ttl: 1, renewable: false });
    await leases.issue({ path: 'db/creds/ro', ttl: 2, renewable: false });
    clock.advance(1 * SECOND);
    await leases.tick();
    off();
    await leases.issue({ path: 'db/creds/admin', ttl: 1, renewable: false });
    clock.advance(5 * SECOND);
    await leases.tick();
    expect(calls).toEqual(['admin', 'creds', 'creds']);
  });

  it('processes many due leases in slices, letting the event loop run between them', async () => {
    const { leases, clock, revoked } = setup({ sliceSize: 50 });
    for (let i = 0; i < 1_000; i++)
      await leases.issue({ path: 'db/many', ttl: 60, renewable: false });
    let turns = 0;
    let running = true;
    const spin = () => {
      turns++;
      if (running) setImmediate(spin);
    };
    setImmediate(spin);
    clock.advance(MINUTE);
    expect((await leases.tick()).revoked).toBe(1_000);
    running = false;
    expect(revoked).toHaveLength(1_000);
    expect(turns).toBeGreaterThanOrEqual(19); // at least one turn between each of the 20 slices
  });

  it('start() ticks on a timer; stop() ends it and gives up leadership', async () => {
    const { leases, clock, revoked } = setup();
    await leases.issue({ path: 'db', ttl: 1, renewable: false });
    clock.advance(SECOND);
    leases.start(5);
    await expect.poll(() => revoked.length, { timeout: 2_000, interval: 5 }).toBe(1);
    expect(leases.isLeader()).toBe(true);
    await leases.stop();
    expect(leases.isLeader()).toBe(false);
  });
});

describe('failing revokers', () => {
  it('are retried with backoff 2^attempt × 10 s ± 50%, then the lease is irrevocable', async () => {
    const { leases, clock, storage } = setup();
    let calls = 0;
    leases.registerRevoker('db/', () => {
      calls++;
      throw new Error('connection refused');
    });
    const { lease_id } = await leases.issue({ path: 'db/x', ttl: 60, renewable: true });
    clock.advance(MINUTE);
    for (let attempt = 1; attempt <= 5; attempt++) {
      expect(await leases.tick()).toMatchObject({ retried: 1, irrevocable: 0 });
      expect(calls).toBe(attempt);
      const [key] = await storage.list(keyspace.leaseDuePrefix);
      const wait = Number(key?.slice(0, 13)) - clock.now();
      const base = 2 ** attempt * 10 * SECOND;
      expect(wait).toBeGreaterThanOrEqual(base / 2);
      expect(wait).toBeLessThanOrEqual((base * 3) / 2);
      clock.advance(wait - 1);
      expect((await leases.tick()).retried).toBe(0); // not before its time
      clock.advance(1);
    }
    expect(await leases.tick()).toMatchObject({ retried: 0, irrevocable: 1 });
    expect(calls).toBe(6);
    expect(await storage.list(keyspace.leaseDuePrefix)).toEqual([]);
    expect(await leases.listIrrevocable()).toEqual({
      lease_count: 1,
      leases: [{ lease_id, mount_id: 'db/', error: 'out of retries: connection refused' }],
    });
    clock.advance(24 * HOUR);
    await leases.tick();
    expect(calls).toBe(6); // irrevocable: kept, no longer scheduled
    expect((await leases.lookup(lease_id)).renewable).toBe(false);
  });

  it('maxRevokeAttempts bounds the attempts; the error text is cut to 240 characters', async () => {
    const { leases, clock } = setup({ maxRevokeAttempts: 2 });
    leases.registerRevoker('db/', () => {
      throw new Error('x'.repeat(500));
    });
    await leases.issue({ path: 'db/x', ttl: 1, renewable: true });
    clock.advance(SECOND);
    await leases.tick();
    clock.advance(HOUR);
    await leases.tick();
    const [lease] = (await leases.listIrrevocable()).leases;
    expect(lease?.error).toHaveLength(240);
    expect(lease?.error.startsWith('out of retries: xxx')).toBe(true);
  });

  it('a hanging revoker times out (its signal aborts) and counts as a failed attempt', async () => {
    const { leases, clock } = setup({ revokeTimeoutMs: 20, maxRevokeAttempts: 1 });
    let aborted = false;
    leases.registerRevoker('db/', (_lease, { signal }) => {
      signal.addEventListener('abort', () => {
        aborted = true;
      });
      return new Promise<void>(() => undefined);
    });
    await leases.issue({ path: 'db/x', ttl: 1, renewable: true });
    clock.advance(SECOND);
    expect((await leases.tick()).irrevocable).toBe(1);
    expect(aborted).toBe(true);
    expect((await leases.listIrrevocable()).leases[0]?.error).toBe(
      'out of retries: revocation timed out after 20 ms',
    );
  });

  it('a missing revoker makes the lease irrevocable at once', async () => {
    const { leases, clock } = setup();
    const { lease_id } = await leases.issue({ path: 'nobody/x', ttl: 1, renewable: true });
    clock.advance(SECOND);
    expect((await leases.tick()).irrevocable).toBe(1);
    expect((await leases.listIrrevocable()).leases).toEqual([
      { lease_id, mount_id: 'nobody/', error: `no revoker registered for lease "${lease_id}"` },
    ]);
  });

  it('an error flagged unrecoverable makes it irrevocable at once, without the retry prefix', async () => {
    const { leases, clock } = setup();
    leases.registerRevoker('db/', () => {
      throw Object.assign(new Error('role deleted'), { unrecoverable: true });
    });
    await leases.issue({ path: 'db/x', ttl: 1, renewable: true });
    clock.advance(SECOND);
    expect((await leases.tick()).irrevocable).toBe(1);
    expect((await leases.listIrrevocable()).leases[0]?.error).toBe('role deleted');
  });

  it('a revoker that throws a non-Error (an empty string) fails the attempt: error `unknown`', async () => {
    const { leases, clock } = setup({ maxRevokeAttempts: 1 });
    leases.registerRevoker('db/', () => {
      throw '';
    });
    await leases.issue({ path: 'db/x', ttl: 1, renewable: true });
    clock.advance(SECOND);
    await leases.tick();
    expect((await leases.listIrrevocable()).leases[0]?.error).toBe('out of retries: unknown');
  });
});

describe('restarts', () => {
  it('a new manager finds every lease and revokes those that expired while it was down', async () => {
    const clock = new FakeClock();
    const first = setup({ clock });
    const gone = await first.leases.issue({ path: 'db/a', ttl: 60, renewable: true });
    const kept = await first.leases.issue({ path: 'db/b', ttl: 3 * 3600, renewable: true });
    await first.leases.tick();
    clock.advance(2 * HOUR); // the process is down
    const second = setup({ clock, storage: first.storage });
    expect((await second.leases.lookup(kept.lease_id)).ttl).toBe(3600);
    expect((await second.leases.tick()).revoked).toBe(1);
    expect(second.revoked.map((l) => l.lease_id)).toEqual([gone.lease_id]);
    clock.advance(HOUR);
    expect((await second.leases.tick()).revoked).toBe(1);
  });

  it('a crash in the middle of a revocation: the lease is tried again once the claim lapses', async () => {
    const clock = new FakeClock();
    const inner = new MemoryStorage({ clock });
    const crashable = new CrashableStorage(inner);
    const first = setup({ clock, storage: crashable });
    first.leases.registerRevoker('db/', () => {
      crashable.freeze(); // the process dies while the revoker runs
    });
    const { lease_id } = await first.leases.issue({ path: 'db/x', ttl: 1, renewable: true });
    clock.advance(SECOND);
    await first.leases.tick().catch(() => undefined);
    const second = setup({ clock, storage: inner });
    expect((await second.leases.tick()).revoked).toBe(0); // claimed: maybe still running
    clock.advance(MINUTE);
    expect((await second.leases.tick()).revoked).toBe(1);
    expect(second.revoked.map((l) => [l.lease_id, l.attempt])).toEqual([[lease_id, 2]]);
  });

  it('index keys with no lease (a crash between writes) are dropped after a grace period', async () => {
    const { leases, clock, storage } = setup();
    await leases.tick();
    const key = keyspace.leaseDue(clock.now(), 'db/ghost');
    await storage.put(key, new Uint8Array(0));
    await leases.tick();
    expect(await storage.get(key)).toBeDefined();
    clock.advance(MINUTE);
    await leases.tick();
    expect(await storage.get(key)).toBeUndefined();
  });
});

describe('several instances on one storage', () => {
  it('only the leader expires leases; the other takes over when the lock lapses', async () => {
    const clock = new FakeClock();
    const storage = new MemoryStorage({ clock });
    const a = setup({ clock, storage, leaderTtlMs: 30 * SECOND });
    const b = setup({ clock, storage, leaderTtlMs: 30 * SECOND });
    expect((await a.leases.tick()).leader).toBe(true);
    expect(await b.leases.tick()).toEqual({
      leader: false,
      revoked: 0,
      retried: 0,
      irrevocable: 0,
    });
    expect([a.leases.isLeader(), b.leases.isLeader()]).toEqual([true, false]);
    await b.leases.issue({ path: 'db/from-b', ttl: 10, renewable: false }); // not in a's heap
    await a.leases.issue({ path: 'db/from-a', ttl: 10, renewable: false });
    clock.advance(10 * SECOND);
    expect((await b.leases.tick()).revoked).toBe(0);
    expect((await a.leases.tick()).revoked).toBe(2);
    expect(b.revoked).toEqual([]);
    // a stops ticking (hung or gone): b takes over once a's lock lapses.
    await b.leases.issue({ path: 'db/later', ttl: 60, renewable: false });
    clock.advance(MINUTE);
    expect((await b.leases.tick()).revoked).toBe(1);
    expect(b.leases.isLeader()).toBe(true);
    expect((await a.leases.tick()).leader).toBe(false);
    expect(a.leases.isLeader()).toBe(false);
  });

  it('stop() releases the lock at once', async () => {
    const clock = new FakeClock();
    const storage = new MemoryStorage({ clock });
    const a = setup({ clock, storage });
    const b = setup({ clock, storage });
    await a.leases.tick();
    expect((await b.leases.tick()).leader).toBe(false);
    await a.leases.stop();
    expect((await b.leases.tick()).leader).toBe(true);
  });

  it('two instances that both tick (storage without locks) never revoke a lease twice', async () => {
    const clock = new FakeClock();
    const shared = new CrashableStorage(new MemoryStorage({ clock })); // no lock capability
    const a = setup({ clock, storage: shared });
    const b = setup({ clock, storage: shared });
    for (let i = 0; i < 200; i++) await a.leases.issue({ path: 'db/x', ttl: 1, renewable: false });
    clock.advance(SECOND);
    const [ra, rb] = await Promise.all([a.leases.tick(), b.leases.tick()]);
    expect(ra.leader && rb.leader).toBe(true);
    expect(ra.revoked + rb.revoked).toBe(200);
    const all = [...a.revoked, ...b.revoked].map((l) => l.lease_id);
    expect(new Set(all).size).toBe(200);
    expect(all).toHaveLength(200);
  });
});
