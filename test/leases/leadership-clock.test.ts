/**
 * Leadership (src/node/leadership.ts) measures how long ago it refreshed the
 * leader lock on its own clock (the wall clock by default). When that clock
 * is stepped back, the age comes out negative: how long ago is then unknown,
 * and the lock may have run out and another instance taken it, so a negative
 * age counts as too old. A leader cut off from storage after the step stops
 * calling itself leader (two leaders would both answer `sys/health` as
 * active), and one whose storage answers is leader again at its next refresh.
 */
import { describe, expect, it } from 'vitest';
import { Leadership } from '../../src/node/leadership.js';
import type { LockHandle, StorageLock } from '../../src/storage/adapter.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { StorageView } from '../helpers/storage-view.js';

/** Instance A's view of the lock: unreachable on demand. */
class Cuttable extends StorageView implements StorageLock {
  unreachable = false;
  async lock(name: string, ttlMs: number): Promise<LockHandle | undefined> {
    if (this.unreachable) throw new Error('ECONNREFUSED');
    const h = await this.inner.lock(name, ttlMs);
    if (!h) return undefined;
    return {
      refresh: (ms) =>
        this.unreachable ? Promise.reject(new Error('ECONNREFUSED')) : h.refresh(ms),
      release: () => h.release(),
    };
  }
}

function twoInstances() {
  const server = new FakeClock(); // the lock's time, and B's
  const inner = new MemoryStorage({ clock: server });
  let t = server.now();
  const clockA = { now: () => t }; // A's wall clock
  const storageA = new Cuttable(inner);
  const options = { ttlMs: 10_000, refreshMs: 2_500 };
  const a = new Leadership({ storage: storageA, clock: clockA, ...options });
  const b = new Leadership({ storage: inner, clock: server, ...options });
  const pass = (ms: number) => {
    server.advance(ms);
    t += ms;
  };
  return { a, b, storageA, pass, stepBack: (ms: number) => (t -= ms) };
}

describe('leadership when its clock is stepped back', () => {
  it('a leader cut off from storage after the step is no longer leader', async () => {
    const { a, b, storageA, pass, stepBack } = twoInstances();
    expect(await a.ensure()).toBe(true);
    stepBack(3_600_000);
    storageA.unreachable = true;
    for (let i = 0; i < 12; i++) {
      pass(2_500);
      await a.ensure().catch(() => undefined); // A's upkeep: the refresh fails
    }
    expect(await b.ensure()).toBe(true); // B took the lock that ran out
    expect(a.isLeader()).toBe(false);
  });

  it('a leader whose storage answers stays leader across the step (its next refresh)', async () => {
    const { a, b, pass, stepBack } = twoInstances();
    expect(await a.ensure()).toBe(true);
    stepBack(3_600_000);
    expect(await a.stillLeader()).toBe(true); // the age is unknown: it refreshes now
    expect(a.isLeader()).toBe(true);
    pass(2_500);
    expect(await a.ensure()).toBe(true);
    expect(await b.ensure()).toBe(false);
  });
});
