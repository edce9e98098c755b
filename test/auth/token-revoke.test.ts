/**
 * Revocation racing creation (src/auth/token-revoke.ts, token-store.ts
 * `create`): a child stored while its parent is revoked, in one process or by
 * another instance whose cached view is a moment old, never outlives the
 * parent (revoke-tree) or keeps a link to it (revoke-orphan); and a lease
 * issued on one instance for a token another just revoked is refused and
 * revoked. Storage wrappers run the racing call at the worst moment, and hold
 * change notifications back as a cross-process feed does.
 */
import { describe, expect, it } from 'vitest';
import type { TokenContext } from '../../src/auth/token-entry.js';
import { TokenStore } from '../../src/auth/token-store.js';
import { LeaseManager } from '../../src/leases/lease-manager.js';
import type { ListOptions, StorageAdapter } from '../../src/storage/adapter.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { StorageView } from '../helpers/storage-view.js';

/**
 * `inner`, running `hook` once just before the first write of a token entry
 * (a revocation's mark, or a delete).
 */
function beforeTokenWrite(inner: MemoryStorage) {
  let hook: (() => Promise<void>) | undefined;
  const first = async (k: string) => {
    if (hook && k.startsWith('auth/token/id/')) {
      const h = hook;
      hook = undefined;
      await h();
    }
  };
  const storage: StorageAdapter = {
    get: (k) => inner.get(k),
    put: (k, v) => inner.put(k, v),
    list: (p, o?: ListOptions) => inner.list(p, o),
    async compareAndSet(k, e, n) {
      await first(k);
      return inner.compareAndSet(k, e, n);
    },
    async delete(k) {
      await first(k);
      return inner.delete(k);
    },
  };
  return { storage, race: (h: () => Promise<void>) => (hook = h) };
}

/** `inner` as another process sees it: change notifications held until `flush()`. */
class LaggingFeed extends StorageView {
  #held: (() => void)[] = [];
  override watch(prefix: string, onChange: (key: string) => void) {
    return this.inner.watch(prefix, (k) => this.#held.push(() => onChange(k)));
  }
  flush(): void {
    for (const f of this.#held.splice(0)) f();
  }
}

const settle = () => new Promise((r) => setTimeout(r, 5));

async function parentAndStore(storage: StorageAdapter) {
  const tokens = new TokenStore({ storage, clock: new FakeClock() });
  const root = (await tokens.authenticate(await tokens.createRoot())) as TokenContext;
  const parent = await tokens.create(root, { policies: ['app'], ttl: '1h' });
  const pctx = (await tokens.authenticate(parent.client_token)) as TokenContext;
  return { tokens, parent, pctx };
}

/**
 * A parent token, and a child of it that will be created just before the
 * revocation first writes the parent's entry (marks it, or deletes it), so
 * the child's creator found the parent live (`child()` gives its token once
 * the revocation ran).
 */
async function childRacingRevocation() {
  const inner = new MemoryStorage();
  const h = beforeTokenWrite(inner);
  const { tokens, parent, pctx } = await parentAndStore(h.storage);
  let token = '';
  h.race(async () => {
    token = (await tokens.create(pctx, { policies: ['app'], ttl: '1h' })).client_token;
  });
  return { inner, tokens, parent, child: () => token };
}

describe('a child created while its parent is revoked', () => {
  it('revoke-tree: the child goes with the parent', async () => {
    const { inner, tokens, parent, child } = await childRacingRevocation();
    await tokens.revoke(parent.client_token);
    expect(child()).not.toBe('');
    expect(await tokens.exists(parent.client_token)).toBe(false);
    expect(await tokens.exists(child())).toBe(false);
    expect(await inner.list('auth/token/parent/')).toEqual([]);
  });

  it('revoke-orphan: the child becomes an orphan, no link to the revoked parent is left', async () => {
    const { inner, tokens, parent, child } = await childRacingRevocation();
    await tokens.revokeOrphan(parent.client_token, { sudo: true });
    const cctx = (await tokens.authenticate(child())) as TokenContext;
    expect((await tokens.lookupSelf(cctx)).orphan).toBe(true);
    expect(await inner.list('auth/token/parent/')).toEqual([]);
    expect((await tokens.renewSelf(cctx)).lease_duration).toBe(3600);
  });

  it('a child stored after the revocation finished is refused and revoked by its creator', async () => {
    const { tokens, parent, pctx } = await parentAndStore(new MemoryStorage());
    await tokens.revoke(parent.client_token);
    await expect(tokens.create(pctx, { policies: ['app'] })).rejects.toMatchObject({
      code: 'permission_denied',
    });
  });

  it('two instances: B, whose cache still holds the parent, cannot create a child A revoked', async () => {
    const inner = new MemoryStorage();
    const clock = new FakeClock();
    const [sa, sb] = [new LaggingFeed(inner), new LaggingFeed(inner)];
    const a = new TokenStore({ storage: sa, clock });
    const b = new TokenStore({ storage: sb, clock });
    const root = (await a.authenticate(await a.createRoot())) as TokenContext;
    const parent = await a.create(root, { policies: ['app'], ttl: '1h' });
    await settle();
    sa.flush();
    sb.flush();
    const pB = (await b.authenticate(parent.client_token)) as TokenContext;
    await a.revoke(parent.client_token); // B has not heard of it yet
    await expect(b.create(pB, { policies: ['app'], ttl: '1h' })).rejects.toMatchObject({
      code: 'permission_denied',
    });
    expect(await inner.list('auth/token/parent/')).toEqual([]);
  });
});

describe('a lease issued on one instance for a token another just revoked', () => {
  it('is refused and revoked, though the issuer cached the token', async () => {
    const inner = new MemoryStorage();
    const clock = new FakeClock();
    const [sa, sb] = [new LaggingFeed(inner), new LaggingFeed(inner)];
    const la = new LeaseManager({ storage: sa, clock });
    const lb = new LeaseManager({ storage: sb, clock });
    const a = new TokenStore({ storage: sa, clock, leases: la });
    const b = new TokenStore({ storage: sb, clock, leases: lb });
    const revoked: string[] = [];
    for (const l of [la, lb]) {
      l.registerRevoker('db/', (x) => {
        revoked.push(x.lease_id);
      });
    }
    const root = (await a.authenticate(await a.createRoot())) as TokenContext;
    const t = await a.create(root, { policies: ['app'], ttl: '1h' });
    await settle();
    sa.flush();
    sb.flush();
    expect(await b.authenticate(t.client_token)).toBeDefined(); // cached on B
    await a.revoke(t.client_token);
    await expect(
      lb.issue({ path: 'db/creds', ttl: '1h', renewable: true, token: t.client_token }),
    ).rejects.toMatchObject({ code: 'invalid_request' });
    await la.idle();
    await lb.idle();
    expect(revoked).toHaveLength(1);
    expect((await lb.list('db/creds')).keys).toEqual([]);
  });
});
