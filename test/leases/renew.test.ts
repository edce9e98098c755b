/**
 * `renew` (reference §11 "Renew semantics"): active → renew → active with the
 * expiry extended, the max-TTL cap from the issue time, and every refusal in
 * Vault's order and words.
 */
import { describe, expect, it } from 'vitest';
import { isTransitError } from '../../src/errors.js';
import { HOUR, MINUTE, SECOND, setup } from './helpers.js';

async function refusal(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isTransitError(err, 'invalid_request'), String(err)).toBe(true);
  return (err as Error).message;
}

describe('renew', () => {
  it('extends the expiry by the increment and records last_renewal (active → active)', async () => {
    const { leases, clock, storage } = setup();
    const { lease_id } = await leases.issue({ path: 'db/creds', ttl: 60, renewable: true });
    clock.advance(30 * SECOND);
    expect(await leases.renew(lease_id, 600)).toEqual({
      lease_id,
      renewable: true,
      lease_duration: 600,
    });
    expect(await leases.lookup(lease_id)).toMatchObject({
      last_renewal: '2026-01-01T00:00:30.000Z',
      expire_time: '2026-01-01T00:10:30.000Z',
      ttl: 600,
    });
    // The due index moved with it: one key, at the new expiry.
    expect(await storage.list('sys/leases/expiry/')).toEqual([`1767226230000/${lease_id}`]);
  });

  it('increment 0 (or absent) grants the lease’s own TTL; durations may be strings', async () => {
    const { leases, clock } = setup();
    const { lease_id } = await leases.issue({ path: 'db', ttl: 120, renewable: true });
    clock.advance(MINUTE);
    expect((await leases.renew(lease_id, 0)).lease_duration).toBe(120);
    expect((await leases.renew(lease_id)).lease_duration).toBe(120);
    expect((await leases.renew(lease_id, '5m')).lease_duration).toBe(300);
  });

  it('caps at max_ttl counted from the issue time, with Vault’s warning', async () => {
    const { leases, clock } = setup();
    const { lease_id } = await leases.issue({
      path: 'db',
      ttl: 400,
      max_ttl: 600,
      renewable: true,
    });
    clock.advance(5 * MINUTE + 500); // 300.5 s: truncated to 300 s, as Vault's seconds
    const g = await leases.renew(lease_id, '1h');
    expect(g.lease_duration).toBe(300);
    expect(g.warnings).toEqual([
      'TTL of "1h" exceeded the effective max_ttl of "5m"; TTL value is capped accordingly',
    ]);
  });

  it('caps at the system maximum when the lease has no max_ttl', async () => {
    const { leases, clock } = setup({ maxTtlSeconds: 3600 });
    const { lease_id } = await leases.issue({ path: 'db', ttl: 3600, renewable: true });
    clock.advance(59 * MINUTE);
    const g = await leases.renew(lease_id, 3600);
    expect(g.lease_duration).toBe(60);
    expect(g.warnings?.[0]).toContain('effective max_ttl of "1m"');
  });

  it('refuses past the max TTL (counted in whole seconds from the issue time)', async () => {
    const { leases, clock } = setup();
    clock.advance(500); // issued at .500: the cap counts from the whole second before
    const { lease_id } = await leases.issue({ path: 'db', ttl: 60, max_ttl: 60, renewable: true });
    clock.advance(59 * SECOND);
    expect((await leases.renew(lease_id, 60)).lease_duration).toBe(1);
    clock.advance(SECOND - 200); // not expired yet (expiry at 60.5 s), but the cap is reached
    expect(await refusal(leases.renew(lease_id, 60))).toBe('past the max TTL, cannot renew');
  });

  it('refuses past a system maximum lowered since the lease was issued', async () => {
    const { leases, clock, storage } = setup();
    const { lease_id } = await leases.issue({ path: 'db', ttl: '1h', renewable: true });
    clock.advance(15 * MINUTE);
    const restarted = setup({ storage, clock, maxTtlSeconds: 600 }).leases;
    expect(await refusal(restarted.renew(lease_id, 60))).toBe('past the max TTL, cannot renew');
  });

  it('refuses a missing id and an unknown lease', async () => {
    const { leases } = setup();
    expect(await refusal(leases.renew(''))).toBe('lease_id must be specified');
    expect(await refusal(leases.renew('db/unknown'))).toBe('lease not found');
    expect(await refusal(leases.renew('db/\u0000'))).toBe('lease not found');
  });

  it('refuses a non-renewable lease', async () => {
    const { leases } = setup();
    const { lease_id } = await leases.issue({ path: 'db', ttl: 60, renewable: false });
    expect(await refusal(leases.renew(lease_id, 10))).toBe('lease is not renewable');
  });

  it('refuses an expired lease that is not revoked yet', async () => {
    const { leases, clock } = setup();
    const { lease_id } = await leases.issue({ path: 'db', ttl: 60, renewable: true });
    clock.advance(60 * SECOND);
    expect(await refusal(leases.renew(lease_id, 10))).toBe('lease expired');
  });

  it('refuses a revoked lease (gone)', async () => {
    const { leases } = setup();
    const { lease_id } = await leases.issue({ path: 'db', ttl: 60, renewable: true });
    await leases.revoke(lease_id);
    expect(await refusal(leases.renew(lease_id, 10))).toBe('lease not found');
  });

  it('refuses a lease queued for revocation (its expiry is now, as Vault’s lazy revoke)', async () => {
    const { leases, storage } = setup();
    const { lease_id } = await leases.issue({ path: 'db', ttl: 60, renewable: true });
    leases.registerRevoker('db/', () => new Promise<void>(() => undefined)); // hangs
    await leases.revoke(lease_id, { sync: false });
    expect(await storage.get(`sys/leases/entry/${lease_id}`)).toBeDefined();
    expect(await refusal(leases.renew(lease_id, 10))).toBe('lease expired');
    await leases.idle();
  });

  it('refuses a token lease: tokens renew through the token endpoints', async () => {
    const { leases } = setup();
    const { lease_id } = await leases.issue({
      path: 'auth/token/create',
      ttl: 60,
      renewable: true,
      auth: true,
    });
    expect(await refusal(leases.renew(lease_id, 10))).toBe(
      'tokens cannot be renewed through this endpoint',
    );
    expect((await leases.renew(lease_id, 10, { auth: true })).lease_duration).toBe(10);
  });

  it('refuses an irrevocable lease', async () => {
    const { leases, clock } = setup();
    const { lease_id } = await leases.issue({ path: 'nobody/x', ttl: 60, renewable: true });
    clock.advance(HOUR);
    await leases.tick(); // no revoker → irrevocable at once
    expect(await refusal(leases.renew(lease_id, 10))).toBe(
      'lease is expired and has failed previous revocation attempts',
    );
  });

  it('refuses a bad increment', async () => {
    const { leases } = setup();
    const { lease_id } = await leases.issue({ path: 'db', ttl: 60, renewable: true });
    expect(await refusal(leases.renew(lease_id, -5))).toMatch(/negative/);
    expect(await refusal(leases.renew(lease_id, 'later'))).toMatch(/invalid duration/);
  });

  it('a renewed lease expires at its new time, not the old one', async () => {
    const { leases, clock, revoked } = setup();
    const { lease_id } = await leases.issue({ path: 'db', ttl: 60, renewable: true });
    await leases.tick();
    await leases.renew(lease_id, 600);
    clock.advance(2 * MINUTE);
    expect((await leases.tick()).revoked).toBe(0);
    clock.advance(10 * MINUTE);
    expect((await leases.tick()).revoked).toBe(1);
    expect(revoked.map((l) => l.lease_id)).toEqual([lease_id]);
  });
});
