/**
 * The leases of a token (src/leases/by-token.ts): `revokeByToken` queues the
 * revocation of every lease issued with the token; the index under
 * `sys/leases/token/` follows each lease and never names the token; a lease
 * issued while its token is revoked is caught from either side; and in a
 * `TransitNode`, revoking (or expiring) a token revokes its leases, children's
 * included, as Vault's revoke-tree does.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { LeaseManager } from '../../src/leases/lease-manager.js';
import type { RevokableLease } from '../../src/leases/types.js';
import { TransitNode } from '../../src/node/transit-node.js';
import { keyspace } from '../../src/storage/keyspace.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { failure, HOUR, setup } from './helpers.js';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

describe('revokeByToken', () => {
  it("queues every lease issued with the token (stored before it returns), no other's", async () => {
    const { leases, storage, revoked } = setup();
    const a1 = await leases.issue({ path: 'db/a', ttl: HOUR, renewable: true, token: 'tok-a' });
    const a2 = await leases.issue({ path: 'db/b/c', ttl: HOUR, renewable: true, token: 'tok-a' });
    const b = await leases.issue({ path: 'db/a', ttl: HOUR, renewable: true, token: 'tok-b' });
    const none = await leases.issue({ path: 'db/a', ttl: HOUR, renewable: true });
    const key = sha256('tok-a');
    expect((await storage.list(`sys/leases/token/${key}/`)).sort()).toEqual(
      [a1.lease_id, a2.lease_id].sort(),
    );
    await leases.revokeByToken('tok-a');
    // Queued: due now in the index before the call returned.
    const due = await storage.list('sys/leases/expiry/');
    expect(due.filter((k) => k.endsWith(a1.lease_id) || k.endsWith(a2.lease_id))).toHaveLength(2);
    await leases.idle();
    expect(revoked.map((l) => l.lease_id).sort()).toEqual([a1.lease_id, a2.lease_id].sort());
    expect(await storage.list(`sys/leases/token/${key}/`)).toEqual([]);
    // The other token's lease and the lease without a token are untouched.
    expect((await leases.lookup(b.lease_id)).id).toBe(b.lease_id);
    expect((await leases.lookup(none.lease_id)).id).toBe(none.lease_id);
    expect(await storage.list('sys/leases/token/')).toEqual([`${sha256('tok-b')}/${b.lease_id}`]);
  });

  it('reads each lease entry once to queue it (the listing read serves the queueing)', async () => {
    const clock = new FakeClock();
    const reads: string[] = [];
    class CountingStorage extends MemoryStorage {
      override async get(key: string) {
        if (key.startsWith(keyspace.leaseEntryPrefix)) reads.push(key);
        return super.get(key);
      }
    }
    const { leases } = setup({ clock, storage: new CountingStorage({ clock }) });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(
        (await leases.issue({ path: `db/${i}`, ttl: HOUR, renewable: true, token: 't' })).lease_id,
      );
    }
    reads.length = 0;
    await leases.revokeByToken('t');
    await leases.idle();
    // Each entry read twice in all: once to queue it (the listing's read serves the
    // queueing; it was read a second time there), once by its background revocation.
    const perEntry = new Map<string, number>();
    for (const k of reads) perEntry.set(k, (perEntry.get(k) ?? 0) + 1);
    expect([...perEntry.keys()].sort()).toEqual(ids.map((id) => keyspace.leaseEntry(id)).sort());
    expect([...perEntry.values()]).toEqual([2, 2, 2, 2, 2]);
    expect((await leases.list('db')).keys).toEqual([]);
  });

  it('the index follows the lease: removed by revoke, renewal keeps it, never names the token', async () => {
    const { leases, storage } = setup();
    const l = await leases.issue({ path: 'db/a', ttl: 60, renewable: true, token: 'secret-tok' });
    await leases.renew(l.lease_id, 120);
    expect(await storage.list('sys/leases/token/')).toHaveLength(1);
    for (const k of await storage.list('')) expect(k).not.toContain('secret-tok');
    await leases.revoke(l.lease_id);
    expect(await storage.list('sys/leases/token/')).toEqual([]);
  });

  it('an unknown token is a no-op; an index key whose lease is gone is dropped', async () => {
    const { leases, storage } = setup();
    await leases.revokeByToken('nobody');
    await storage.put(
      `sys/leases/token/${sha256('t')}/db/x/AAAAAAAAAAAAAAAAAAAAAAAA`,
      new Uint8Array(),
    );
    await leases.revokeByToken('t');
    expect(await storage.list('sys/leases/token/')).toEqual([]);
    expect((await failure(leases.revokeByToken(''))).message).toBe('missing token');
  });

  it('a custom tokenKey names the index; an unusable one is refused before anything is stored', async () => {
    const custom = setup({ tokenKey: (t) => `k-${t.length}` });
    await custom.leases.issue({ path: 'db/a', ttl: 60, renewable: true, token: 'abc' });
    expect(await custom.storage.list('sys/leases/token/')).toHaveLength(1);
    expect((await custom.storage.list('sys/leases/token/'))[0]).toMatch(/^k-3\/db\/a\//);
    for (const bad of ['a/b', '', '..', 'x'.repeat(129)]) {
      const { leases, storage } = setup({ tokenKey: () => bad });
      const err = await failure(
        leases.issue({ path: 'db/a', ttl: 60, renewable: true, token: 't' }),
      );
      expect(err.code).toBe('internal');
      expect(err.message).not.toContain(bad === '' ? '\0' : bad);
      expect(await storage.list('')).toEqual([]);
    }
    expect(() => setup({ tokenKey: 5 as never })).toThrow("'tokenKey' must be a function");
  });
});

describe('a lease issued while its token is revoked', () => {
  it('is revoked and refused when the token is gone right after it is stored', async () => {
    const alive = new Set(['t']);
    const { leases, storage, revoked } = setup({ tokenExists: async (t) => alive.has(t) });
    await leases.issue({ path: 'db/a', ttl: 60, renewable: true, token: 't' });
    alive.delete('t');
    const err = await failure(leases.issue({ path: 'db/b', ttl: 60, renewable: true, token: 't' }));
    expect(err.code).toBe('invalid_request');
    expect(err.message).toMatch(/token does not exist or has expired; the lease was revoked/);
    expect(revoked.map((l) => l.lease_id)).toEqual([expect.stringMatching(/^db\/b\//)]);
    expect((await leases.list('db/b')).keys).toEqual([]);
    // The first lease stays until its token is revoked (or tidy runs).
    expect((await leases.list('db/a')).keys).toHaveLength(1);
    expect(await storage.list('sys/leases/token/')).toHaveLength(1);
  });

  it('fails closed when the token cannot be checked', async () => {
    const { leases, revoked } = setup({
      tokenExists: async () => {
        throw new Error('storage down');
      },
    });
    const err = await leases
      .issue({ path: 'db/a', ttl: 60, renewable: true, token: 't' })
      .catch((e: unknown) => e);
    expect(String(err)).toContain('storage down');
    expect(revoked).toHaveLength(1);
    expect((await leases.list('db/a')).keys).toEqual([]);
  });

  it('either the revocation lists the lease or the issuer sees the token gone (every interleaving)', async () => {
    // The token store's order: delete the token, then revoke by token. The issuer's: index
    // key, entry, then the check. Run the two against each other with the revocation
    // started after each step of the issue.
    for (let step = 0; step < 6; step++) {
      const clock = new FakeClock();
      const inner = new MemoryStorage({ clock });
      let calls = 0;
      let hook: (() => Promise<void>) | undefined;
      const storage = new Proxy(inner, {
        get(target, prop, receiver) {
          const v = Reflect.get(target, prop, receiver);
          if (typeof v !== 'function') return v;
          return async (...args: unknown[]) => {
            if (calls++ === step && hook) {
              const h = hook;
              hook = undefined;
              await h();
            }
            return v.apply(target, args);
          };
        },
      });
      const alive = new Set(['t']);
      const revoked: RevokableLease[] = [];
      const leases = new LeaseManager({
        storage,
        clock,
        tokenExists: async (t) => alive.has(t),
      });
      leases.registerRevoker('db/', (l) => {
        revoked.push(l);
      });
      calls = 0;
      hook = async () => {
        alive.delete('t');
        await leases.revokeByToken('t');
      };
      const issued = await leases
        .issue({ path: 'db/a', ttl: 60, renewable: true, token: 't' })
        .then(
          () => 'issued',
          () => 'refused',
        );
      await hook?.();
      await leases.idle();
      expect((await leases.list('db/a')).keys, `step ${step} (${issued})`).toEqual([]);
      expect(revoked, `step ${step}`).toHaveLength(1);
    }
  });
});

describe('in a TransitNode', () => {
  async function node() {
    const n = new TransitNode({ storage: new MemoryStorage(), leases: { tickMs: false } });
    const init = await n.init({ secret_shares: 1, secret_threshold: 1 });
    await n.unseal({ key: init.keys[0] as string });
    const root = await n.tokens.authenticate(init.root_token);
    if (!root) throw new Error('no root');
    const revoked: string[] = [];
    n.leases.registerRevoker('database/', (l) => {
      revoked.push(l.lease_id);
    });
    return { n, root, revoked };
  }

  it("revoking a token revokes the leases issued with it and with its children's", async () => {
    const { n, root, revoked } = await node();
    const parent = await n.tokens.create(root, { policies: ['app'], ttl: '1h' });
    const pctx = await n.tokens.authenticate(parent.client_token);
    if (!pctx) throw new Error('no parent');
    const child = await n.tokens.create(pctx, { policies: ['app'], ttl: '1h' });
    const other = await n.tokens.create(root, { policies: ['app'], ttl: '1h' });
    const issue = (token: string) =>
      n.leases.issue({ path: 'database/creds/ro', ttl: '1h', renewable: true, token });
    const l1 = await issue(parent.client_token);
    const l2 = await issue(child.client_token);
    const l3 = await issue(other.client_token);
    await n.tokens.revoke(parent.client_token);
    await n.leases.idle();
    expect(revoked.sort()).toEqual([l1.lease_id, l2.lease_id].sort());
    expect((await n.leases.lookup(l3.lease_id)).id).toBe(l3.lease_id);
    // A lease for a token that is gone is refused (and revoked at once).
    const err = await failure(issue(child.client_token));
    expect(err.message).toMatch(/the lease was revoked/);
    await n.seal();
  });

  it("an expiring token's lease revokes the leases issued with the token", async () => {
    const { n, root, revoked } = await node();
    const t = await n.tokens.create(root, { policies: ['app'], ttl: '1h' });
    const l = await n.leases.issue({
      path: 'database/creds/ro',
      ttl: '2h',
      renewable: true,
      token: t.client_token,
    });
    // The token's own lease is revoked (as its expiry would): the token goes, and its leases.
    const [k] = (await n.leases.list('auth/token/create')).keys;
    await n.leases.revoke(`auth/token/create/${k}`);
    await n.leases.idle();
    expect(revoked).toEqual([l.lease_id]);
    expect(await n.tokens.exists(t.client_token)).toBe(false);
    await n.seal();
  });
});
