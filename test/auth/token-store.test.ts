/**
 * The token store: tokens kept only as salted hashes (nothing in storage holds a
 * token), a per-store random salt, TTLs and renewal on a fake clock, limited uses
 * under concurrency, lookups, revocation of whole trees and token leases.
 * Creation's rules are in `token-create.test.ts`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileStorage } from '../../adapters/file/index.js';
import type { TokenContext } from '../../src/auth/token-entry.js';
import { TokenStore } from '../../src/auth/token-store.js';
import { LeaseManager } from '../../src/leases/lease-manager.js';
import { warningsOf } from '../../src/result-meta.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { code, dump, setup } from './token-helpers.js';

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

  it('renew-self: increment, the TTL last granted by default, the max TTL cap, not renewable', async () => {
    const storage = new MemoryStorage();
    const clock = new FakeClock();
    const tokens = new TokenStore({ storage, clock, maxTtl: '1h' });
    const ctx = (await tokens.authenticate(await tokens.createRoot())) as TokenContext;
    const t = await tokens.create(ctx, { policies: ['a'], ttl: 600 });
    const tctx = (await tokens.authenticate(t.client_token)) as TokenContext;
    clock.advance(500_000);
    // The first renewal without an increment asks for the creation TTL; after
    // one with an increment, for that TTL (Vault's RenewToken: the lease's Auth.TTL).
    expect((await tokens.renewSelf(tctx)).lease_duration).toBe(600);
    expect((await tokens.renewSelf(tctx, 300)).lease_duration).toBe(300);
    expect((await tokens.renewSelf(tctx)).lease_duration).toBe(300);
    const looked = await tokens.lookupSelf(tctx);
    expect(looked.last_renewal_time).toBe(Math.floor(clock.now() / 1000));
    expect(looked.last_renewal).toBe(new Date(clock.now()).toISOString().replace('.000Z', 'Z'));
    expect((await tokens.renewSelf(tctx, 600)).lease_duration).toBe(600);
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

  it('a token that never expires is not renewed: no lease for the initial root token, none renewable for others', async () => {
    const { tokens, root, ctx } = await setup();
    const message = async (p: Promise<unknown>) =>
      p.then(
        () => 'renewed',
        (e: Error & { code?: string }) => `${e.code}: ${e.message}`,
      );
    // Vault's RenewToken: the initial root token has no lease; a root token
    // made by auth/token/create has one, without an expiry.
    expect(await message(tokens.renewSelf(ctx))).toBe('invalid_request: invalid lease ID');
    expect(await message(tokens.renew(root))).toBe('invalid_request: invalid lease ID');
    const child = await tokens.create(ctx, {});
    expect(child.lease_duration).toBe(0);
    const cctx = (await tokens.authenticate(child.client_token)) as TokenContext;
    expect(await message(tokens.renewSelf(cctx, 60))).toBe(
      'invalid_request: lease is not renewable',
    );
    expect(await message(tokens.renew(child.client_token))).toBe(
      'invalid_request: lease is not renewable',
    );
    // Nothing was written: the token still never expires.
    expect((await tokens.lookupSelf(cctx)).ttl).toBe(0);
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
