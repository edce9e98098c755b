/**
 * The HTTP adapter's promise-free token and ACL checks (answer-now.ts, with
 * the cached paths token-store.ts and acl-policies.ts register there): the same answers as
 * `authenticate` and `acl`, without a promise only where the answer is
 * cached and needs no write, and through the public method everywhere else
 * (a read, an expired or limited-use token, a changed policy, a subclass
 * that overrides the method, a store from another copy of the package).
 */
import { describe, expect, it } from 'vitest';
import { AclPolicyStore } from '../../src/auth/acl-policies.js';
import { aclNow, authenticateNow } from '../../src/auth/answer-now.js';
import type { TokenContext } from '../../src/auth/token-entry.js';
import { TokenStore } from '../../src/auth/token-store.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { FlakyStorage } from './flaky-storage.js';

async function setup() {
  const storage = new MemoryStorage();
  const clock = new FakeClock();
  const tokens = new TokenStore({ storage, clock });
  const policies = new AclPolicyStore({ storage, clock });
  const root = await tokens.createRoot();
  const ctx = (await tokens.authenticate(root)) as TokenContext;
  return { storage, clock, tokens, policies, root, ctx };
}

describe('authenticateNow', () => {
  it('answers a cached token without a promise, as authenticate does', async () => {
    const { tokens, root } = await setup();
    const now = authenticateNow(tokens, root);
    expect(now).not.toBeInstanceOf(Promise);
    expect(now).toEqual(await tokens.authenticate(root));
    for (const bad of ['', 'x'.repeat(10_000), 42 as never]) {
      expect(authenticateNow(tokens, bad)).toBeUndefined();
    }
  });

  it('goes through a read for a token not cached, and refuses an unknown one', async () => {
    const { storage, clock, root } = await setup();
    const other = new TokenStore({ storage, clock }); // nothing cached yet
    const first = authenticateNow(other, root);
    expect(first).toBeInstanceOf(Promise);
    expect((await first)?.policies).toEqual(['root']);
    // Once its change feed is live, the store answers from its cache.
    await storage.watch('', () => {}).then((stop) => stop());
    await other.authenticate(root);
    expect(authenticateNow(other, root)).not.toBeInstanceOf(Promise);
    expect(await authenticateNow(other, `${root}x`)).toBeUndefined();
  });

  it('revokes an expired token and counts the uses of a limited one, as authenticate does', async () => {
    const { tokens, clock, ctx } = await setup();
    const timed = (await tokens.create(ctx, { ttl: '1m' })).client_token;
    expect(authenticateNow(tokens, timed)).toBeDefined();
    await tokens.authenticate(timed); // cached now
    clock.advance(61_000);
    const expired = authenticateNow(tokens, timed);
    expect(expired).toBeInstanceOf(Promise);
    expect(await expired).toBeUndefined();
    expect(await tokens.exists(timed)).toBe(false);

    const twice = (await tokens.create(ctx, { num_uses: 2 })).client_token;
    const uses = [authenticateNow(tokens, twice), authenticateNow(tokens, twice)];
    expect(uses[0]).toBeInstanceOf(Promise); // a limited-use entry is never served from the cache
    expect((await Promise.all(uses)).every((u) => u !== undefined)).toBe(true);
    expect(await authenticateNow(tokens, twice)).toBeUndefined();
  });

  it('a revoked token is refused at once, cached or not', async () => {
    const { tokens, ctx } = await setup();
    const t = (await tokens.create(ctx)).client_token;
    expect(await authenticateNow(tokens, t)).toBeDefined();
    await tokens.revoke(t);
    expect(await authenticateNow(tokens, t)).toBeUndefined();
  });

  it("asks a subclass's own authenticate, and a store from another copy of the package", async () => {
    const { storage, root } = await setup();
    const seen: string[] = [];
    class Logged extends TokenStore {
      override async authenticate(token: string) {
        seen.push('sub');
        return super.authenticate(token);
      }
    }
    const sub = new Logged({ storage });
    expect((await authenticateNow(sub, root))?.isRoot).toBe(true);
    expect(await authenticateNow(sub, root)).toBeDefined();
    expect(seen).toEqual(['sub', 'sub']);
    const foreign = {
      authenticate: async (t: string) => (t === 'ok' ? ({ policies: ['p'] } as never) : undefined),
    } as unknown as TokenStore;
    expect(await authenticateNow(foreign, 'ok')).toEqual({ policies: ['p'] });
    expect(await authenticateNow(foreign, root)).toBeUndefined();
  });

  it('a failed read fails closed through the promise, cached entry or not', async () => {
    const storage = new FlakyStorage();
    const clock = new FakeClock();
    const tokens = new TokenStore({ storage, clock });
    const root = await tokens.createRoot();
    await tokens.authenticate(root);
    storage.failing.add('auth/token/id/');
    clock.advance(1_000); // past the cache's re-read age: the entry must be read
    const e = await Promise.resolve(authenticateNow(tokens, root)).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(e).toMatchObject({ code: 'internal' });
    expect(String((e as Error).message)).not.toContain(root);
    storage.failing.clear();
    expect((await authenticateNow(tokens, root))?.isRoot).toBe(true);
  });
});

describe('aclNow', () => {
  it('answers a cached ACL without a promise, and reads again after a change', async () => {
    const { policies } = await setup();
    await policies.write('app', 'path "transit/encrypt/a" { capabilities = ["update"] }');
    const first = aclNow(policies, ['app', 'default']);
    expect(first).toBeInstanceOf(Promise);
    const acl = await first;
    expect(acl.allows('transit/encrypt/a', 'update', false)).toBe(true);
    expect(aclNow(policies, ['app', 'default'])).toBe(acl);
    expect(aclNow(policies, ['default', 'APP'])).toBe(acl); // the same set, normalised
    await policies.write('app', 'path "transit/encrypt/b" { capabilities = ["update"] }');
    const after = aclNow(policies, ['app', 'default']);
    expect(after).toBeInstanceOf(Promise);
    const changed = await after;
    expect(changed.allows('transit/encrypt/a', 'update', false)).toBe(false);
    expect(changed.allows('transit/encrypt/b', 'update', false)).toBe(true);
  });

  it('sees a policy list changed in place (the set is keyed by its contents)', async () => {
    const { policies } = await setup();
    await policies.write('a', 'path "x" { capabilities = ["read"] }');
    await policies.write('b', 'path "y" { capabilities = ["read"] }');
    const names = ['a'];
    const a = await aclNow(policies, names);
    names[0] = 'b';
    const b = await aclNow(policies, names);
    expect(a.allows('x', 'read', false)).toBe(true);
    expect(b.allows('x', 'read', false)).toBe(false);
    expect(b.allows('y', 'read', false)).toBe(true);
  });

  it('ages out with acl() (the clock), and asks an overriding subclass', async () => {
    const { storage, clock, policies } = await setup();
    await aclNow(policies, ['default']);
    expect(aclNow(policies, ['default'])).not.toBeInstanceOf(Promise);
    clock.advance(5_000);
    expect(aclNow(policies, ['default'])).toBeInstanceOf(Promise);
    let calls = 0;
    class Counted extends AclPolicyStore {
      override async acl(names: readonly string[]) {
        calls++;
        return super.acl(names);
      }
    }
    const sub = new Counted({ storage, clock });
    await aclNow(sub, ['default']);
    await aclNow(sub, ['default']);
    expect(calls).toBe(2);
  });
});
