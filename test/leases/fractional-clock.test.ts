/**
 * A clock that gives fractions of a millisecond (a `performance.now()`-based
 * one; `Clock` is "ms since the epoch"): a lease whose due key is read back
 * from storage still expires. The key holds whole milliseconds, and
 * processDue compared it with the record's exact `due`: the lease was skipped
 * (after a restart, a leader change, or when issued before the first tick),
 * then its due key dropped as an orphan, and it never expired.
 */
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../helpers/fake-clock.js';
import { HOUR, setup } from './helpers.js';

describe('fractional clock', () => {
  it('a lease issued before the first tick still expires', async () => {
    const clock = new FakeClock(Date.UTC(2026, 0, 1) + 0.25);
    const { leases, revoked, storage } = setup({ clock });
    const { lease_id } = await leases.issue({ path: 'db/creds/ro', ttl: 60, renewable: true });
    clock.advance(HOUR);
    await leases.tick();
    await leases.tick();
    expect(revoked.map((l) => l.lease_id)).toEqual([lease_id]);
    expect(await storage.list('sys/leases/entry/')).toEqual([]);
  });
});
