/**
 * Explicit revocation: `revoke` (sync by default, queued with `sync: false`),
 * `revokePrefix` and `revokeForce` — the spec's lease state table row
 * active → revoked — and the durability of a queued revocation across a
 * restart (memory and file storage). `tidy` (dangling → revoked) is in
 * `tidy.test.ts`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileStorage } from '../../adapters/file/index.js';
import { invalidRequest } from '../../src/errors.js';
import type { RevokableLease } from '../../src/leases/types.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { CrashableStorage, failure, HOUR, SECOND, setup } from './helpers.js';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe('revoke', () => {
  it('sync by default: the revoker has run and the lease is gone on return', async () => {
    const { leases, revoked, storage } = setup();
    const { lease_id } = await leases.issue({
      path: 'db/creds',
      ttl: 60,
      renewable: true,
      data: { user: 'u1' },
    });
    await leases.revoke(lease_id);
    expect(revoked).toHaveLength(1);
    expect(revoked[0]).toMatchObject({ lease_id, data: { user: 'u1' }, attempt: 1 });
    expect(await storage.list('')).toEqual([]);
    expect((await failure(leases.lookup(lease_id))).message).toBe('invalid lease');
  });

  it('sync: false stores the revocation (due now) before returning, then revokes in the background', async () => {
    const { leases, storage, clock } = setup();
    const gate = deferred();
    const seen: string[] = [];
    leases.registerRevoker('db/', async (l) => {
      await gate.promise;
      seen.push(l.lease_id);
    });
    const { lease_id } = await leases.issue({ path: 'db', ttl: 3600, renewable: true });
    await leases.revoke(lease_id, { sync: false });
    expect(seen).toEqual([]);
    expect(await storage.list('sys/leases/expiry/')).toEqual([`${clock.now()}/${lease_id}`]);
    expect((await leases.lookup(lease_id)).expire_time).toBe(new Date(clock.now()).toISOString());
    gate.resolve();
    await leases.idle();
    expect(seen).toEqual([lease_id]);
    expect(await storage.list('')).toEqual([]);
  });

  it('an unknown lease is a no-op in both modes; a missing id is refused', async () => {
    const { leases, revoked } = setup();
    await leases.revoke('db/unknown');
    await leases.revoke('db/unknown', { sync: false });
    await leases.revoke('db/\u0000');
    await leases.idle();
    expect(revoked).toEqual([]);
    expect((await failure(leases.revoke(''))).message).toBe('lease_id must be specified');
  });

  it('a failing sync revoke throws internal and keeps the lease for a retry', async () => {
    const { leases, storage, clock } = setup();
    leases.registerRevoker('db/', () => {
      throw new Error('db down');
    });
    const { lease_id } = await leases.issue({ path: 'db', ttl: 3600, renewable: true });
    const err = await failure(leases.revoke(lease_id));
    expect(err.code).toBe('invalid_request');
    expect(err.message).toBe(`failed to revoke lease "${lease_id}": db down`);
    const [key] = await storage.list('sys/leases/expiry/');
    const retryAt = Number(key?.slice(0, 13));
    // First retry: 2^1 × 10 s ± 50%.
    expect(retryAt - clock.now()).toBeGreaterThanOrEqual(10 * SECOND);
    expect(retryAt - clock.now()).toBeLessThanOrEqual(30 * SECOND);
    expect((await leases.lookup(lease_id)).renewable).toBe(false);
  });

  it('a revocation already running in this process is not started twice', async () => {
    const { leases } = setup();
    const gate = deferred();
    let calls = 0;
    leases.registerRevoker('db/', async () => {
      calls++;
      await gate.promise;
    });
    const { lease_id } = await leases.issue({ path: 'db', ttl: 3600, renewable: true });
    await leases.revoke(lease_id, { sync: false });
    const sync = leases.revoke(lease_id);
    gate.resolve();
    await sync;
    await leases.idle();
    expect(calls).toBe(1);
  });
});

describe('two instances on one store', () => {
  it("an explicit revoke waits for another instance's revoker instead of running a second beside it", async () => {
    const a = setup({ revokeTimeoutMs: 5_000 });
    const b = setup({ storage: a.storage, clock: a.clock, revokeTimeoutMs: 5_000 });
    const gate = deferred();
    const entered = deferred();
    let calls = 0;
    let inFlight = 0;
    let most = 0;
    const revoker = async () => {
      calls++;
      most = Math.max(most, ++inFlight);
      entered.resolve();
      await gate.promise;
      inFlight--;
    };
    a.leases.registerRevoker('db/', revoker);
    b.leases.registerRevoker('db/', revoker);
    const { lease_id } = await a.leases.issue({ path: 'db/creds/ro', ttl: 3600, renewable: true });
    const first = a.leases.revoke(lease_id); // claims the lease, runs the revoker
    await entered.promise;
    const second = b.leases.revoke(lease_id); // sees the live claim
    await new Promise((r) => setTimeout(r, 60));
    expect(calls).toBe(1);
    gate.resolve();
    await Promise.all([first, second]);
    expect(calls).toBe(1);
    expect(most).toBe(1);
    expect(await a.storage.list('sys/leases/entry/')).toEqual([]);
  });
});

describe('revokePrefix', () => {
  async function fill(leases: ReturnType<typeof setup>['leases']) {
    const ids: Record<string, string> = {};
    for (const path of ['db/creds/ro', 'db/creds/rw', 'db/other', 'dbx/creds']) {
      ids[path] = (await leases.issue({ path, ttl: 3600, renewable: true })).lease_id;
    }
    return ids;
  }

  it('sync: revokes every lease under the prefix, and only those', async () => {
    const { leases, revoked } = setup();
    leases.registerRevoker('dbx/', () => undefined);
    const ids = await fill(leases);
    await leases.revokePrefix('db/creds');
    expect(revoked.map((l) => l.path).sort()).toEqual(['db/creds/ro', 'db/creds/rw']);
    expect((await leases.list('db')).keys).toEqual(['other/']);
    expect(ids['db/other']).toBeDefined();
    await leases.revokePrefix('db'); // a `/` is appended: dbx/ is not under it
    expect((await leases.list('')).keys).toEqual(['dbx/']);
  });

  it('an exact lease id without a trailing / revokes that lease', async () => {
    const { leases, revoked } = setup();
    const ids = await fill(leases);
    await leases.revokePrefix(ids['db/other'] as string);
    expect(revoked.map((l) => l.lease_id)).toEqual([ids['db/other']]);
  });

  it('sync: false queues them durably and revokes them in the background', async () => {
    const { leases, revoked, storage } = setup();
    await fill(leases);
    await leases.revokePrefix('db/creds/', { sync: false });
    await leases.idle();
    expect(revoked).toHaveLength(2);
    expect(await storage.list('sys/leases/entry/db/creds/')).toEqual([]);
  });

  it('sync: false over many pages keeps every background revoker within `concurrency`', async () => {
    const { leases } = setup({ concurrency: 3 });
    let inFlight = 0;
    let most = 0;
    let calls = 0;
    leases.registerRevoker('bulk/', async () => {
      calls++;
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, 1));
      inFlight--;
    });
    for (let i = 0; i < 2_500; i++)
      await leases.issue({ path: 'bulk/x', ttl: 3600, renewable: true });
    await leases.revokePrefix('bulk/', { sync: false }); // three pages of up to 1,000
    await leases.idle();
    expect(calls).toBe(2_500);
    expect(most).toBeLessThanOrEqual(3);
    expect((await leases.list('')).keys ?? []).not.toContain('bulk/');
  }, 60_000);

  it('reports failures after trying every lease', async () => {
    const { leases, revoked } = setup();
    leases.registerRevoker('db/creds/rw', () => {
      throw new Error('nope');
    });
    await fill(leases);
    const err = await failure(leases.revokePrefix('db/'));
    expect(err.code).toBe('invalid_request');
    expect(err.message).toMatch(
      /^failed to revoke 1 of 3 leases under "db\/": failed to revoke lease .*: nope$/,
    );
    expect(revoked.map((l) => l.path).sort()).toEqual(['db/creds/ro', 'db/other']);
  });

  it('refuses an empty or malformed prefix', async () => {
    const { leases } = setup();
    expect((await failure(leases.revokePrefix(''))).message).toBe('prefix must be specified');
    expect((await failure(leases.revokePrefix('a//b'))).code).toBe('invalid_request');
    expect((await failure(leases.revokeForce(''))).message).toBe('prefix must be specified');
  });
});

describe('revokeForce', () => {
  it('removes the leases whatever the revoker does (throws, missing), irrevocable ones included', async () => {
    const { leases, clock, storage } = setup();
    let calls = 0;
    leases.registerRevoker('db/bad', () => {
      calls++;
      throw new Error('always fails');
    });
    await leases.issue({ path: 'db/bad', ttl: 7200, renewable: true });
    await leases.issue({ path: 'db/orphan', ttl: 60, renewable: true });
    await leases.issue({ path: 'nobody/x', ttl: 60, renewable: true });
    clock.advance(HOUR);
    await leases.tick(); // nobody/ has no revoker → irrevocable
    expect((await leases.count({ type: 'irrevocable' })).lease_count).toBe(1);
    await leases.revokeForce('db/');
    await leases.revokeForce('nobody');
    expect(calls).toBe(1);
    expect(await storage.list('')).toEqual([]);
    expect((await leases.count({ type: 'irrevocable' })).lease_count).toBe(0);
  });
});

describe('an explicit revoke of an irrevocable lease', () => {
  it('tries again, and removes it once the revoker succeeds', async () => {
    const { leases, clock } = setup();
    const { lease_id } = await leases.issue({ path: 'late/x', ttl: 60, renewable: true });
    clock.advance(HOUR);
    await leases.tick();
    expect((await leases.count({ type: 'irrevocable' })).lease_count).toBe(1);
    // Still failing: stays irrevocable, with the new error.
    leases.registerRevoker('late/', () => {
      throw new Error('still down');
    });
    expect((await failure(leases.revoke(lease_id))).code).toBe('invalid_request');
    expect((await leases.listIrrevocable()).leases[0]?.error).toBe('still down');
    leases.registerRevoker('late/', () => undefined);
    await leases.revoke(lease_id);
    expect((await leases.count({ type: 'irrevocable' })).lease_count).toBe(0);
  });
});

describe('a queued revocation survives a restart', () => {
  it('memory: the process dies right after revoke(sync: false); a new manager finishes it', async () => {
    const clock = new FakeClock();
    const { storage: inner } = setup({ clock });
    const crashable = new CrashableStorage(inner);
    const first = setup({ clock, storage: crashable });
    const { lease_id } = await first.leases.issue({ path: 'db/x', ttl: 3600, renewable: true });
    await first.leases.revoke(lease_id, { sync: false });
    crashable.freeze(); // the background revocation fails: the process is gone
    await first.leases.idle();
    expect(first.revoked).toEqual([]);
    const second = setup({ clock, storage: inner });
    expect((await second.leases.tick()).revoked).toBe(1);
    expect(second.revoked.map((l) => l.lease_id)).toEqual([lease_id]);
    expect(await inner.list('')).toEqual([]);
  });

  it('file: the same across a close and reopen of the directory', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'leases-'));
    try {
      const clock = new FakeClock();
      const storage = await FileStorage.open(dir, { clock });
      const crashable = new CrashableStorage(storage);
      const first = setup({ clock, storage: crashable });
      const { lease_id } = await first.leases.issue({ path: 'db/x', ttl: 3600, renewable: true });
      await first.leases.issue({ path: 'db/y', ttl: 3600, renewable: true });
      await first.leases.revoke(lease_id, { sync: false });
      crashable.freeze();
      await first.leases.idle();
      await storage.close();
      const reopened = await FileStorage.open(dir, { clock });
      const second = setup({ clock, storage: reopened });
      expect((await second.leases.tick()).revoked).toBe(1);
      expect(second.revoked.map((l: RevokableLease) => l.lease_id)).toEqual([lease_id]);
      expect((await second.leases.list('db')).keys).toHaveLength(1);
      await reopened.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('unrecoverable errors', () => {
  it('a TransitError invalid_request from the revoker makes the lease irrevocable at once', async () => {
    const { leases } = setup();
    leases.registerRevoker('db/', () => {
      throw invalidRequest('unknown role');
    });
    const { lease_id } = await leases.issue({ path: 'db', ttl: 60, renewable: true });
    await failure(leases.revoke(lease_id));
    expect((await leases.listIrrevocable()).leases).toEqual([
      { lease_id, mount_id: 'db/', error: 'unknown role' },
    ]);
  });
});
