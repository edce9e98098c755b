/**
 * The ACL policy cache decides authority, so (issue #15, items 1, 2, 9):
 *
 * - a change made through one `AclPolicyStore` reaches every other store on the
 *   same storage through `watch` (here two stores on one MemoryStorage; the
 *   real-process version on Redis is test/multi-instance/);
 * - a policy that cannot be read (I/O error, failed barrier authentication, a
 *   damaged entry) never grants anything and is never cached as absent;
 * - notifications can be lost (a storage without `watch`, a dropped
 *   subscriber): no cached ACL outlives one second, so a change is enforced
 *   within it anyway;
 * - cache keys are unambiguous: a policy name holding a comma is not the pair
 *   of names it spells.
 */
import { describe, expect, it } from 'vitest';
import { AclPolicyStore, Barrier, isTransitError, nobleBackend } from '../../src/index.js';
import { Keyring } from '../../src/node/keyring.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { eventually, FlakyStorage } from './flaky-storage.js';

const ALLOW = 'path "transit/encrypt/*" { capabilities = ["update"] }';
const DENY = 'path "transit/encrypt/secret" { capabilities = ["deny"] }';
const SECRET = 'transit/encrypt/secret';

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => undefined,
    (e: unknown) => e,
  );
}

describe('a change through one store reaches the others (watch)', () => {
  it('a policy rewritten to deny on A stops granting on B', async () => {
    const storage = new MemoryStorage();
    const a = new AclPolicyStore({ storage });
    const b = new AclPolicyStore({ storage });
    await a.write('app', ALLOW);
    expect((await b.acl(['app'])).allows(SECRET, 'update')).toBe(true); // B caches it
    await a.write('app', DENY);
    await eventually(
      async () => !(await b.acl(['app'])).allows(SECRET, 'update'),
      'B enforces the rewritten policy',
    );
  });

  it('a policy deleted on A stops granting on B, in every cached set', async () => {
    const storage = new MemoryStorage();
    const a = new AclPolicyStore({ storage });
    const b = new AclPolicyStore({ storage });
    await a.write('app', ALLOW);
    expect((await b.acl(['app', 'default'])).allows(SECRET, 'update')).toBe(true);
    expect((await b.acl(['app'])).allows(SECRET, 'update')).toBe(true);
    await a.delete('app');
    await eventually(
      async () =>
        !(await b.acl(['app'])).allows(SECRET, 'update') &&
        !(await b.acl(['default', 'app'])).allows(SECRET, 'update'),
      'B forgets the deleted policy',
    );
  });

  it('a deny added on A to a set B has cached is enforced by B', async () => {
    const storage = new MemoryStorage();
    const a = new AclPolicyStore({ storage });
    const b = new AclPolicyStore({ storage });
    await a.write('app', ALLOW);
    expect((await b.acl(['app', 'guard'])).allows(SECRET, 'update')).toBe(true);
    await a.write('guard', DENY);
    await eventually(
      async () => !(await b.acl(['app', 'guard'])).allows(SECRET, 'update'),
      'B sees the new deny policy',
    );
  });

  it('a load that raced a change is not cached', async () => {
    const flaky = new FlakyStorage();
    const a = new AclPolicyStore({ storage: flaky.inner });
    const b = new AclPolicyStore({ storage: flaky });
    await a.write('app', ALLOW);
    flaky.holding.add('sys/policy/acl/app');
    const inFlight = b.acl(['app']); // reads ALLOW, then waits
    await eventually(async () => flaky.heldCount > 0, 'the read started');
    await a.write('app', DENY); // the notification reaches B meanwhile
    await new Promise((r) => setTimeout(r, 20));
    flaky.holding.clear();
    flaky.release();
    await inFlight; // concurrent with the change: either answer is fine
    expect((await b.acl(['app'])).allows(SECRET, 'update')).toBe(false);
  });
});

describe('a bounded cache age, for lost notifications', () => {
  /** A storage that never notifies (no `watch`). */
  function unwatched(inner: MemoryStorage) {
    return {
      get: (k: string) => inner.get(k),
      put: (k: string, v: Uint8Array) => inner.put(k, v),
      delete: (k: string) => inner.delete(k),
      list: (p: string) => inner.list(p),
      compareAndSet: (k: string, e: Uint8Array | undefined, n: Uint8Array | undefined) =>
        inner.compareAndSet(k, e, n),
    };
  }

  it('without notifications, a rewrite on A is enforced by B once its cache is 1 s old', async () => {
    const inner = new MemoryStorage();
    const clock = new FakeClock();
    const a = new AclPolicyStore({ storage: unwatched(inner), clock });
    const b = new AclPolicyStore({ storage: unwatched(inner), clock });
    await a.write('app', ALLOW);
    expect((await b.acl(['app'])).allows(SECRET, 'update')).toBe(true);
    await a.write('app', DENY);
    clock.advance(999);
    expect((await b.acl(['app'])).allows(SECRET, 'update')).toBe(true); // still cached
    clock.advance(1);
    expect((await b.acl(['app'])).allows(SECRET, 'update')).toBe(false);
  });
});

describe('fail closed', () => {
  it('a deny policy that fails to load denies, and is read again once storage recovers', async () => {
    const storage = new FlakyStorage();
    const policies = new AclPolicyStore({ storage });
    await policies.write('app', ALLOW);
    await policies.write('guard', DENY);
    storage.failing.add('sys/policy/acl/guard');
    const e = await rejection(policies.acl(['app', 'guard']));
    expect(e).toBeInstanceOf(Error);
    expect(String((e as Error).message)).not.toMatch(/capabilities/);
    // Still failing: still refused (the error is not cached as "grants nothing").
    expect(await rejection(policies.acl(['app', 'guard']))).toBeInstanceOf(Error);
    storage.failing.clear();
    const acl = await policies.acl(['app', 'guard']);
    expect(acl.allows(SECRET, 'update')).toBe(false);
    expect(acl.allows('transit/encrypt/other', 'update')).toBe(true);
  });

  it('an error is not cached: a policy unreadable once grants again once readable', async () => {
    const storage = new FlakyStorage();
    const policies = new AclPolicyStore({ storage });
    await policies.write('app', ALLOW);
    storage.failing.add('sys/policy/acl/');
    expect(await rejection(policies.acl(['app']))).toBeInstanceOf(Error);
    storage.failing.clear();
    expect((await policies.acl(['app'])).allows(SECRET, 'update')).toBe(true);
  });

  it('an entry failing barrier authentication never grants', async () => {
    const inner = new MemoryStorage();
    const barrier = new Barrier(inner, nobleBackend);
    barrier.unseal(Keyring.create(nobleBackend, 0));
    const policies = new AclPolicyStore({ storage: barrier });
    await policies.write('app', ALLOW);
    await policies.write('guard', DENY);
    const raw = (await inner.get('sys/policy/acl/guard')) as Uint8Array;
    raw[raw.length - 1] = (raw[raw.length - 1] as number) ^ 1; // tamper with the tag
    await inner.put('sys/policy/acl/guard', raw);
    const fresh = new AclPolicyStore({ storage: barrier });
    const e = await rejection(fresh.acl(['app', 'guard']));
    expect(isTransitError(e, 'internal')).toBe(true);
  });

  it('a damaged policy document never lifts a deny', async () => {
    const storage = new MemoryStorage();
    const policies = new AclPolicyStore({ storage });
    await policies.write('app', ALLOW);
    await storage.put('sys/policy/acl/guard', new TextEncoder().encode('{not json'));
    expect(isTransitError(await rejection(policies.acl(['app', 'guard'])), 'internal')).toBe(true);
    await storage.put(
      'sys/policy/acl/guard',
      new TextEncoder().encode(JSON.stringify({ name: 'guard', policy: 'path "x" {' })),
    );
    expect(isTransitError(await rejection(policies.acl(['app', 'guard'])), 'internal')).toBe(true);
  });
});

describe('policy names and cache keys', () => {
  it('a token policy holding a comma does not inherit the pair it spells', async () => {
    const policies = new AclPolicyStore({ storage: new MemoryStorage() });
    await policies.write('enc-a', 'path "transit/encrypt/a" { capabilities = ["update"] }');
    await policies.write('wild', 'path "transit/*" { capabilities = ["update", "read"] }');
    expect((await policies.acl(['enc-a', 'wild'])).allows('transit/keys/x', 'read')).toBe(true);
    const odd = await policies.acl(['enc-a,wild']);
    expect(odd.allows('transit/keys/x', 'read')).toBe(false);
    expect(odd.allows('transit/encrypt/a', 'update')).toBe(false);
  });

  it.each(['a,b', 'a b', ' a', 'a\tb', 'a\nb', ''])('refuses the policy name %j', async (name) => {
    const policies = new AclPolicyStore({ storage: new MemoryStorage() });
    expect(isTransitError(await rejection(policies.write(name, ALLOW)), 'invalid_request')).toBe(
      true,
    );
  });

  it('names are case-insensitive in every cache key', async () => {
    const policies = new AclPolicyStore({ storage: new MemoryStorage() });
    await policies.write('App', ALLOW);
    expect((await policies.read('APP'))?.name).toBe('app');
    expect((await policies.acl(['APP'])).allows(SECRET, 'update')).toBe(true);
    await policies.write('app', DENY);
    expect((await policies.acl(['APP'])).allows(SECRET, 'update')).toBe(false);
  });
});
