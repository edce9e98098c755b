/**
 * The `@example` of `LeaseManager`'s TSDoc, run as written (style.md: examples run).
 */
import { expect, it } from 'vitest';
import { LeaseManager } from '../../src/leases/lease-manager.js';
import { MemoryStorage } from '../../src/storage/memory.js';

it('the LeaseManager example runs', async () => {
  const dropped: string[] = [];
  const leases = new LeaseManager({ storage: new MemoryStorage() });
  leases.registerRevoker('database/', async (lease) => {
    dropped.push((lease.data as { username: string }).username); // e.g. DROP USER
  });
  const { lease_id } = await leases.issue({
    path: 'database/creds/readonly',
    ttl: '1h',
    renewable: true,
    data: { username: 'v-ro-1' },
  });
  await leases.renew(lease_id, '30m');
  leases.start(1_000); // expire due leases every second
  await leases.revoke(lease_id); // sync by default: dropped is ['v-ro-1'] on return
  expect(dropped).toEqual(['v-ro-1']);
  await leases.stop();
  expect(leases.isLeader()).toBe(false);
});
