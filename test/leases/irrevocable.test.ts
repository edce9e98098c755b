/**
 * `count({ type: 'irrevocable' })` and `listIrrevocable({ limit })` (reference
 * §11): shapes, per-mount counts, order (expire time, then id), the 10,000
 * default with Vault's warning, `none`, and refused limits and types.
 */
import { describe, expect, it } from 'vitest';
import { isTransitError } from '../../src/errors.js';
import { HOUR, SECOND, setup } from './helpers.js';

const WARNING =
  'Command halted because many irrevocable leases were found. To emit the entire list, re-run the command with force set true.';

/** A manager where every lease under `nobody*` becomes irrevocable at its first expiry tick. */
async function withIrrevocable(paths: Array<[string, number]>) {
  const s = setup();
  const ids: string[] = [];
  for (const [path, ttl] of paths) {
    ids.push((await s.leases.issue({ path, ttl, renewable: true })).lease_id);
  }
  s.clock.advance(HOUR);
  await s.leases.tick();
  return { ...s, ids };
}

async function code(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isTransitError(err), String(err)).toBe(true);
  return (err as { code: string }).code;
}

describe('irrevocable leases', () => {
  it('count: total and per mount (first path segment)', async () => {
    const { leases } = await withIrrevocable([
      ['nobody/a', 10],
      ['nobody/b/c', 20],
      ['nothing', 30],
      ['db/ok', 10], // has a revoker: revoked, not counted
    ]);
    expect(await leases.count({ type: 'irrevocable' })).toEqual({
      lease_count: 3,
      counts: { 'nobody/': 2, 'nothing/': 1 },
    });
  });

  it('count and list are empty when there are none', async () => {
    const { leases } = setup();
    expect(await leases.count({ type: 'irrevocable' })).toEqual({ lease_count: 0, counts: {} });
    expect(await leases.listIrrevocable()).toEqual({ lease_count: 0, leases: [] });
  });

  it('list: sorted by expire time, then lease id, with mount and error', async () => {
    const { leases, ids } = await withIrrevocable([
      ['nobody/late', 30],
      ['nobody/x', 10],
      ['nobody/y', 10],
      ['other/z', 20],
    ]);
    const early = [ids[1], ids[2]].sort() as string[];
    const { leases: list, lease_count } = await leases.listIrrevocable({ limit: 'none' });
    expect(lease_count).toBe(4);
    expect(list.map((l) => l.lease_id)).toEqual([...early, ids[3], ids[0]]);
    expect(list[2]).toEqual({
      lease_id: ids[3],
      mount_id: 'other/',
      error: `no revoker registered for lease "${ids[3]}"`,
    });
  });

  it('limit: a positive integer (string or number) with the warning when more exist', async () => {
    const { leases } = await withIrrevocable([
      ['nobody/a', 10],
      ['nobody/b', 20],
      ['nobody/c', 30],
    ]);
    const two = await leases.listIrrevocable({ limit: '2' });
    expect(two.lease_count).toBe(2);
    expect(two.leases).toHaveLength(2);
    expect(two.warnings).toEqual([WARNING]);
    expect((await leases.listIrrevocable({ limit: 3 })).warnings).toBeUndefined();
    expect((await leases.listIrrevocable({ limit: 'NONE' })).lease_count).toBe(3);
  });

  it('limit "" returns at most 10,000 and warns; "none" returns all', async () => {
    const s = setup();
    for (let i = 0; i < 10_001; i++) {
      await s.leases.issue({ path: 'nobody', ttl: 1 + (i % 7), renewable: false });
    }
    s.clock.advance(10 * SECOND);
    expect((await s.leases.tick()).irrevocable).toBe(10_001);
    const capped = await s.leases.listIrrevocable({ limit: '' });
    expect(capped.lease_count).toBe(10_000);
    expect(capped.warnings).toEqual([WARNING]);
    expect((await s.leases.listIrrevocable()).lease_count).toBe(10_000);
    const all = await s.leases.listIrrevocable({ limit: 'none' });
    expect(all.lease_count).toBe(10_001);
    expect(all.warnings).toBeUndefined();
    expect((await s.leases.count({ type: 'irrevocable' })).counts).toEqual({ 'nobody/': 10_001 });
  }, 30_000);

  it.each(['0', '-1', 'abc', '1.5', '', ' '])('refuses the limit %j (except "")', async (limit) => {
    const { leases } = setup();
    if (limit === '') {
      await expect(leases.listIrrevocable({ limit })).resolves.toBeDefined();
      return;
    }
    expect(await code(leases.listIrrevocable({ limit }))).toBe('invalid_request');
  });

  it('refuses a numeric limit below 1 and other types', async () => {
    const { leases } = setup();
    expect(await code(leases.listIrrevocable({ limit: 0 }))).toBe('invalid_request');
    expect(await code(leases.listIrrevocable({ limit: true as never }))).toBe('invalid_request');
  });

  it('count: a type other than irrevocable is not found (Vault answers 404)', async () => {
    const { leases } = setup();
    expect(await code(leases.count({ type: 'all' as never }))).toBe('not_found');
    expect(await code(leases.count({} as never))).toBe('not_found');
  });
});
