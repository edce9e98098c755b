/**
 * A tree revocation that failed half way is finished by a retry by accessor
 * (what an operator has from an audit log), as by token
 * (test/auth/token-revoke-partial.test.ts). A marked entry read as absent, and
 * the accessor went before the entry: the retry was refused with `invalid
 * accessor`, leaving the accessor index, the parent links and the leases behind.
 */
import { expect, it } from 'vitest';
import type { TokenContext } from '../../src/auth/token-entry.js';
import { TokenStore } from '../../src/auth/token-store.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { FailingEntryDelete } from './flaky-storage.js';

it('a half-failed revocation is finished by a retry by accessor', async () => {
  const clock = new FakeClock();
  const storage = new FailingEntryDelete(new MemoryStorage({ clock }), 2);
  const tokens = new TokenStore({ storage, clock });
  const root = (await tokens.authenticate(await tokens.createRoot())) as TokenContext;
  const parent = await tokens.create(root, { policies: ['app'], ttl: '1h' });
  const pctx = (await tokens.authenticate(parent.client_token)) as TokenContext;
  await tokens.create(pctx, { policies: ['app'], ttl: '1h' });
  storage.armed = true;
  await expect(tokens.revokeAccessor(parent.accessor)).rejects.toThrow(/outage/);
  // The retry the error invites, by the same accessor:
  await expect(tokens.revokeAccessor(parent.accessor)).resolves.toBeUndefined();
  expect(await storage.list('auth/token/accessor/')).toHaveLength(1); // the root's
  expect(await storage.list('auth/token/parent/')).toEqual([]);
});
