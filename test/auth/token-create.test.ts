/**
 * Token creation (`auth/token/create`): Vault's defaults, TTL and explicit max TTL
 * rules, child-token and sudo rules, periods, display names and Vault's weak
 * decoding of the body. Chosen ids: token-create-id.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { TokenContext } from '../../src/auth/token-entry.js';
import { TokenStore } from '../../src/auth/token-store.js';
import { warningsOf } from '../../src/result-meta.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { code, dump, setup } from './token-helpers.js';

describe('create', () => {
  it('defaults: the parent policies plus default, renewable, the default TTL (768h)', async () => {
    const { tokens, ctx } = await setup();
    const root2 = await tokens.create(ctx);
    expect(root2.policies).toEqual(['root']);
    expect(root2.lease_duration).toBe(0);
    const t = await tokens.create(ctx, { policies: 'App, db ,app' });
    expect(t).toMatchObject({
      policies: ['app', 'db', 'default'],
      renewable: true,
      lease_duration: 768 * 3600,
      orphan: false,
      token_type: 'service',
    });
    expect(
      (await tokens.create(ctx, { policies: ['app'], no_default_policy: true })).policies,
    ).toEqual(['app']);
  });

  it("an empty policy name is a policy list naming none: default alone, never the parent's (Vault)", async () => {
    const { tokens, ctx } = await setup();
    // Vault inherits only for an absent or empty list; `[""]` (and `""`, lifted to it) names none.
    for (const policies of [[''], '', [' ', ''], ',']) {
      const t = await tokens.create(ctx, { policies });
      expect(t.policies, JSON.stringify(policies)).toEqual(['default']);
    }
    expect((await tokens.create(ctx, { policies: [] })).policies).toEqual(['root']);
    expect(
      (await tokens.create(ctx, { policies: [''], no_default_policy: true })).policies,
    ).toEqual([]);
    // A child of a non-root token likewise: not its parent's `app`.
    const app = await tokens.create(ctx, { policies: ['app'] });
    const actx = (await tokens.authenticate(app.client_token)) as TokenContext;
    expect((await tokens.create(actx, { policies: [''] })).policies).toEqual(['default']);
    expect((await tokens.create(actx, {})).policies).toEqual(['app', 'default']);
  });

  it('caps the TTL at the max TTL and explicit_max_ttl, with a warning', async () => {
    const storage = new MemoryStorage();
    const tokens = new TokenStore({ storage, maxTtl: '2h', clock: new FakeClock() });
    const ctx = (await tokens.authenticate(await tokens.createRoot())) as TokenContext;
    const t = await tokens.create(ctx, { policies: ['a'], ttl: '3h' });
    expect(t.lease_duration).toBe(7200);
    // framework.CalculateTTL's text, durations as its humanDuration writes them.
    expect(warningsOf(t)).toEqual([
      'TTL of "3h" exceeded the effective max_ttl of "2h"; TTL value is capped accordingly',
    ]);
    const odd = await tokens.create(ctx, { policies: ['a'], ttl: 9000 + 1 });
    expect(warningsOf(odd)[0]).toBe(
      'TTL of "2h30m1s" exceeded the effective max_ttl of "2h"; TTL value is capped accordingly',
    );
    expect(
      (await tokens.create(ctx, { policies: ['a'], ttl: '1h', explicit_max_ttl: 60 }))
        .lease_duration,
    ).toBe(60);
  });

  it('a child of a non-root token holds a subset of its policies, is not orphan, cannot spend uses', async () => {
    const { tokens, ctx } = await setup();
    const parent = await tokens.create(ctx, { policies: ['a', 'b'] });
    const pctx = (await tokens.authenticate(parent.client_token)) as TokenContext;
    expect(await code(tokens.create(pctx, { policies: ['c'] }))).toBe('invalid_request');
    expect(await code(tokens.create(pctx, { policies: ['root'] }))).toBe('invalid_request');
    expect(await code(tokens.create(pctx, { no_parent: true }))).toBe('invalid_request');
    const child = await tokens.create(pctx, { policies: ['a'] });
    expect(child.policies).toEqual(['a', 'default']);
    const inherited = await tokens.create(pctx);
    expect(inherited.policies).toEqual(['a', 'b', 'default']);
    // `default` only from a parent that holds it: none is added, and asking for it is refused.
    const bare = await tokens.create(ctx, { policies: ['a'], no_default_policy: true });
    const bctx = (await tokens.authenticate(bare.client_token)) as TokenContext;
    expect((await tokens.create(bctx)).policies).toEqual(['a']);
    expect((await tokens.create(bctx, { policies: ['a'] })).policies).toEqual(['a']);
    expect(await code(tokens.create(bctx, { policies: ['default'] }))).toBe('invalid_request');
    expect(await code(tokens.create(bctx, { policies: ['a', 'default'] }))).toBe('invalid_request');
    const limited = await tokens.create(ctx, { policies: ['a'], num_uses: 3 });
    const lctx = (await tokens.authenticate(limited.client_token)) as TokenContext;
    expect(await code(tokens.create(lctx, {}))).toBe('invalid_request');
  });

  it('a root token with limited uses cannot create children either (no escape from its limit)', async () => {
    const { tokens, ctx } = await setup();
    const limited = await tokens.create(ctx, { policies: ['root'], num_uses: 2 });
    const lctx = (await tokens.authenticate(limited.client_token)) as TokenContext;
    expect(lctx.isRoot).toBe(true);
    await expect(tokens.create(lctx, { no_parent: true })).rejects.toMatchObject({
      code: 'invalid_request',
      message: 'restricted use token cannot generate child tokens',
    });
  });

  it('sudo on the create path allows orphans and other policies, never root (Vault)', async () => {
    const { tokens, ctx } = await setup();
    const parent = await tokens.create(ctx, { policies: ['a'] });
    const pctx = (await tokens.authenticate(parent.client_token)) as TokenContext;
    const sudo = { sudo: true };
    const orphan = await tokens.create(pctx, { no_parent: true, policies: ['z'] }, sudo);
    expect(orphan.orphan).toBe(true);
    expect(orphan.policies).toEqual(['default', 'z']);
    await expect(tokens.create(pctx, { policies: ['root'] }, sudo)).rejects.toMatchObject({
      code: 'invalid_request',
      message: 'root tokens may not be created without parent token being root',
    });
    await expect(tokens.create(pctx, { no_parent: true })).rejects.toMatchObject({
      message: 'root or sudo privileges required to create orphan token',
    });
  });

  it('periods need root or sudo (Vault); batch tokens are refused, not ignored', async () => {
    const { tokens, ctx } = await setup();
    const parent = await tokens.create(ctx, { policies: ['a'] });
    const pctx = (await tokens.authenticate(parent.client_token)) as TokenContext;
    await expect(tokens.create(pctx, { period: '1h' })).rejects.toMatchObject({
      code: 'invalid_request',
      message: 'root or sudo privileges required to create periodic token',
    });
    // Root makes a periodic token (test/auth/token-period.test.ts has the rest).
    const periodic = await tokens.create(ctx, { policies: ['a'], period: '1h' });
    expect(periodic.lease_duration).toBe(3600);
    await expect(tokens.create(ctx, { type: 'batch' })).rejects.toMatchObject({
      message: 'batch tokens are not supported',
    });
    expect((await tokens.create(ctx, { policies: ['a'], type: 'service' })).policies).toContain(
      'a',
    );
    expect((await tokens.create(ctx, { policies: ['a'], period: 0 })).policies).toContain('a');
    // Without a role Vault takes "", "service" or "batch" only, and checks the type before the uses.
    for (const type of ['default', 'default-service', 'x']) {
      await expect(tokens.create(ctx, { type, num_uses: -1 })).rejects.toMatchObject({
        message: "invalid 'token_type' value",
      });
    }
  });

  it("TTLs as Vault's CalculateTTL: sub-second is a second, explicit max kept as given and applied", async () => {
    const { tokens, ctx } = await setup();
    // Never widened to the default (32 days) or to no cap.
    expect((await tokens.create(ctx, { policies: ['a'], ttl: '500ms' })).lease_duration).toBe(1);
    const tight = await tokens.create(ctx, {
      policies: ['a'],
      ttl: '1h',
      explicit_max_ttl: '900ms',
    });
    expect(tight.lease_duration).toBe(1);
    expect(warningsOf(tight)).toEqual([
      'TTL of "1h" exceeded the effective max_ttl of "1s"; TTL value is capped accordingly',
    ]);
    // An explicit max above the store's max TTL is kept as given (current Vault: no
    // "Explicit max TTL of … is being capped" warning, no rewrite); the smaller of the
    // two caps the TTL.
    const huge = await tokens.create(ctx, {
      policies: ['a'],
      ttl: '1h',
      explicit_max_ttl: '10000h',
    });
    expect(huge.lease_duration).toBe(3600);
    expect(warningsOf(huge)).toEqual([]);
    const hctx = (await tokens.authenticate(huge.client_token)) as TokenContext;
    expect((await tokens.lookupSelf(hctx)).explicit_max_ttl).toBe(36_000_000);
    const long = await tokens.create(ctx, {
      policies: ['a'],
      ttl: '2000h',
      explicit_max_ttl: '10000h',
    });
    expect(long.lease_duration).toBe(2_764_800);
    expect(warningsOf(long)).toEqual([
      'TTL of "2000h" exceeded the effective max_ttl of "768h"; TTL value is capped accordingly',
    ]);
    // A renewal is capped by the same smaller value, not by the explicit max.
    const lctx = (await tokens.authenticate(long.client_token)) as TokenContext;
    expect((await tokens.renewSelf(lctx, '5000h')).lease_duration).toBe(2_764_800);
    // A root child with only an explicit max lives that long (not forever)...
    expect((await tokens.create(ctx, { explicit_max_ttl: '2h' })).lease_duration).toBe(7200);
    // ...and no longer than the store's max TTL, with the same warning.
    const rootHuge = await tokens.create(ctx, { explicit_max_ttl: '10000h' });
    expect(rootHuge.lease_duration).toBe(2_764_800);
    expect(warningsOf(rootHuge)).toEqual([
      'TTL of "10000h" exceeded the effective max_ttl of "768h"; TTL value is capped accordingly',
    ]);
    // `lease` is Vault's older name of `ttl`.
    expect((await tokens.create(ctx, { policies: ['a'], lease: '90s' })).lease_duration).toBe(90);
    expect((await tokens.create(ctx, { policies: ['a'], lease: '1.5m' })).lease_duration).toBe(90);
    // Vault parses `lease` with Go's time.ParseDuration, not ParseDurationSecond: a unit is
    // required and there are no days (`ttl` takes all three).
    for (const lease of [3600, '3600', '1d', ' 1h']) {
      await expect(
        tokens.create(ctx, { policies: ['a'], lease } as never),
        JSON.stringify(lease),
      ).rejects.toMatchObject({
        code: 'invalid_request',
        message: `invalid duration for lease: ${JSON.stringify(lease)}`,
      });
    }
    expect((await tokens.create(ctx, { policies: ['a'], ttl: '3600' })).lease_duration).toBe(3600);
  });

  it('an expiring root token cannot create a root token that never expires', async () => {
    const { tokens, ctx } = await setup();
    const expiring = await tokens.create(ctx, { ttl: '1h' });
    const ectx = (await tokens.authenticate(expiring.client_token)) as TokenContext;
    expect(ectx.isRoot).toBe(true);
    await expect(tokens.create(ectx, { no_parent: true })).rejects.toMatchObject({
      code: 'invalid_request',
      message: 'expiring root tokens cannot create non-expiring root tokens',
    });
    // A root token without expiry is not advertised as renewable.
    expect((await tokens.create(ctx)).renewable).toBe(false);
  });

  it("sanitises display_name as Vault's token store does", async () => {
    const { tokens, ctx } = await setup();
    const t = await tokens.create(ctx, { policies: ['a'], display_name: 'My App!\n' });
    const tctx = (await tokens.authenticate(t.client_token)) as TokenContext;
    expect((await tokens.lookupSelf(tctx)).display_name).toBe('token-My-App-');
  });

  it('without a lease manager a child never outlives its parent (capped, renewed only up to it)', async () => {
    const { tokens, ctx, clock } = await setup();
    const parent = await tokens.create(ctx, { policies: ['a'], ttl: '10s' });
    const pctx = (await tokens.authenticate(parent.client_token)) as TokenContext;
    const child = await tokens.create(pctx, { policies: ['a'], ttl: '1h' });
    expect(child.lease_duration).toBe(10);
    expect(warningsOf(child)[0]).toMatch(/parent token's remaining TTL/);
    const cctx = (await tokens.authenticate(child.client_token)) as TokenContext;
    // A renewal does not take the child past its parent's expiry.
    clock.advance(5_000);
    expect((await tokens.renewSelf(cctx, '1h')).lease_duration).toBeLessThanOrEqual(5);
    clock.advance(6_000);
    expect(await tokens.authenticate(child.client_token)).toBeUndefined();
    expect(await tokens.authenticate(parent.client_token)).toBeUndefined();
    // An orphan made by root is not capped.
    const orphan = await tokens.create(ctx, { policies: ['a'], ttl: '1h', no_parent: true });
    expect(orphan.lease_duration).toBe(3600);
  });

  it('refuses bad fields with invalid_request', async () => {
    const { tokens, ctx } = await setup();
    for (const req of [
      { ttl: '-1h' },
      { ttl: 'soon' },
      { num_uses: -1 },
      { num_uses: 'many' },
      { renewable: 'perhaps' },
      { policies: [[1]] },
      { meta: { a: { b: 1 } } },
      { meta: 'x' },
    ]) {
      expect(await code(tokens.create(ctx, req as never)), JSON.stringify(req)).toBe(
        'invalid_request',
      );
    }
  });

  it('entity_alias is refused as Vault refuses it without a token role, after the uses and before the id', async () => {
    const { tokens, ctx, storage } = await setup();
    const before = await dump(storage);
    const refused = "'entity_alias' is only allowed in combination with token role";
    for (const entity_alias of ['web', 'x', 5, true]) {
      await expect(
        tokens.create(ctx, { entity_alias, policies: ['a'] } as never),
        String(entity_alias),
      ).rejects.toMatchObject({ code: 'invalid_request', message: refused });
    }
    // Vault's order: the uses first, the alias next, the id after it.
    await expect(tokens.create(ctx, { num_uses: -1, entity_alias: 'web' })).rejects.toMatchObject({
      message: 'number of uses cannot be negative',
    });
    await expect(tokens.create(ctx, { entity_alias: 'web', id: 'a.b' })).rejects.toMatchObject({
      message: refused,
    });
    expect(await dump(storage)).toBe(before);
    // Empty or absent: no alias asked for.
    for (const entity_alias of ['', null, undefined]) {
      const t = await tokens.create(ctx, { entity_alias, policies: ['a'] } as never);
      expect(t.policies).toEqual(['a', 'default']);
    }
  });

  it("decodes policies and meta as Vault's token store (WeakDecode): numbers and booleans as text", async () => {
    const { tokens, ctx } = await setup();
    const made = await tokens.create(ctx, {
      policies: [7, 'a'],
      meta: { n: 1, b: false, z: null },
    } as never);
    expect(made.policies).toEqual(['7', 'a', 'default']);
    const mctx = (await tokens.authenticate(made.client_token)) as TokenContext;
    expect((await tokens.lookupSelf(mctx)).meta).toEqual({ n: '1', b: '0', z: '' });
  });
});

it("a negative ttl, explicit_max_ttl or lease gets Vault's `<field> must be positive`", async () => {
  const { tokens, ctx } = await setup();
  for (const [req, message] of [
    [{ ttl: '-1h' }, 'ttl must be positive'],
    [{ ttl: -5 }, 'ttl must be positive'],
    [{ explicit_max_ttl: '-10m' }, 'explicit_max_ttl must be positive'],
    [{ lease: '-2h' }, 'lease must be positive'],
    [{ period: '-1s' }, 'period must be positive'],
  ] as const) {
    await expect(tokens.create(ctx, req), JSON.stringify(req)).rejects.toMatchObject({
      code: 'invalid_request',
      message,
    });
  }
  // A bad duration keeps the duration's own refusal.
  await expect(tokens.create(ctx, { ttl: 'soon' })).rejects.toMatchObject({
    message: 'invalid duration for ttl: "soon"',
  });
});
