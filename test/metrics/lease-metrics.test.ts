/**
 * The lease manager's metrics (src/leases/lease-metrics.ts): active and
 * irrevocable counts read from the storage indexes at collection time and
 * reused for `leaseCountIntervalMs`, the expiry lag of processed due leases
 * (fake clock), and the gauges removed by `stop()`.
 */
import { describe, expect, it } from 'vitest';
import { MINUTE, SECOND, setup } from '../leases/helpers.js';
import { RecordingMetrics } from './recording.js';

const ACTIVE = 'transitkit_leases_active';
const IRREVOCABLE = 'transitkit_leases_irrevocable';
const LAG = 'transitkit_lease_expiry_lag_seconds';

describe('lease metrics', () => {
  it('counts active and irrevocable leases, and records how late expiry ran', async () => {
    const metrics = new RecordingMetrics();
    const { clock, leases, revoked } = setup({ metrics, leaseCountIntervalMs: 5 * SECOND });
    for (let i = 0; i < 3; i++)
      await leases.issue({ path: 'db/creds/ro', ttl: '10s', renewable: false });
    // No revoker for nop/: due, they become irrevocable.
    for (let i = 0; i < 2; i++)
      await leases.issue({ path: 'nop/creds', ttl: '10s', renewable: false });
    expect(await metrics.value(ACTIVE)).toBe(5);
    expect(await metrics.value(IRREVOCABLE)).toBe(0);

    clock.advance(40 * SECOND); // due 30 s ago
    const tick = await leases.tick();
    expect(tick).toMatchObject({ leader: true, revoked: 3, irrevocable: 2 });
    expect(revoked).toHaveLength(3);
    const lags = metrics.observed(LAG);
    expect(lags).toHaveLength(5);
    for (const s of lags) expect(s).toBeCloseTo(30, 0);

    // The count is reused within its interval, then read again.
    expect(await metrics.value(ACTIVE)).toBe(0);
    expect(await metrics.value(IRREVOCABLE)).toBe(2);
    await leases.issue({ path: 'db/creds/ro', ttl: '1h', renewable: false });
    expect(await metrics.value(ACTIVE)).toBe(0);
    clock.advance(6 * SECOND);
    expect(await metrics.value(ACTIVE)).toBe(1);
    await leases.stop();
  });

  it('stop() removes the gauges; no metrics, no recording', async () => {
    const metrics = new RecordingMetrics();
    const { leases } = setup({ metrics });
    expect(await metrics.value(ACTIVE)).toBe(0);
    await leases.stop();
    expect(await metrics.collect(ACTIVE)).toBeUndefined();
    expect(await metrics.collect(IRREVOCABLE)).toBeUndefined();

    const plain = setup();
    await plain.leases.issue({ path: 'db/x', ttl: '1s', renewable: false });
    plain.clock.advance(MINUTE);
    await expect(plain.leases.tick()).resolves.toMatchObject({ revoked: 1 });
    await plain.leases.stop();
  });

  it('refuses a bad leaseCountIntervalMs', () => {
    expect(() => setup({ metrics: new RecordingMetrics(), leaseCountIntervalMs: 0 })).toThrow(
      /leaseCountIntervalMs/,
    );
  });
});
