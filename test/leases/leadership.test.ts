/**
 * One leadership shared by lease expiry and auto-rotation (issue #23 part 4),
 * in one process on a MemoryStorage with a fake clock:
 * - a `LeaseManager` given a `Leadership` ticks under it, exposes it, and
 *   leaves its release to the owner;
 * - a `Transit` given a `Leadership` runs its auto-rotation timer only while
 *   that leadership holds the lock; without one it rotates on its own timer.
 * The auto-rotation timer is driven with vitest's fake timers (no sleeping).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Leadership, LeaseManager, Transit } from '../../src/index.js';
import { keyspace } from '../../src/storage/keyspace.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { FakeClock } from '../helpers/fake-clock.js';

const HOUR_MS = 3_600_000;

/** A storage holding one key `k` that is due for auto-rotation now. */
async function dueKey(clock: FakeClock, storage: MemoryStorage): Promise<void> {
  const t = new Transit({ storage, clock, autoRotate: false });
  await t.createKey('k', { auto_rotate_period: '1h' });
  await t.close();
  clock.advance(2 * HOUR_MS);
}

async function latest(storage: MemoryStorage, clock: FakeClock): Promise<number> {
  const t = new Transit({ storage, clock, autoRotate: false });
  try {
    return (await t.readKey('k')).latest_version;
  } finally {
    await t.close();
  }
}

afterEach(() => {
  vi.useRealTimers();
});

describe('Leadership', () => {
  it('takes, refreshes and loses the lock, telling its listeners', async () => {
    const clock = new FakeClock();
    const storage = new MemoryStorage({ clock });
    const a = new Leadership({ storage, clock, ttlMs: 1_000, refreshMs: 250 });
    const b = new Leadership({ storage, clock, ttlMs: 1_000, refreshMs: 250 });
    const heard: boolean[] = [];
    a.onChange((leader) => heard.push(leader));
    expect(await a.ensure()).toBe(true);
    expect(await b.ensure()).toBe(false);
    clock.advance(500);
    expect(await a.ensure()).toBe(true); // refreshed
    clock.advance(900);
    expect(await b.ensure()).toBe(false);
    clock.advance(1_000); // a's lease lapsed; b takes it
    expect(await b.ensure()).toBe(true);
    expect(await a.ensure()).toBe(false);
    expect(heard).toEqual([true, false]);
    await b.stop();
    expect(b.isLeader()).toBe(false);
    expect(await a.ensure()).toBe(true);
    await a.stop();
  });

  it('without a lock capability every instance leads', async () => {
    const storage = new MemoryStorage();
    const bare = {
      get: storage.get.bind(storage),
      put: storage.put.bind(storage),
      delete: storage.delete.bind(storage),
      list: storage.list.bind(storage),
      compareAndSet: storage.compareAndSet.bind(storage),
      close: storage.close.bind(storage),
    };
    const l = new Leadership({ storage: bare, ttlMs: 1_000, refreshMs: 250 });
    expect(await l.ensure()).toBe(true);
    expect(l.isLeader()).toBe(true);
  });
});

describe('a LeaseManager on a shared Leadership', () => {
  it('ticks under it, exposes it and does not release it on stop', async () => {
    const clock = new FakeClock();
    const storage = new MemoryStorage({ clock });
    const leadership = new Leadership({ storage, clock, ttlMs: 1_000, refreshMs: 250 });
    const leases = new LeaseManager({ storage, clock, leadership });
    expect(leases.leadership).toBe(leadership);
    expect((await leases.tick()).leader).toBe(true);
    expect(leadership.isLeader()).toBe(true);
    await leases.stop();
    expect(leadership.isLeader()).toBe(true);
    expect(await storage.lock(keyspace.leaseLeaderLock, 1_000)).toBeUndefined();
    await leadership.stop();
    expect(await storage.lock(keyspace.leaseLeaderLock, 1_000)).toBeDefined();
  });

  it('its own leadership follows leaderTtlMs and is released on stop', async () => {
    const clock = new FakeClock();
    const storage = new MemoryStorage({ clock });
    const leases = new LeaseManager({ storage, clock, leaderTtlMs: 4_000 });
    expect(leases.leadership.ttlMs).toBe(4_000);
    expect(leases.leadership.refreshMs).toBe(1_000);
    expect((await leases.tick()).leader).toBe(true);
    await leases.stop();
    expect(await storage.lock(keyspace.leaseLeaderLock, 1_000)).toBeDefined();
  });

  it('refuses a leadership that is not a Leadership', () => {
    const storage = new MemoryStorage();
    expect(() => new LeaseManager({ storage, leadership: {} as Leadership })).toThrow(
      /'leadership' must be a Leadership/,
    );
    expect(() => new Transit({ storage, leadership: {} as Leadership })).toThrow(
      /'leadership' must be a Leadership/,
    );
  });
});

describe('auto-rotation under a Leadership', () => {
  it('rotates on its timer only while it leads', async () => {
    const clock = new FakeClock();
    const storage = new MemoryStorage({ clock });
    await dueKey(clock, storage);
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const other = await storage.lock(keyspace.leaseLeaderLock, 60_000); // another node leads
    const leadership = new Leadership({ storage, clock, ttlMs: 1_000, refreshMs: 250 });
    const results: string[][] = [];
    const transit = new Transit({
      storage,
      clock,
      leadership,
      autoRotate: { intervalMs: 100, onResult: (r) => results.push(r.rotated) },
    });
    await vi.advanceTimersByTimeAsync(500);
    expect(results).toEqual([]);
    expect(await latest(storage, clock)).toBe(1);
    await other?.release();
    await vi.advanceTimersByTimeAsync(100);
    await vi.waitFor(() => expect(results[0]).toEqual(['k']));
    expect(await latest(storage, clock)).toBe(2);
    await transit.close();
    await leadership.stop();
  });

  it('without one, every instance rotates on its own timer', async () => {
    const clock = new FakeClock();
    const storage = new MemoryStorage({ clock });
    await dueKey(clock, storage);
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    await storage.lock(keyspace.leaseLeaderLock, 60_000); // irrelevant without a leadership
    const results: string[][] = [];
    const transit = new Transit({
      storage,
      clock,
      autoRotate: { intervalMs: 100, onResult: (r) => results.push(r.rotated) },
    });
    await vi.advanceTimersByTimeAsync(100);
    await vi.waitFor(() => expect(results[0]).toEqual(['k']));
    await transit.close();
  });
});

describe('a leader whose storage stops answering', () => {
  /** A store whose lock handles can be made to hang (a partition: requests never answer). */
  class Hanging extends MemoryStorage {
    hang = false;
    override async lock(name: string, ttlMs: number) {
      const h = await super.lock(name, ttlMs);
      if (!h) return h;
      return {
        refresh: (ms: number) => (this.hang ? new Promise<boolean>(() => {}) : h.refresh(ms)),
        release: () => (this.hang ? new Promise<void>(() => {}) : h.release()),
      };
    }
  }

  it('stops saying it leads once a TTL passed without a refresh, and stop() does not wait on the hung call', async () => {
    const clock = new FakeClock();
    const storage = new Hanging({ clock });
    const leader = new Leadership({ storage, clock, ttlMs: 200, refreshMs: 50 });
    expect(await leader.ensure()).toBe(true);
    storage.hang = true;
    void leader.ensure(); // a refresh that never answers
    clock.advance(150);
    expect(leader.isLeader()).toBe(true); // still within its TTL
    clock.advance(60);
    expect(leader.isLeader()).toBe(false); // the lock may have run out: another may lead
    const standby = new Leadership({ storage, clock, ttlMs: 200, refreshMs: 50 });
    expect(await standby.ensure()).toBe(true);
    const started = Date.now();
    await leader.stop(); // bounded by the TTL (real time), not by the hung calls
    expect(Date.now() - started).toBeLessThan(5_000);
    await standby.stop().catch(() => undefined);
  });
});
