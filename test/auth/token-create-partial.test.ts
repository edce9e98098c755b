/**
 * A token create whose entry was stored but whose accessor or parent link
 * then failed to store reports the failure and leaves no token behind
 * (token-issue.ts `storeEntry`): with a caller-chosen `id` the caller knows
 * the token, which would otherwise authenticate outside its parent's tree
 * (revoking the parent would not reach it) and, without an accessor, out of
 * the lease manager's reach too.
 */
import { describe, expect, it } from 'vitest';
import type { TokenContext } from '../../src/auth/token-entry.js';
import { TokenStore } from '../../src/auth/token-store.js';
import { LeaseManager } from '../../src/leases/lease-manager.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { StorageView } from '../helpers/storage-view.js';

/** A storage whose next `put` under `prefix`, once armed, fails. */
class FailingPut extends StorageView {
  armed = false;
  constructor(
    inner: MemoryStorage,
    readonly prefix: string,
  ) {
    super(inner);
  }
  override put(key: string, value: Uint8Array): Promise<void> {
    if (this.armed && key.startsWith(this.prefix)) {
      this.armed = false;
      return Promise.reject(new Error('simulated storage outage'));
    }
    return this.inner.put(key, value);
  }
}

describe('a create that fails after its entry was stored', () => {
  for (const [what, prefix] of [
    ['the parent link', 'auth/token/parent/'],
    ['the accessor', 'auth/token/accessor/'],
  ] as const) {
    for (const withLeases of [false, true]) {
      it(`leaves no token when ${what} fails (${withLeases ? 'with' : 'no'} lease manager)`, async () => {
        const clock = new FakeClock();
        const inner = new MemoryStorage({ clock });
        const storage = new FailingPut(inner, prefix);
        const leases = withLeases ? new LeaseManager({ storage, clock }) : undefined;
        const tokens = new TokenStore({ storage, clock, ...(leases ? { leases } : {}) });
        const root = (await tokens.authenticate(await tokens.createRoot())) as TokenContext;
        const parent = await tokens.create(root, { policies: ['root'], ttl: '1h' });
        const pctx = (await tokens.authenticate(parent.client_token)) as TokenContext;
        const accessorsBefore = await inner.list('auth/token/accessor/');
        storage.armed = true;
        await expect(
          tokens.create(pctx, { id: 'chosen-child', policies: ['app'], ttl: '1h' }),
        ).rejects.toThrow(/outage/);
        expect(await tokens.authenticate('chosen-child')).toBeUndefined();
        expect(await inner.list('auth/token/accessor/')).toEqual(accessorsBefore);
        expect(await inner.list(`auth/token/parent/${pctx.hash}/`)).toEqual([]);
        if (leases) {
          expect((await leases.list('auth/token/create/')).keys).toHaveLength(1); // the parent's
          await leases.stop();
        }
        // The id is free again: the same create succeeds once storage does.
        const again = await tokens.create(pctx, { id: 'chosen-child', policies: ['app'] });
        expect(again.client_token).toBe('chosen-child');
        expect(await tokens.authenticate('chosen-child')).toBeDefined();
      });
    }
  }
});
