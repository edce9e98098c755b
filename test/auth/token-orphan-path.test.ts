/**
 * A token made through `auth/token/create-orphan` records that path, as
 * Vault's `handleCreateCommon` (`auth/token/<route>`): its lookup says
 * `path: auth/token/create-orphan` and its lease id starts with it, so
 * `sys/leases/revoke-prefix/auth/token/create-orphan` reaches such tokens (it
 * reached nothing: every token said `auth/token/create`). Revoking or
 * expiring that lease revokes the token; a periodic one keeps its path when
 * its lease is taken over.
 */
import { describe, expect, it } from 'vitest';
import type { TokenContext } from '../../src/auth/token-entry.js';
import { TokenStore } from '../../src/auth/token-store.js';
import { LeaseManager } from '../../src/leases/lease-manager.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { FakeClock } from '../helpers/fake-clock.js';

async function setup() {
  const clock = new FakeClock();
  const storage = new MemoryStorage({ clock });
  const leases = new LeaseManager({ storage, clock, maxTtlSeconds: 7200 });
  const tokens = new TokenStore({ storage, clock, leases });
  const root = (await tokens.authenticate(await tokens.createRoot())) as TokenContext;
  return { clock, leases, tokens, root };
}

describe('create-orphan', () => {
  it('records its path; its lease is under it, and revoking the prefix revokes the token', async () => {
    const { leases, tokens, root } = await setup();
    const orphan = await tokens.create(root, { policies: ['app'], ttl: '1h' }, { orphan: true });
    const plain = await tokens.create(root, { policies: ['app'], ttl: '1h', no_parent: true });
    expect((await tokens.lookup(root, orphan.client_token)).path).toBe('auth/token/create-orphan');
    expect((await tokens.lookup(root, plain.client_token)).path).toBe('auth/token/create');
    expect((await leases.list('auth/token/create-orphan/')).keys).toHaveLength(1);
    await leases.revokePrefix('auth/token/create-orphan');
    expect(await tokens.authenticate(orphan.client_token)).toBeUndefined();
    expect(await tokens.authenticate(plain.client_token)).toBeDefined();
  });

  it('expires with its lease; a periodic one keeps its path past the lease max TTL', async () => {
    const { clock, leases, tokens, root } = await setup();
    const orphan = await tokens.create(root, { policies: ['app'], ttl: '1h' }, { orphan: true });
    const periodic = await tokens.create(
      root,
      { policies: ['app'], period: '1h' },
      { orphan: true, sudo: true },
    );
    // Renewed every half hour, past the lease manager's max TTL (2 h): a new lease takes over.
    for (let i = 0; i < 5; i++) {
      clock.advance(1_800_000);
      await leases.tick();
      await tokens.renew(periodic.client_token);
    }
    expect(await tokens.authenticate(orphan.client_token)).toBeUndefined();
    expect((await tokens.lookup(root, periodic.client_token)).path).toBe(
      'auth/token/create-orphan',
    );
    expect((await leases.list('auth/token/create-orphan/')).keys.length).toBeGreaterThan(0);
    expect((await leases.list('auth/token/create/').catch(() => ({ keys: [] }))).keys).toEqual([]);
  });
});
