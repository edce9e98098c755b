/**
 * revoke-orphan marks the token as being revoked before it lists the leases
 * issued with it (as revokeTree): a lease issued with the token while the
 * listing runs sees the token gone and is refused or revoked, never left
 * behind. Listing them before the entry went, without the mark, let such a
 * lease outlive the token (by-token.ts's rule: the token goes, then the
 * index is listed).
 */
import { describe, expect, it } from 'vitest';
import type { TokenContext } from '../../src/auth/token-entry.js';
import { TokenStore } from '../../src/auth/token-store.js';
import { LeaseManager } from '../../src/leases/lease-manager.js';
import type { ListOptions } from '../../src/storage/adapter.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { StorageView } from '../helpers/storage-view.js';

class HookedList extends StorageView {
  hook: (() => Promise<void>) | undefined;
  override async list(prefix: string, options?: ListOptions): Promise<string[]> {
    const out = await this.inner.list(prefix, options);
    if (this.hook && prefix.startsWith('sys/leases/token/')) {
      const h = this.hook;
      this.hook = undefined;
      await h(); // another request, racing the revocation
    }
    return out;
  }
}

describe('revoke-orphan racing a lease issued with the token', () => {
  it('leaves no lease of the revoked token alive', async () => {
    const inner = new MemoryStorage();
    const clock = new FakeClock();
    const storage = new HookedList(inner);
    const leases = new LeaseManager({ storage, clock });
    const revoked: string[] = [];
    leases.registerRevoker('db/', (l) => {
      revoked.push(l.lease_id);
    });
    const tokens = new TokenStore({ storage, clock, leases });
    const root = (await tokens.authenticate(await tokens.createRoot())) as TokenContext;
    const t = await tokens.create(root, { policies: ['app'], ttl: '1h' });
    let raced: string | undefined;
    storage.hook = async () => {
      raced = await leases
        .issue({ path: 'db/creds', ttl: '1h', renewable: true, token: t.client_token })
        .then((l) => l.lease_id)
        .catch(() => undefined); // refused: the token is gone (fine)
    };
    await tokens.revokeOrphan(t.client_token, { sudo: true });
    await leases.idle();
    expect(await tokens.exists(t.client_token)).toBe(false);
    // A lease issued with the revoked token must be refused or revoked (never outlive it).
    if (raced !== undefined) expect(revoked).toContain(raced);
    expect((await leases.list('db/creds')).keys).toEqual([]);
  });
});
