/**
 * Without a lease manager, a token's descendants never outlive it: a renewal
 * that shortens a token shortens every descendant whose expiry is later
 * (src/auth/token-cap.ts), and a child made while its parent shortens caps
 * itself (src/auth/token-issue.ts). A renewal that extends leaves children as
 * they are.
 */
import { describe, expect, it } from 'vitest';
import type { TokenContext } from '../../src/auth/token-entry.js';
import { TokenStore } from '../../src/auth/token-store.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { StorageView } from '../helpers/storage-view.js';

async function setup(storage = new StorageView(new MemoryStorage())) {
  const clock = new FakeClock();
  const tokens = new TokenStore({ storage, clock });
  const root = (await tokens.authenticate(await tokens.createRoot())) as TokenContext;
  const as = async (t: string) => (await tokens.authenticate(t)) as TokenContext;
  return { clock, tokens, root, as };
}

describe('a token shortened by its renewal takes its descendants with it', () => {
  it('child and grandchild stop authenticating when the shortened parent expires', async () => {
    const { clock, tokens, root, as } = await setup();
    const parent = await tokens.create(root, { policies: ['app'], ttl: '1h' });
    const child = await tokens.create(await as(parent.client_token), { ttl: '1h' });
    const grandchild = await tokens.create(await as(child.client_token), { ttl: '30m' });
    expect(child.lease_duration).toBe(3600);

    expect((await tokens.renewSelf(await as(parent.client_token), '10s')).lease_duration).toBe(10);
    // Every descendant now says so itself (lookup, not only authenticate).
    expect((await tokens.lookupAccessor(child.accessor)).ttl).toBeLessThanOrEqual(10);
    expect((await tokens.lookupAccessor(grandchild.accessor)).ttl).toBeLessThanOrEqual(10);
    clock.advance(9_000);
    expect(await tokens.authenticate(grandchild.client_token)).toBeDefined();
    clock.advance(2_000);
    expect(await tokens.authenticate(parent.client_token)).toBeUndefined();
    expect(await tokens.authenticate(child.client_token)).toBeUndefined();
    expect(await tokens.authenticate(grandchild.client_token)).toBeUndefined();
  });

  it('a renewal that extends the parent leaves its children their own expiry', async () => {
    const { clock, tokens, root, as } = await setup();
    const parent = await tokens.create(root, { ttl: '1h' });
    const child = await tokens.create(await as(parent.client_token), { ttl: '10m' });
    clock.advance(60_000);
    expect((await tokens.renewSelf(await as(parent.client_token), '2h')).lease_duration).toBe(7200);
    expect((await tokens.lookupAccessor(child.accessor)).ttl).toBe(540);
  });

  it('a child made while its parent shortens caps itself', async () => {
    let onLink: (() => Promise<void>) | undefined;
    class Racing extends StorageView {
      override async put(key: string, value: Uint8Array): Promise<void> {
        const hook = key.startsWith('auth/token/parent/') ? onLink : undefined;
        if (hook) onLink = undefined;
        // The parent's renewal runs whole after the child's entry is stored and
        // before its link is: the renewal lists no such child.
        if (hook) await hook();
        return super.put(key, value);
      }
    }
    const { clock, tokens, root, as } = await setup(new Racing(new MemoryStorage()));
    const parent = await tokens.create(root, { ttl: '1h' });
    const pctx = await as(parent.client_token);
    onLink = async () => {
      await tokens.renewSelf(pctx, '10s');
    };
    const child = await tokens.create(pctx, { ttl: '1h' });
    expect(onLink).toBeUndefined(); // the race ran
    expect(child.lease_duration).toBeLessThanOrEqual(10);
    clock.advance(11_000);
    expect(await tokens.authenticate(child.client_token)).toBeUndefined();
  });
});
