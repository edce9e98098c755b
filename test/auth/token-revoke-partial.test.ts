/**
 * A revocation that fails half way is finished by a retry, never leaves a
 * descendant alive out of reach (token-revoke.ts `revokeTree`): every entry
 * of the tree goes first, and the accessors and parent-to-child links that
 * lead to them only once every entry is gone. Retried by token, and through
 * the lease manager's retry of an expiring parent's lease. And the last use
 * of a limited-use token revokes its lease and removes its accessor, as
 * Vault revokes a spent token.
 */
import { describe, expect, it } from 'vitest';
import type { TokenContext } from '../../src/auth/token-entry.js';
import { TokenStore } from '../../src/auth/token-store.js';
import { LeaseManager } from '../../src/leases/lease-manager.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { FailingEntryDelete } from './flaky-storage.js';

async function parentAndChild(tokens: TokenStore, parentTtl: string) {
  const root = (await tokens.authenticate(await tokens.createRoot())) as TokenContext;
  const parent = await tokens.create(root, { policies: ['app'], ttl: parentTtl });
  const pctx = (await tokens.authenticate(parent.client_token)) as TokenContext;
  const child = await tokens.create(pctx, { policies: ['app'], ttl: '1h' });
  const grandchild = await tokens.create(
    (await tokens.authenticate(child.client_token)) as TokenContext,
    { policies: ['app'] },
  );
  return { parent, child, grandchild };
}

describe('a token tree revocation that fails half way', () => {
  for (const failing of [2, 3]) {
    it(`is finished by a retry by token (entry delete ${failing} fails)`, async () => {
      const clock = new FakeClock();
      const storage = new FailingEntryDelete(new MemoryStorage({ clock }), failing);
      const tokens = new TokenStore({ storage, clock });
      const { parent, child, grandchild } = await parentAndChild(tokens, '1h');
      storage.armed = true;
      await expect(tokens.revoke(parent.client_token)).rejects.toThrow(/outage/);
      // Nothing of the tree that was reached authenticates meanwhile, as far as it went.
      expect(await tokens.authenticate(parent.client_token)).toBeUndefined();
      await tokens.revoke(parent.client_token); // the retry the error invites
      for (const t of [parent, child, grandchild]) {
        expect(await tokens.authenticate(t.client_token)).toBeUndefined();
      }
      // Nothing is left that leads to a revoked token.
      expect(await storage.list('auth/token/accessor/')).toHaveLength(1); // the root's
      expect(await storage.list('auth/token/parent/')).toEqual([]);
    });
  }

  it("is finished by the lease manager's retry of an expiring parent", async () => {
    const clock = new FakeClock();
    const storage = new FailingEntryDelete(new MemoryStorage({ clock }), 2);
    const leases = new LeaseManager({ storage, clock, onError: () => {} });
    const tokens = new TokenStore({ storage, clock, leases });
    const { parent, child, grandchild } = await parentAndChild(tokens, '10s');
    storage.armed = true;
    clock.advance(11_000);
    expect((await leases.tick()).retried).toBe(1); // the parent's lease: its revoker failed
    clock.advance(60_000);
    await leases.tick();
    for (const t of [parent, child, grandchild]) {
      expect(await tokens.authenticate(t.client_token)).toBeUndefined();
    }
    expect((await leases.list('auth/token/create/')).keys).toEqual([]);
    await leases.stop();
  });
});

describe('the last use of a limited-use token', () => {
  it('revokes its lease and removes its accessor', async () => {
    const clock = new FakeClock();
    const storage = new MemoryStorage({ clock });
    const leases = new LeaseManager({ storage, clock });
    const tokens = new TokenStore({ storage, clock, leases });
    const root = (await tokens.authenticate(await tokens.createRoot())) as TokenContext;
    const once = await tokens.create(root, { policies: ['app'], ttl: '1h', num_uses: 1 });
    expect((await leases.list('auth/token/create/')).keys).toHaveLength(1);
    expect(await tokens.authenticate(once.client_token)).toBeDefined(); // its one use
    expect(await tokens.authenticate(once.client_token)).toBeUndefined(); // spent
    expect((await leases.list('auth/token/create/')).keys).toEqual([]);
    expect(await storage.list('auth/token/accessor/')).not.toContain(once.accessor);
    await leases.stop();
  });
});
