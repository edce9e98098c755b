/**
 * Timer periods are checked against what setInterval can hold (2^31 - 1 ms):
 * Node runs an interval of 0, a negative, NaN, a non-number or anything over
 * 2^31 - 1 ms every 1 ms. Auto-rotation's interval was not checked at all (a
 * 30-day interval made a lock round trip and a pass every millisecond), nor
 * were Leadership's TTL and refresh, and LeaseManager's default refresh of a
 * long leaderTtlMs (ttl / 4) could pass the limit.
 */
import { isTransitError, Leadership, LeaseManager, MemoryStorage, Transit } from 'transitkit';
import { afterEach, describe, expect, it } from 'vitest';

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

/** A MemoryStorage that counts lock takes and refreshes, and list calls. */
function counting() {
  const storage = new MemoryStorage();
  const n = { lock: 0, refresh: 0, list: 0 };
  const lock = storage.lock.bind(storage);
  storage.lock = async (name: string, ttl: number) => {
    n.lock++;
    const h = await lock(name, ttl);
    if (!h) return h;
    return {
      refresh: (t: number) => {
        n.refresh++;
        return h.refresh(t);
      },
      release: () => h.release(),
    };
  };
  const list = storage.list.bind(storage);
  storage.list = ((...a: Parameters<typeof list>) => {
    n.list++;
    return list(...a);
  }) as typeof storage.list;
  return { storage, n };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function refusal(fn: () => unknown): string {
  try {
    const v = fn();
    if (v && typeof (v as { close?: unknown }).close === 'function') {
      cleanups.push(() => (v as { close(): Promise<void> }).close());
    }
    return 'accepted';
  } catch (e) {
    return isTransitError(e, 'invalid_request') ? 'invalid_request' : `other: ${String(e)}`;
  }
}

describe('auto-rotation interval', () => {
  it('a bad autoRotate.intervalMs is refused with invalid_request', () => {
    for (const intervalMs of [0, -1, Number.NaN, '60000', 2 ** 31, 30 * 24 * 3600 * 1000, 1.5]) {
      expect(
        refusal(
          () =>
            new Transit({
              autoRotate: { intervalMs: intervalMs as number },
            }),
        ),
        String(intervalMs),
      ).toBe('invalid_request');
    }
  });

  it('the longest interval a timer keeps runs no pass (and no lock round trip) at once', async () => {
    const { storage, n } = counting();
    const leadership = new Leadership({ storage, ttlMs: 10_000, refreshMs: 2_500 });
    const transit = new Transit({
      storage,
      leadership,
      autoRotate: { intervalMs: 2 ** 31 - 1 },
    });
    cleanups.push(
      () => transit.close(),
      () => leadership.stop(),
    );
    await transit.listKeys().catch(() => undefined);
    const before = n.lock + n.refresh;
    await sleep(300);
    // No pass at all within 300 ms of a 24.8-day period.
    expect(n.lock + n.refresh - before).toBe(0);
  });
});

describe('leader lock timers', () => {
  it('Leadership refuses a TTL or refresh interval that cannot work', () => {
    const storage = new MemoryStorage();
    for (const o of [
      { ttlMs: 0, refreshMs: 0 },
      { ttlMs: -1, refreshMs: 1 },
      { ttlMs: Number.NaN, refreshMs: 100 },
      { ttlMs: 1_000, refreshMs: 5_000 }, // refreshes after the lock ran out
      { ttlMs: 2 ** 40, refreshMs: 2 ** 38 }, // over setInterval's limit
    ]) {
      expect(
        refusal(() => new Leadership({ storage, ...o })),
        JSON.stringify(o),
      ).toBe('invalid_request');
    }
  });

  it('LeaseManager refuses a leader TTL, count interval or tick interval beyond a timer', () => {
    const storage = new MemoryStorage();
    expect(refusal(() => new LeaseManager({ storage, leaderTtlMs: 2 ** 34 }))).toBe(
      'invalid_request',
    );
    expect(refusal(() => new LeaseManager({ storage, leaseCountIntervalMs: 2 ** 31 }))).toBe(
      'invalid_request',
    );
    const m = new LeaseManager({ storage });
    cleanups.push(() => m.stop());
    expect(refusal(() => m.start(2 ** 31))).toBe('invalid_request');
  });

  it('the longest leader TTL is taken, and its refresh (ttl / 4) runs no upkeep at once', async () => {
    const { storage, n } = counting();
    const m = new LeaseManager({ storage, leaderTtlMs: 2 ** 31 - 1 });
    cleanups.push(() => m.stop());
    m.start(3_600_000);
    await m.tick();
    const before = n.lock + n.refresh;
    await sleep(300);
    expect(n.lock + n.refresh - before).toBeLessThan(5);
  });
});
