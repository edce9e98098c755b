/**
 * The token store: tokens kept only as salted hashes (nothing in storage holds a
 * token), a per-store random salt, TTLs and renewal on a fake clock, limited uses
 * under concurrency, child-token rules, and revocation of whole trees.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileStorage } from '../../adapters/file/index.js';
import { AclPolicyStore } from '../../src/auth/acl-policies.js';
import type { TokenContext } from '../../src/auth/token-entry.js';
import { TokenStore } from '../../src/auth/token-store.js';
import { isTransitError } from '../../src/errors.js';
import { LeaseManager } from '../../src/leases/lease-manager.js';
import { warningsOf } from '../../src/result-meta.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { FakeClock } from '../helpers/fake-clock.js';

async function setup() {
  const storage = new MemoryStorage();
  const clock = new FakeClock();
  const tokens = new TokenStore({ storage, clock });
  const root = await tokens.createRoot();
  const ctx = (await tokens.authenticate(root)) as TokenContext;
  return { storage, clock, tokens, root, ctx };
}

/** Every key and value in storage, as text. */
async function dump(storage: MemoryStorage): Promise<string> {
  let out = '';
  for (const k of await storage.list(''))
    out += `${k}=${new TextDecoder().decode(await storage.get(k))}\n`;
  return out;
}

const code = async (p: Promise<unknown>) => {
  try {
    await p;
    return 'ok';
  } catch (e) {
    return isTransitError(e) ? e.code : 'thrown';
  }
};

describe('storage never holds a token', () => {
  it('keys and values contain only hashes', async () => {
    const { storage, tokens, root, ctx } = await setup();
    const child = await tokens.create(ctx, { policies: ['app'] });
    const text = await dump(storage);
    expect(text).not.toContain(root);
    expect(text).not.toContain(child.client_token);
    expect(text).not.toContain(child.client_token.slice(4));
    expect(text).toContain(child.accessor);
  });

  it('the salt is random per store and persisted', async () => {
    const a = new MemoryStorage();
    const b = new MemoryStorage();
    const ta = new TokenStore({ storage: a });
    const tb = new TokenStore({ storage: b });
    await ta.createRoot({ id: 'same' });
    await tb.createRoot({ id: 'same' });
    expect(await a.list('auth/token/id/')).not.toEqual(await b.list('auth/token/id/'));
    // A second store instance over the same storage reads the same salt.
    const again = new TokenStore({ storage: a });
    expect(await again.authenticate('same')).toBeDefined();
  });

  it('tokens are hvs.-prefixed, 32 base62 characters, and distinct', async () => {
    const { tokens, ctx } = await setup();
    const seen = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const t = (await tokens.create(ctx)).client_token;
      expect(t).toMatch(/^hvs\.[A-Za-z0-9]{32}$/);
      seen.add(t);
    }
    expect(seen.size).toBe(50);
  });
});

describe('authenticate', () => {
  it('refuses unknown, empty and oversized tokens', async () => {
    const { tokens, root } = await setup();
    expect(await tokens.authenticate('nope')).toBeUndefined();
    expect(await tokens.authenticate('')).toBeUndefined();
    expect(await tokens.authenticate(`${root}x`)).toBeUndefined();
    expect(await tokens.authenticate('x'.repeat(600))).toBeUndefined();
    expect(await tokens.authenticate(3 as unknown as string)).toBeUndefined();
  });

  it('a root token never expires; a TTL token expires on the clock', async () => {
    const { tokens, root, ctx, clock } = await setup();
    const t = await tokens.create(ctx, { policies: ['app'], ttl: '1h' });
    clock.advance(3599_000);
    expect(await tokens.authenticate(t.client_token)).toBeDefined();
    clock.advance(1_000);
    expect(await tokens.authenticate(t.client_token)).toBeUndefined();
    clock.advance(365 * 86400_000);
    expect((await tokens.authenticate(root))?.isRoot).toBe(true);
  });

  it('a limited-use token is spent exactly once per use, even concurrently', async () => {
    const { tokens, ctx } = await setup();
    const t = await tokens.create(ctx, { num_uses: 5 });
    const results = await Promise.all(
      Array.from({ length: 12 }, () => tokens.authenticate(t.client_token)),
    );
    expect(results.filter(Boolean)).toHaveLength(5);
    expect(await tokens.authenticate(t.client_token)).toBeUndefined();
  });

  it('eight stores on one file store spend 64 uses at once with no conflict', async () => {
    // Without a pause between lost compare-and-sets, half of these failed with `conflict`.
    const dir = mkdtempSync(join(tmpdir(), 'transitkit-token-contention-'));
    try {
      const storage = await FileStorage.open(dir);
      const stores = Array.from({ length: 8 }, () => new TokenStore({ storage }));
      const first = stores[0] as TokenStore;
      const root = (await first.authenticate(await first.createRoot())) as TokenContext;
      const t = await first.create(root, { num_uses: 70 });
      const uses = await Promise.allSettled(
        stores.flatMap((s) => Array.from({ length: 8 }, () => s.authenticate(t.client_token))),
      );
      expect(uses.filter((u) => u.status === 'rejected')).toEqual([]);
      expect(uses.every((u) => u.status === 'fulfilled' && u.value !== undefined)).toBe(true);
      const fresh = new TokenStore({ storage });
      const ctx = (await fresh.authenticate(t.client_token)) as TokenContext;
      expect((await fresh.lookupSelf(ctx)).num_uses).toBe(70 - 65);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

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

  it("a chosen id (Vault's `id`): root or sudo only, Vault's form rules, never a second token with it", async () => {
    const { tokens, ctx } = await setup();
    const made = await tokens.create(ctx, { id: 'dev-token-1', policies: ['a'] });
    expect(made.client_token).toBe('dev-token-1');
    const dctx = (await tokens.authenticate('dev-token-1')) as TokenContext;
    expect(dctx.policies).toEqual(['a', 'default']);
    expect((await tokens.lookupSelf(dctx)).id).toBe('dev-token-1');
    // Not from a token without sudo: Vault's text, before the id's form is looked at.
    await expect(tokens.create(dctx, { id: 'hvs.x', policies: ['a'] })).rejects.toMatchObject({
      code: 'invalid_request',
      message: 'root or sudo privileges required to specify token id',
    });
    // With sudo on the path (the HTTP layer's ACL decides), a non-root parent may.
    const sudoMade = await tokens.create(
      dctx,
      { id: 'chosen-by-sudo', policies: ['a'] },
      { sudo: true },
    );
    expect(sudoMade.client_token).toBe('chosen-by-sudo');
    for (const [id, message] of [
      ['hvs.abc', "custom token ID cannot have the 'hvs.' prefix"],
      ['s.abc', "custom token ID cannot have the 's.' prefix"],
      ['a.b', "custom token ID cannot have a '.' in the value"],
      ['with space', 'a token id must be 1-512 printable ASCII characters'],
      ['x'.repeat(513), 'a token id must be 1-512 printable ASCII characters'],
      ['dev-token-1', 'cannot create a token with a duplicate ID'],
    ]) {
      await expect(tokens.create(ctx, { id, policies: ['b'] }), id).rejects.toMatchObject({
        code: 'invalid_request',
        message,
      });
    }
    await expect(tokens.create(ctx, { id: 7 } as never)).rejects.toMatchObject({
      message: "'id' must be a string",
    });
    // The refused duplicate changed nothing: the first token keeps its policies.
    expect(((await tokens.authenticate('dev-token-1')) as TokenContext).policies).toEqual([
      'a',
      'default',
    ]);
  });

  it('a chosen id can never replace the root token', async () => {
    const storage = new MemoryStorage();
    const tokens = new TokenStore({ storage });
    const root = await tokens.createRoot({ id: 'root' });
    const rctx = (await tokens.authenticate(root)) as TokenContext;
    await expect(tokens.create(rctx, { id: 'root', policies: ['a'] })).rejects.toMatchObject({
      message: 'cannot create a token with a duplicate ID',
    });
    expect(((await tokens.authenticate('root')) as TokenContext).isRoot).toBe(true);
  });

  it('two instances choosing one id at once: one token, one refusal, no lease left behind', async () => {
    const clock = new FakeClock();
    const storage = new MemoryStorage({ clock });
    const leasesA = new LeaseManager({ storage, clock });
    const leasesB = new LeaseManager({ storage, clock });
    const a = new TokenStore({ storage, clock, leases: leasesA });
    const b = new TokenStore({ storage, clock, leases: leasesB });
    const root = await a.createRoot();
    const actxA = (await a.authenticate(root)) as TokenContext;
    const actxB = (await b.authenticate(root)) as TokenContext;
    const results = await Promise.allSettled([
      a.create(actxA, { id: 'raced', policies: ['x'], ttl: '1h' }),
      b.create(actxB, { id: 'raced', policies: ['y'], ttl: '1h' }),
    ]);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r) => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect((lost[0] as PromiseRejectedResult).reason).toMatchObject({
      message: 'cannot create a token with a duplicate ID',
    });
    const policies = ((await a.authenticate('raced')) as TokenContext).policies;
    expect([
      ['default', 'x'],
      ['default', 'y'],
    ]).toContainEqual([...policies].sort());
    await leasesA.idle();
    await leasesB.idle();
    // One token lease: the loser's lease was revoked with its refusal.
    expect((await leasesA.list('auth/token/create')).keys).toHaveLength(1);
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

describe('lookup, renew, revoke', () => {
  it("lookup-self has Vault's fields", async () => {
    const { tokens, ctx, clock } = await setup();
    const t = await tokens.create(ctx, {
      policies: ['app'],
      ttl: 600,
      display_name: 'ci',
      meta: { team: 'x' },
    });
    const tctx = (await tokens.authenticate(t.client_token)) as TokenContext;
    clock.advance(100_000);
    const l = await tokens.lookupSelf(tctx);
    expect(l).toMatchObject({
      id: t.client_token,
      accessor: t.accessor,
      policies: ['app', 'default'],
      display_name: 'token-ci',
      meta: { team: 'x' },
      ttl: 500,
      creation_ttl: 600,
      num_uses: 0,
      orphan: false,
      renewable: true,
      type: 'service',
      expire_time: '2026-01-01T00:10:00Z',
      issue_time: '2026-01-01T00:00:00Z',
    });
  });

  it('renew-self: increment, the creation TTL by default, the max TTL cap, not renewable', async () => {
    const storage = new MemoryStorage();
    const clock = new FakeClock();
    const tokens = new TokenStore({ storage, clock, maxTtl: '1h' });
    const ctx = (await tokens.authenticate(await tokens.createRoot())) as TokenContext;
    const t = await tokens.create(ctx, { policies: ['a'], ttl: 600 });
    const tctx = (await tokens.authenticate(t.client_token)) as TokenContext;
    clock.advance(500_000);
    expect((await tokens.renewSelf(tctx, 300)).lease_duration).toBe(300);
    expect((await tokens.renewSelf(tctx)).lease_duration).toBe(600);
    clock.advance(500_000);
    const capped = await tokens.renewSelf(tctx, '1h');
    expect(capped.lease_duration).toBe(3600 - 1000);
    expect(warningsOf(capped)).toEqual([
      'TTL of "1h" exceeded the effective max_ttl of "43m20s"; TTL value is capped accordingly',
    ]);
    // Past its max TTL the token has expired: nothing is left to renew.
    clock.advance(2700_000);
    expect(await code(tokens.renewSelf(tctx))).toBe('invalid_request');
    const fixed = await tokens.create(ctx, { policies: ['a'], renewable: false });
    const fctx = (await tokens.authenticate(fixed.client_token)) as TokenContext;
    expect(await code(tokens.renewSelf(fctx))).toBe('invalid_request');
  });

  it('lookup and renew by value count no use of that token; unknown or expired is bad token', async () => {
    const { tokens, ctx, clock } = await setup();
    const t = await tokens.create(ctx, { policies: ['a'], ttl: 600, num_uses: 1 });
    const seen = await tokens.lookup(ctx, t.client_token);
    expect(seen).toMatchObject({ id: t.client_token, accessor: t.accessor, num_uses: 1 });
    expect((await tokens.renew(t.client_token, 300)).lease_duration).toBe(300);
    // Its one use is still there.
    expect(await tokens.authenticate(t.client_token)).toBeDefined();
    // Without a token, lookup is lookup-self.
    expect((await tokens.lookup(ctx)).policies).toEqual(['root']);
    await expect(tokens.lookup(ctx, 'hvs.nope')).rejects.toMatchObject({
      code: 'permission_denied',
      message: 'bad token',
    });
    const short = await tokens.create(ctx, { policies: ['a'], ttl: 60 });
    clock.advance(61_000);
    await expect(tokens.lookup(ctx, short.client_token)).rejects.toMatchObject({
      message: 'bad token',
    });
    await expect(tokens.renew(short.client_token)).rejects.toMatchObject({
      code: 'invalid_request',
      message: 'token not found',
    });
    expect(await code(tokens.renew(''))).toBe('invalid_request');
  });

  it('lookup-accessor hides the id; revoke-accessor revokes the tree; accessors never address other keys', async () => {
    const { tokens, ctx, storage } = await setup();
    const a = await tokens.create(ctx, { policies: ['a'] });
    const actx = (await tokens.authenticate(a.client_token)) as TokenContext;
    const b = await tokens.create(actx, { policies: ['a'] });
    const seen = await tokens.lookupAccessor(a.accessor);
    expect(seen).toMatchObject({ id: '', accessor: a.accessor, policies: ['a', 'default'] });
    await tokens.revokeAccessor(a.accessor);
    expect(await tokens.authenticate(a.client_token)).toBeUndefined();
    expect(await tokens.authenticate(b.client_token)).toBeUndefined();
    for (const bad of [a.accessor, 'nope', '../id/x', 'a/b', 'x'.repeat(65)]) {
      await expect(tokens.lookupAccessor(bad)).rejects.toMatchObject({
        code: 'invalid_request',
        message: 'invalid accessor',
      });
      await expect(tokens.revokeAccessor(bad)).rejects.toMatchObject({
        message: 'invalid accessor',
      });
    }
    // The salt's key is not an accessor's: nothing outside auth/token/accessor/ is read.
    expect(await storage.get('auth/token/salt')).toBeDefined();
    await expect(tokens.lookupAccessor('salt')).rejects.toMatchObject({
      message: 'invalid accessor',
    });
  });

  it('revoke-orphan needs sudo, revokes the token and leaves its children as orphans', async () => {
    const { tokens, ctx } = await setup();
    const a = await tokens.create(ctx, { policies: ['a'] });
    const actx = (await tokens.authenticate(a.client_token)) as TokenContext;
    const b = await tokens.create(actx, { policies: ['a'] });
    const bctx = (await tokens.authenticate(b.client_token)) as TokenContext;
    const c = await tokens.create(bctx, { policies: ['a'] });
    await expect(tokens.revokeOrphan(a.client_token)).rejects.toMatchObject({
      code: 'invalid_request',
      message: 'root or sudo privileges required to revoke and orphan',
    });
    await tokens.revokeOrphan(a.client_token, { sudo: true });
    expect(await tokens.authenticate(a.client_token)).toBeUndefined();
    const bNow = (await tokens.authenticate(b.client_token)) as TokenContext;
    expect((await tokens.lookupSelf(bNow)).orphan).toBe(true);
    // The grandchild is still b's child: revoking b takes it.
    await tokens.revoke(b.client_token);
    expect(await tokens.authenticate(c.client_token)).toBeUndefined();
    await expect(tokens.revokeOrphan('hvs.unknown', { sudo: true })).rejects.toMatchObject({
      code: 'invalid_request',
      message: 'token to revoke not found',
    });
    await expect(tokens.revokeOrphan('', { sudo: true })).rejects.toMatchObject({
      message: 'missing token ID',
    });
    await expect(tokens.lookupAccessor('')).rejects.toMatchObject({ message: 'missing accessor' });
    await expect(tokens.revokeAccessor('')).rejects.toMatchObject({ message: 'missing accessor' });
  });

  it('create-orphan makes an orphan without sudo; no_parent on it still needs sudo (Vault)', async () => {
    const { tokens, ctx } = await setup();
    const a = await tokens.create(ctx, { policies: ['a'] });
    const actx = (await tokens.authenticate(a.client_token)) as TokenContext;
    const o = await tokens.create(actx, { policies: ['a'] }, { orphan: true });
    expect(o.orphan).toBe(true);
    await tokens.revoke(a.client_token);
    expect(await tokens.authenticate(o.client_token)).toBeDefined();
    const x = await tokens.create(ctx, { policies: ['a'] });
    const xctx = (await tokens.authenticate(x.client_token)) as TokenContext;
    await expect(tokens.create(xctx, { no_parent: true }, { orphan: true })).rejects.toMatchObject({
      code: 'invalid_request',
      message: 'root or sudo privileges required to create orphan token',
    });
  });

  it('revoke removes a token, its children and its index entries; unknown tokens are fine', async () => {
    const { storage, tokens, ctx } = await setup();
    const a = await tokens.create(ctx, { policies: ['p'] });
    const actx = (await tokens.authenticate(a.client_token)) as TokenContext;
    const b = await tokens.create(actx, { policies: ['p'] });
    const bctx = (await tokens.authenticate(b.client_token)) as TokenContext;
    const c = await tokens.create(bctx, { policies: ['p'] });
    await tokens.revoke(a.client_token);
    for (const t of [a, b, c]) expect(await tokens.authenticate(t.client_token)).toBeUndefined();
    // Left: the salt, the bootstrap marker, and the root token's entry and accessor.
    const left = (await storage.list('auth/')).map((k) =>
      k.replace(/[0-9a-f]{64}|[A-Za-z0-9]{24}$/, '*'),
    );
    expect(left.sort()).toEqual([
      'token/accessor/*',
      'token/bootstrapped',
      'token/id/*',
      'token/salt',
    ]);
    await tokens.revoke('hvs.unknown');
    expect(await code(tokens.revoke(''))).toBe('invalid_request');
    await tokens.revokeSelf(ctx);
    expect(await tokens.authenticate((ctx as TokenContext).token)).toBeUndefined();
  });

  it('bootstrapRoot gives one root token per store, ever', async () => {
    const storage = new MemoryStorage();
    const tokens = new TokenStore({ storage });
    const first = await tokens.bootstrapRoot();
    expect(first).toMatch(/^hvs\./);
    expect(await tokens.bootstrapRoot()).toBeUndefined();
    expect(await new TokenStore({ storage }).bootstrapRoot()).toBeUndefined();
    const dev = new TokenStore({ storage: new MemoryStorage() });
    await dev.createRoot({ id: 'root' });
    expect(await dev.bootstrapRoot()).toBeUndefined();
    expect(await code(dev.createRoot({ id: 'has space' }))).toBe('invalid_request');
  });
});

describe('AclPolicyStore', () => {
  it('writes, reads, lists and deletes; root and default are built in', async () => {
    const p = new AclPolicyStore({ storage: new MemoryStorage() });
    expect(await p.list()).toEqual(['default', 'root']);
    expect((await p.read('default'))?.policy).toContain('auth/token/lookup-self');
    await p.write('App', 'path "a" { capabilities = ["read"] }');
    expect(await p.read('app')).toEqual({
      name: 'app',
      policy: 'path "a" { capabilities = ["read"] }',
    });
    expect(await p.list()).toEqual(['app', 'default', 'root']);
    await p.delete('app');
    expect(await p.read('app')).toBeUndefined();
    expect(await code(p.write('root', 'path "a" { capabilities = ["read"] }'))).toBe(
      'invalid_request',
    );
    expect(await code(p.delete('default'))).toBe('invalid_request');
    expect(await code(p.write('bad/name', 'path "a" { capabilities = ["read"] }'))).toBe(
      'invalid_request',
    );
    expect(await code(p.write('x', ''))).toBe('invalid_request');
  });

  it('compiled ACLs follow writes and deletes', async () => {
    const p = new AclPolicyStore({ storage: new MemoryStorage() });
    await p.write('x', 'path "a" { capabilities = ["read"] }');
    expect((await p.acl(['x'])).allows('a', 'read')).toBe(true);
    await p.write('x', 'path "a" { capabilities = ["deny"] }');
    expect((await p.acl(['x'])).allows('a', 'read')).toBe(false);
    await p.delete('x');
    expect((await p.acl(['x', 'missing'])).allows('a', 'read')).toBe(false);
    expect((await p.acl(['root'])).allows('a', 'delete', true)).toBe(true);
  });
});

describe('token leases (with a LeaseManager)', () => {
  async function withLeases() {
    const storage = new MemoryStorage();
    const clock = new FakeClock();
    const leases = new LeaseManager({ storage, clock });
    const tokens = new TokenStore({ storage, clock, leases });
    const root = await tokens.createRoot();
    const ctx = (await tokens.authenticate(root)) as TokenContext;
    return { storage, clock, leases, tokens, ctx };
  }

  it('a token with a TTL gets a lease under auth/token/create/ that never holds the token', async () => {
    const { storage, leases, tokens, ctx } = await withLeases();
    const t = await tokens.create(ctx, { policies: ['a'], ttl: '1h' });
    const { keys } = await leases.list('auth/token/create');
    expect(keys).toHaveLength(1);
    const lease = await leases.lookup(`auth/token/create/${keys[0]}`);
    expect(lease.ttl).toBe(3600);
    expect(await dump(storage)).not.toContain(t.client_token);
    // A root token (no TTL) has none.
    await tokens.create(ctx);
    expect((await leases.list('auth/token/create')).keys).toHaveLength(1);
  });

  it('revoking the lease revokes the token; revoking the token revokes the lease', async () => {
    const { leases, tokens, ctx } = await withLeases();
    const a = await tokens.create(ctx, { policies: ['a'], ttl: 600 });
    const b = await tokens.create(ctx, { policies: ['a'], ttl: 600 });
    const ids = (await leases.list('auth/token/create')).keys.map((k) => `auth/token/create/${k}`);
    await leases.revoke(ids[0] as string);
    const alive = [await tokens.exists(a.client_token), await tokens.exists(b.client_token)];
    expect(alive.filter(Boolean)).toHaveLength(1);
    const survivor = alive[0] ? a : b;
    await tokens.revoke(survivor.client_token);
    expect((await leases.list('auth/token/create')).keys).toEqual([]);
  });

  it('renew-self renews the lease; the lease endpoint refuses token leases', async () => {
    const { clock, leases, tokens, ctx } = await withLeases();
    const t = await tokens.create(ctx, { policies: ['a'], ttl: 600 });
    const tctx = (await tokens.authenticate(t.client_token)) as TokenContext;
    clock.advance(300_000);
    await tokens.renewSelf(tctx, 3600);
    const [k] = (await leases.list('auth/token/create')).keys;
    const id = `auth/token/create/${k}`;
    expect((await leases.lookup(id)).ttl).toBe(3600);
    expect(await code(leases.renew(id, 60))).toBe('invalid_request');
  });

  it('an expired lease revokes its token on the next tick', async () => {
    const { clock, leases, tokens, ctx } = await withLeases();
    const t = await tokens.create(ctx, { policies: ['a'], ttl: 60 });
    clock.advance(61_000);
    await leases.tick();
    await leases.idle();
    expect((await leases.list('auth/token/create')).keys).toEqual([]);
    expect(await tokens.exists(t.client_token)).toBe(false);
  });
});
