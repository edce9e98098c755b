/**
 * The leader lock's timing options (issue #15 item 3): `leaderTtlMs` and
 * `leaderRefreshMs` are validated, and `start()` keeps the lock on its own
 * timer, so a leader whose expiry ticks are rarer than the TTL keeps it (and a
 * standby does not take it from a live leader). The failover after a SIGKILL,
 * with two processes on Redis, is test/multi-instance/failover.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { isTransitError } from '../../src/errors.js';
import { LeaseManager } from '../../src/leases/lease-manager.js';
import { MemoryStorage } from '../../src/storage/memory.js';

const managers: LeaseManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.stop()));
});

function manager(
  storage: MemoryStorage,
  options: { leaderTtlMs?: number; leaderRefreshMs?: number },
) {
  const m = new LeaseManager({ storage, ...options });
  managers.push(m);
  return m;
}

describe('leader lock options', () => {
  it('refuses a refresh interval over half the TTL, or a non-integer', () => {
    const storage = new MemoryStorage();
    for (const options of [
      { leaderTtlMs: 1_000, leaderRefreshMs: 501 },
      { leaderRefreshMs: 5_001 }, // default TTL 10 s
      { leaderRefreshMs: 0 },
      { leaderRefreshMs: 1.5 },
      { leaderTtlMs: -1 },
    ]) {
      let err: unknown;
      try {
        new LeaseManager({ storage, ...options });
      } catch (e) {
        err = e;
      }
      expect(isTransitError(err, 'invalid_request'), JSON.stringify(options)).toBe(true);
    }
    expect(
      () => new LeaseManager({ storage, leaderTtlMs: 1_000, leaderRefreshMs: 500 }),
    ).not.toThrow();
  });

  it('a started leader keeps the lock between rare ticks; a standby cannot take it', async () => {
    const storage = new MemoryStorage(); // wall clock: the lock expires in real time
    const a = manager(storage, { leaderTtlMs: 1_000, leaderRefreshMs: 100 });
    const b = manager(storage, { leaderTtlMs: 1_000, leaderRefreshMs: 100 });
    a.start(3_600_000); // one tick now, the next in an hour
    await a.tick();
    expect(a.isLeader()).toBe(true);
    await new Promise((r) => setTimeout(r, 2_500)); // 2.5 TTLs without a tick
    expect((await b.tick()).leader).toBe(false);
    expect(a.isLeader()).toBe(true);
    await a.stop(); // releases the lock: b takes it at once
    expect((await b.tick()).leader).toBe(true);
  });

  it('a started standby takes a lock that its holder stopped refreshing, without ticks', async () => {
    const storage = new MemoryStorage();
    const held = await storage.lock('sys/leases/leader', 300); // a holder that then dies
    expect(held).toBeDefined();
    const b = manager(storage, { leaderTtlMs: 1_000, leaderRefreshMs: 100 });
    b.start(3_600_000);
    await b.tick();
    expect(b.isLeader()).toBe(false);
    const end = Date.now() + 5_000;
    while (!b.isLeader() && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    expect(b.isLeader()).toBe(true);
  });
});
