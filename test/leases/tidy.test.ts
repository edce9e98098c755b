/**
 * `tidy` and `startTidy` (`src/leases/tidy.ts`): the spec's lease state table
 * row dangling → revoked, one pass at a time (Vault's `tidyLock`), and a pass
 * that `stop()` ends at its next lease (Vault's tidy scans under the quit
 * context that sealing cancels).
 */
import { describe, expect, it } from 'vitest';
import { isTransitError } from '../../src/errors.js';
import { failure, setup } from './helpers.js';

describe('tidy', () => {
  it('revokes leases whose token is gone (dangling → revoked), keeps the others', async () => {
    const asked: string[] = [];
    // Both tokens exist when their leases are issued (an issue checks); 'dead' goes after.
    const gone = new Set<string>();
    const { leases, revoked } = setup({
      tokenExists: async (t) => {
        asked.push(t);
        return !gone.has(t);
      },
    });
    const dead1 = await leases.issue({ path: 'db/a', ttl: 60, renewable: true, token: 'dead' });
    const dead2 = await leases.issue({ path: 'db/b', ttl: 60, renewable: true, token: 'dead' });
    await leases.issue({ path: 'db/c', ttl: 60, renewable: true, token: 'alive' });
    await leases.issue({ path: 'db/d', ttl: 60, renewable: true });
    gone.add('dead');
    asked.length = 0;
    expect(await leases.tidy()).toEqual({ checked: 3, revoked: 2, failed: 0 });
    expect(revoked.map((l) => l.lease_id).sort()).toEqual([dead1.lease_id, dead2.lease_id].sort());
    expect(asked.sort()).toEqual(['alive', 'dead']); // once per token
    expect((await leases.list('db')).keys).toHaveLength(2);
  });

  it('counts revocations that fail', async () => {
    let exists = true;
    const { leases } = setup({ tokenExists: async () => exists });
    leases.registerRevoker('db/', () => {
      throw new Error('x');
    });
    await leases.issue({ path: 'db/a', ttl: 60, renewable: true, token: 't' });
    exists = false;
    expect(await leases.tidy()).toEqual({ checked: 1, revoked: 0, failed: 1 });
  });

  it('is refused without a tokenExists hook (startTidy at once)', async () => {
    const { leases } = setup();
    expect((await failure(leases.tidy())).code).toBe('unsupported_operation');
    expect(() => leases.startTidy()).toThrow(
      expect.objectContaining({ code: 'unsupported_operation' }),
    );
  });

  it('runs one pass at a time: calls during a pass get its result; startTidy returns at once', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => {
      release = r;
    });
    let asked = 0;
    let hold = false;
    const { leases, revoked } = setup({
      tokenExists: async (t) => {
        if (!hold) return true;
        asked++;
        await held;
        return t !== 'dead';
      },
    });
    const dead = await leases.issue({ path: 'db/a', ttl: 60, renewable: true, token: 'dead' });
    await leases.issue({ path: 'db/b', ttl: 60, renewable: true, token: 'alive' });
    hold = true;
    leases.startTidy(); // returns before the pass has asked anything
    const first = leases.tidy();
    const second = leases.tidy();
    expect(revoked).toEqual([]);
    release();
    const results = await Promise.all([first, second]);
    expect(results[0]).toEqual({ checked: 2, revoked: 1, failed: 0 });
    expect(results[1]).toBe(results[0]);
    expect(asked).toBe(2); // one pass: each token asked once
    await leases.idle();
    expect(revoked.map((l) => l.lease_id)).toEqual([dead.lease_id]);
    // The pass is over: the next call runs a new one.
    expect(await leases.tidy()).toEqual({ checked: 1, revoked: 0, failed: 0 });
  });

  it("startTidy's failure goes to onError, and idle() waits for it", async () => {
    const errors: unknown[] = [];
    let fail = false;
    const { leases } = setup({
      tokenExists: async () => {
        if (fail) throw new Error('token store down');
        return true;
      },
      onError: (e) => errors.push(e),
    });
    await leases.issue({ path: 'db/a', ttl: 60, renewable: true, token: 't' });
    fail = true;
    leases.startTidy();
    await leases.idle();
    expect(errors).toEqual([new Error('token store down')]);
  });
});

describe('tidy and stop()', () => {
  /** A manager whose `tokenExists` blocks on `gate` once `hold` is set, counting the calls. */
  async function held(leaseCount: number) {
    let open: () => void = () => undefined;
    const gate = new Promise<void>((r) => {
      open = r;
    });
    const state = { hold: false, asked: 0 };
    const errors: unknown[] = [];
    const s = setup({
      concurrency: 1,
      onError: (e) => errors.push(e),
      tokenExists: async () => {
        if (!state.hold) return true;
        state.asked++;
        await gate;
        return false; // every token is gone: each lease reached is revoked
      },
    });
    for (let i = 0; i < leaseCount; i++) {
      await s.leases.issue({ path: `db/${i}`, ttl: 60, renewable: true, token: `t${i}` });
    }
    state.hold = true;
    return { ...s, state, errors, open: () => open() };
  }

  it('stop() ends a pass at its next lease: the lease under way finishes, the rest stay, tidy() gets a conflict', async () => {
    const { leases, revoked, state, open } = await held(5);
    const pass = leases.tidy();
    const outcome = pass.then(
      () => 'resolved',
      (e: unknown) => e,
    );
    await waitUntil(() => state.asked === 1);
    const stopping = leases.stop();
    open();
    await stopping;
    const e = await outcome;
    expect(isTransitError(e, 'conflict')).toBe(true);
    expect((e as Error).message).toBe(
      'tidy stopped: the lease manager is stopping (checked 1, revoked 1, failed 0)',
    );
    expect(state.asked).toBe(1);
    expect(revoked).toHaveLength(1); // the lease under way was revoked whole
    expect((await leases.list('db')).keys).toHaveLength(4);
  });

  it('a background pass stopped by stop() ends without an onError; the next pass runs whole', async () => {
    const { leases, revoked, state, errors, open } = await held(4);
    leases.startTidy();
    await waitUntil(() => state.asked === 1);
    const stopping = leases.stop();
    open();
    await stopping;
    expect(errors).toEqual([]);
    expect(revoked).toHaveLength(1);
    // stop() is not terminal for tidy: a later pass (say after a restart) does the rest.
    expect(await leases.tidy()).toEqual({ checked: 3, revoked: 3, failed: 0 });
    expect((await leases.list('db')).keys).toEqual([]);
  });

  it('a stop with no pass under way changes nothing for the next pass', async () => {
    const { leases, open } = await held(2);
    open();
    await leases.stop();
    expect(await leases.tidy()).toEqual({ checked: 2, revoked: 2, failed: 0 });
  });

  it('a failure under way when stop() comes still reaches onError from a background pass', async () => {
    const errors: unknown[] = [];
    let asked = 0;
    let fail: (e: Error) => void = () => undefined;
    const down = new Promise<never>((_, reject) => {
      fail = reject;
    });
    let hold = false;
    const { leases, revoked } = setup({
      onError: (e) => errors.push(e),
      tokenExists: async () => {
        if (!hold) return true;
        asked++;
        return down;
      },
    });
    await leases.issue({ path: 'db/a', ttl: 60, renewable: true, token: 't' });
    hold = true;
    leases.startTidy();
    await waitUntil(() => asked === 1);
    const stopping = leases.stop();
    fail(new Error('token store down'));
    await stopping;
    expect(errors).toEqual([new Error('token store down')]);
    expect(revoked).toEqual([]);
  });
});

/** Resolve once `ready()` holds, turning the event loop between checks (at most ~2 s). */
async function waitUntil(ready: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !ready(); i++) await new Promise((r) => setTimeout(r, 1));
  expect(ready()).toBe(true);
}
