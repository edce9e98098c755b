/**
 * Vault's periodic tokens (`period` on `auth/token/create`), against Vault's
 * token store (`handleCreateCommon`, `handleLookup`) and `framework.CalculateTTL`
 * (sdk/framework/lease.go) as `ExpirationManager.RenewToken` calls it:
 *
 * - root or sudo only; the TTL is the period (a `ttl` beside it is not honoured,
 *   without a warning), a root token included;
 * - each renewal's TTL is the period again, whatever the increment; the store's
 *   max TTL caps a period (Vault's warning) but never ends the token;
 *   `explicit_max_ttl` does, at creation and at renewal;
 * - lookups show `period` in seconds for a periodic token only;
 * - entries written before periods read as plain tokens; children are not periodic;
 * - with a lease manager, the token outlives the lease manager's max TTL too.
 */
import { describe, expect, it } from 'vitest';
import type { TokenContext } from '../../src/auth/token-entry.js';
import { TokenStore } from '../../src/auth/token-store.js';
import { LeaseManager } from '../../src/leases/lease-manager.js';
import { warningsOf } from '../../src/result-meta.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { FakeClock } from '../helpers/fake-clock.js';

const MIN = 60_000;

async function setup(options: { maxTtl?: string; leases?: boolean } = {}) {
  const storage = new MemoryStorage();
  const clock = new FakeClock();
  const leases = options.leases
    ? new LeaseManager({ storage, clock, maxTtlSeconds: 7200 })
    : undefined;
  const tokens = new TokenStore({ storage, clock, maxTtl: options.maxTtl, leases });
  const ctx = (await tokens.authenticate(await tokens.createRoot())) as TokenContext;
  const as = async (token: string) => (await tokens.authenticate(token)) as TokenContext;
  return { storage, clock, tokens, ctx, as, leases };
}

/** The storage key of a token's entry, found through its accessor. */
async function entryKey(storage: MemoryStorage, accessor: string): Promise<string> {
  const hash = new TextDecoder().decode(await storage.get(`auth/token/accessor/${accessor}`));
  return `auth/token/id/${hash}`;
}

describe('creating periodic tokens', () => {
  it('needs root or sudo; the TTL is the period, a ttl beside it is not honoured', async () => {
    const { tokens, ctx, as } = await setup();
    const plain = await tokens.create(ctx, { policies: ['a'] });
    const pctx = await as(plain.client_token);
    await expect(tokens.create(pctx, { policies: ['a'], period: 600 })).rejects.toMatchObject({
      code: 'invalid_request',
      message: 'root or sudo privileges required to create periodic token',
    });
    // A negative period: Vault checks its sign before sudo.
    await expect(tokens.create(ctx, { period: '-1h' })).rejects.toMatchObject({
      code: 'invalid_request',
      message: 'period must be positive',
    });
    const bySudo = await tokens.create(pctx, { policies: ['a'], period: 600 }, { sudo: true });
    expect(bySudo).toMatchObject({ lease_duration: 600, renewable: true });
    const byRoot = await tokens.create(ctx, { policies: ['a'], period: '1h', ttl: '5m' });
    expect(byRoot.lease_duration).toBe(3600);
    expect(warningsOf(byRoot)).toEqual([]);
    // `lease`, the older name of `ttl`, is not honoured either; period 0 is no period.
    expect(
      (await tokens.create(ctx, { policies: ['a'], period: '2m', lease: '1h' })).lease_duration,
    ).toBe(120);
    const zero = await tokens.create(ctx, { policies: ['a'], period: 0, ttl: '5m' });
    expect(zero.lease_duration).toBe(300);
  });

  it('a period above the max TTL is capped with Vault warning; the lookup keeps the period', async () => {
    const { tokens, ctx, as } = await setup({ maxTtl: '2h' });
    const t = await tokens.create(ctx, { policies: ['a'], period: '3h' });
    expect(t.lease_duration).toBe(7200);
    expect(warningsOf(t)).toEqual([
      'period of "3h" exceeded the effective max_ttl of "2h"; period value is capped accordingly',
    ]);
    const l = await tokens.lookupSelf(await as(t.client_token));
    expect(l).toMatchObject({ period: 10_800, creation_ttl: 7200, ttl: 7200, explicit_max_ttl: 0 });
  });

  it('explicit_max_ttl caps the period, and is kept as given (no max TTL warning)', async () => {
    const { tokens, ctx, as } = await setup({ maxTtl: '2h' });
    const t = await tokens.create(ctx, { policies: ['a'], period: '90m', explicit_max_ttl: '1h' });
    expect(t.lease_duration).toBe(3600);
    expect(warningsOf(t)).toEqual([
      'period of "1h30m" exceeded the effective max_ttl of "1h"; period value is capped accordingly',
    ]);
    const long = await tokens.create(ctx, {
      policies: ['a'],
      period: '1h',
      explicit_max_ttl: '3h',
    });
    expect(warningsOf(long)).toEqual([]);
    expect((await tokens.lookupSelf(await as(long.client_token))).explicit_max_ttl).toBe(10_800);
  });

  it('a root token with a period is periodic: it expires, renews, cannot make a never-expiring root', async () => {
    const { tokens, ctx, as, clock } = await setup();
    const r = await tokens.create(ctx, { period: '1h' });
    expect(r).toMatchObject({ policies: ['root'], lease_duration: 3600, renewable: true });
    const rctx = await as(r.client_token);
    expect(rctx.isRoot).toBe(true);
    await expect(tokens.create(rctx, { no_parent: true })).rejects.toMatchObject({
      message: 'expiring root tokens cannot create non-expiring root tokens',
    });
    clock.advance(50 * MIN);
    expect((await tokens.renewSelf(rctx, '10h')).lease_duration).toBe(3600);
    expect((await tokens.lookupSelf(rctx)).period).toBe(3600);
  });
});

describe('renewing periodic tokens', () => {
  it('each renewal is the period again, ignoring the increment, past the store max TTL', async () => {
    const { tokens, ctx, as, clock } = await setup({ maxTtl: '2h' });
    const t = await tokens.create(ctx, { policies: ['a'], period: '1h' });
    const tctx = await as(t.client_token);
    // Ten hours, five times the store's max TTL, renewed every 50 minutes.
    for (let i = 0; i < 12; i++) {
      clock.advance(50 * MIN);
      const renewed = await tokens.renewSelf(tctx, i % 2 === 0 ? 60 : '5h');
      expect(renewed.lease_duration).toBe(3600);
      expect(warningsOf(renewed)).toEqual([]);
    }
    expect(await tokens.authenticate(t.client_token)).toBeDefined();
    expect((await tokens.renew(t.client_token, 1)).lease_duration).toBe(3600);
    const l = await tokens.lookup(ctx, t.client_token);
    expect(l).toMatchObject({ period: 3600, ttl: 3600, creation_ttl: 3600 });
    // Not renewed within its period, it expires.
    clock.advance(61 * MIN);
    expect(await tokens.authenticate(t.client_token)).toBeUndefined();
  });

  it('a period above the max TTL renews to the max TTL, with the warning each time', async () => {
    const { tokens, ctx, as, clock } = await setup({ maxTtl: '2h' });
    const t = await tokens.create(ctx, { policies: ['a'], period: '3h' });
    const tctx = await as(t.client_token);
    for (let i = 0; i < 3; i++) {
      clock.advance(100 * MIN);
      const renewed = await tokens.renewSelf(tctx);
      expect(renewed.lease_duration).toBe(7200);
      expect(warningsOf(renewed)).toEqual([
        'period of "3h" exceeded the effective max_ttl of "2h"; period value is capped accordingly',
      ]);
    }
  });

  it('explicit_max_ttl ends it: renewals are capped to what is left, then refused', async () => {
    const { tokens, ctx, as, clock } = await setup({ maxTtl: '2h' });
    const t = await tokens.create(ctx, { policies: ['a'], period: '1h', explicit_max_ttl: '3h' });
    const tctx = await as(t.client_token);
    clock.advance(50 * MIN);
    expect((await tokens.renewSelf(tctx)).lease_duration).toBe(3600);
    clock.advance(50 * MIN);
    expect((await tokens.renewSelf(tctx)).lease_duration).toBe(3600);
    clock.advance(50 * MIN);
    const capped = await tokens.renewSelf(tctx, '1h');
    expect(capped.lease_duration).toBe(30 * 60);
    expect(warningsOf(capped)).toEqual([
      'TTL of "1h" exceeded the effective max_ttl of "30m"; TTL value is capped accordingly',
    ]);
    clock.advance(30 * MIN);
    expect(await tokens.authenticate(t.client_token)).toBeUndefined();
    await expect(tokens.renew(t.client_token)).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('children of a periodic token are not periodic (with a lease manager: the default TTL)', async () => {
    const { tokens, ctx, as, clock } = await setup({ leases: true });
    const parent = await tokens.create(ctx, { policies: ['a'], period: '1h' });
    const pctx = await as(parent.client_token);
    const child = await tokens.create(pctx, { policies: ['a'], ttl: '3h' });
    expect(child.lease_duration).toBe(3 * 3600);
    const cctx = await as(child.client_token);
    expect('period' in (await tokens.lookupSelf(cctx))).toBe(false);
    clock.advance(10 * MIN);
    expect((await tokens.renewSelf(cctx, 600)).lease_duration).toBe(600);
  });

  it('without a lease manager a periodic child renews no further than its parent', async () => {
    const { tokens, ctx, as, clock } = await setup();
    const parent = await tokens.create(ctx, { policies: ['a'], ttl: '30m' });
    const pctx = await as(parent.client_token);
    const child = await tokens.create(pctx, { policies: ['a'], period: '1h' }, { sudo: true });
    expect(child.lease_duration).toBe(1800);
    clock.advance(10 * MIN);
    const renewed = await tokens.renewSelf(await as(child.client_token));
    expect(renewed.lease_duration).toBe(1200);
    expect(warningsOf(renewed)).toEqual([
      'TTL of "3600s" exceeded the parent token\'s remaining TTL of "1200s"; TTL value is capped accordingly',
    ]);
  });
});

describe('stored entries and lookups', () => {
  it('only a periodic entry stores period; a plain token lookup has no period key (Vault)', async () => {
    const { storage, tokens, ctx, as } = await setup();
    const plain = await tokens.create(ctx, { policies: ['a'], ttl: '1h' });
    const periodic = await tokens.create(ctx, { policies: ['a'], period: '1h' });
    const read = async (accessor: string) =>
      JSON.parse(new TextDecoder().decode(await storage.get(await entryKey(storage, accessor))));
    expect('period' in (await read(plain.accessor))).toBe(false);
    expect((await read(periodic.accessor)).period).toBe(3600);
    const l = await tokens.lookupSelf(await as(plain.client_token));
    expect(Object.keys(l)).not.toContain('period');
    const byAccessor = await tokens.lookupAccessor(periodic.accessor);
    expect(byAccessor).toMatchObject({ id: '', period: 3600 });
    // Vault's keys come sorted: period between path and policies.
    const keys = Object.keys(byAccessor);
    expect(keys.slice(keys.indexOf('path'), keys.indexOf('path') + 3)).toEqual([
      'path',
      'period',
      'policies',
    ]);
  });

  it('an entry written without period (an earlier version) is a plain token', async () => {
    const { storage, tokens, ctx, as, clock } = await setup();
    const t = await tokens.create(ctx, { policies: ['a'], ttl: '1h' });
    const key = await entryKey(storage, t.accessor);
    const stored = JSON.parse(new TextDecoder().decode(await storage.get(key)));
    // The entry as the previous version wrote it: exactly these fields.
    const earlier = {
      v: 1,
      hash: stored.hash,
      accessor: stored.accessor,
      policies: ['a', 'default'],
      parent: stored.parent,
      path: 'auth/token/create',
      display_name: 'token',
      meta: null,
      creation_time: stored.creation_time,
      creation_ttl: 3600,
      expire_ms: stored.expire_ms,
      explicit_max_ttl: 0,
      num_uses: 0,
      renewable: true,
    };
    expect(stored).toEqual(earlier);
    await storage.put(key, new TextEncoder().encode(JSON.stringify(earlier)));
    const tctx = await as(t.client_token);
    expect('period' in (await tokens.lookupSelf(tctx))).toBe(false);
    clock.advance(10 * MIN);
    expect((await tokens.renewSelf(tctx, 120)).lease_duration).toBe(120);
    // A damaged period is a damaged entry (fail closed), not a period.
    await storage.put(key, new TextEncoder().encode(JSON.stringify({ ...earlier, period: '1h' })));
    await expect(tokens.authenticate(t.client_token)).rejects.toMatchObject({ code: 'internal' });
  });
});

describe('periodic tokens with a lease manager', () => {
  it('outlive the lease manager max TTL: a new lease takes over, the old one revokes nothing', async () => {
    const { tokens, ctx, as, clock, leases } = await setup({ maxTtl: '2h', leases: true });
    const lm = leases as LeaseManager;
    const t = await tokens.create(ctx, { policies: ['a'], period: '1h' });
    const tctx = await as(t.client_token);
    const first = (await lm.list('auth/token/create')).keys;
    expect(first).toHaveLength(1);
    // Five hours, past the lease manager's max TTL (2h) twice over.
    for (let i = 0; i < 6; i++) {
      clock.advance(50 * MIN);
      expect((await tokens.renewSelf(tctx)).lease_duration).toBe(3600);
      await lm.tick();
      await lm.idle();
      expect(await tokens.exists(t.client_token)).toBe(true);
    }
    const now = (await lm.list('auth/token/create')).keys;
    expect(now).toHaveLength(1);
    expect(now).not.toEqual(first);
    const lease = await lm.lookup(`auth/token/create/${now[0]}`);
    expect(lease.ttl).toBe(3600);
    // The token's current lease still revokes it.
    await lm.revoke(`auth/token/create/${now[0]}`);
    expect(await tokens.exists(t.client_token)).toBe(false);
  });

  it('not renewed within its period, its lease expires and revokes it', async () => {
    const { tokens, ctx, clock, leases } = await setup({ leases: true });
    const lm = leases as LeaseManager;
    const t = await tokens.create(ctx, { policies: ['a'], period: '10m' });
    clock.advance(11 * MIN);
    await lm.tick();
    await lm.idle();
    expect((await lm.list('auth/token/create')).keys).toEqual([]);
    expect(await tokens.exists(t.client_token)).toBe(false);
  });
});
