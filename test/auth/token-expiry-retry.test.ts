/**
 * A token's lease expires and the revocation of the leases issued with the
 * token fails once (a transient storage error): the lease manager's retry
 * still revokes them. The token entry went first, so the retry found the
 * accessor gone and reported success, and the leases outlived their token
 * (to their own TTL). As Vault (`revokeInternal` calls `RevokeByToken`
 * first), a token's leases are now revoked before its entry goes.
 */
import { describe, expect, it } from 'vitest';
import { TokenStore } from '../../src/auth/token-store.js';
import { LeaseManager } from '../../src/leases/lease-manager.js';
import type { RevokableLease } from '../../src/leases/types.js';
import type { ListOptions, StorageAdapter } from '../../src/storage/adapter.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { FakeClock } from '../helpers/fake-clock.js';

/** Fails `list` under the token index while `failTokenIndex` is set. */
class FlakyStorage implements StorageAdapter {
  failTokenIndex = false;
  constructor(readonly inner: MemoryStorage) {}
  get(k: string) {
    return this.inner.get(k);
  }
  put(k: string, v: Uint8Array) {
    return this.inner.put(k, v);
  }
  delete(k: string) {
    return this.inner.delete(k);
  }
  async list(prefix: string, o?: ListOptions) {
    if (this.failTokenIndex && prefix.startsWith('sys/leases/token/')) {
      throw new Error('storage unavailable');
    }
    return this.inner.list(prefix, o);
  }
  compareAndSet(k: string, e: Uint8Array | undefined, n: Uint8Array | undefined) {
    return this.inner.compareAndSet(k, e, n);
  }
}

describe('token expiry with a transient failure', () => {
  it("revokes the token's leases on the retry of its lease's revocation", async () => {
    const clock = new FakeClock();
    const storage = new FlakyStorage(new MemoryStorage({ clock }));
    const leases = new LeaseManager({ storage, clock, revokeTimeoutMs: 1_000, retryBaseMs: 1_000 });
    const tokens = new TokenStore({ storage, clock, leases });
    const revoked: RevokableLease[] = [];
    leases.registerRevoker('db/', (l) => {
      revoked.push(l);
    });
    const root = await tokens.createRoot();
    const rootCtx = await tokens.authenticate(root);
    if (!rootCtx) throw new Error('the root token did not authenticate');
    const child = (await tokens.create(rootCtx, { ttl: '1h' })).client_token;
    const secret = await leases.issue({
      path: 'db/creds/ro',
      ttl: '10h',
      renewable: true,
      token: child,
    });

    // The token expires; revoking the leases issued with it fails once.
    storage.failTokenIndex = true;
    clock.advance(3_600_000 + 1_000);
    await leases.tick();
    await leases.idle();
    storage.failTokenIndex = false;
    expect(await tokens.exists(child)).toBe(false); // the token itself is gone

    // Retries run (minutes later, well within the secret's own 10 h).
    for (let i = 0; i < 10; i++) {
      clock.advance(60_000);
      await leases.tick();
      await leases.idle();
    }
    // The lease of the token's lease is gone (its revoker "succeeded" on retry)...
    expect(await storage.list('sys/leases/entry/auth/token/create/')).toEqual([]);
    // ...so the secret leased with the token must be revoked too.
    expect(revoked.map((l) => l.lease_id)).toEqual([secret.lease_id]);
  });
});
