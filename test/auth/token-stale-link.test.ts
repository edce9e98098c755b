/**
 * A chosen-id create under parent A whose entry write fails leaves A's link
 * to the id's hash (a failed create never deletes a parent link: another
 * create of the id may share it). The same id is then made under parent B.
 * Revoking A does not revoke B's child, and renewing A shorter (no lease
 * manager) does not cap it: the walkers act only on a child whose entry
 * names the parent they walk, and drop the stale link.
 */
import { expect, it } from 'vitest';
import type { TokenContext } from '../../src/auth/token-entry.js';
import { TokenStore } from '../../src/auth/token-store.js';
import { MemoryStorage, TransitNode } from '../../src/index.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { outcome } from '../helpers/gated-storage.js';
import { StorageView } from '../helpers/storage-view.js';

class FailOnce extends StorageView {
  armed = false;
  override compareAndSet(key: string, e: Uint8Array | undefined, n: Uint8Array | undefined) {
    if (this.armed && key.startsWith('auth/token/id/') && e === undefined) {
      this.armed = false;
      return Promise.reject(new Error('connection reset'));
    }
    return super.compareAndSet(key, e, n);
  }
}

async function setup(leases: boolean) {
  const storage = new FailOnce(new MemoryStorage());
  const node = new TransitNode({ storage, ...(leases ? { leases: { tickMs: false } } : {}) });
  const init = await node.init({ secret_shares: 1, secret_threshold: 1 });
  await node.unseal({ key: init.keys[0] as string });
  const root = await node.tokens.authenticate(init.root_token);
  if (!root) throw new Error('no root');
  const mk = async () => {
    const t = (
      await node.tokens.create(root, { policies: ['default'], ttl: '10h', renewable: true })
    ).client_token;
    const ctx = await node.tokens.authenticate(t);
    if (!ctx) throw new Error('no token');
    return { t, ctx };
  };
  const a = await mk();
  const b = await mk();
  storage.armed = true;
  const req = { id: 'shared-id-1', policies: ['default'], ttl: '5h' };
  const failed = await outcome(node.tokens.create(a.ctx, req, { sudo: true }));
  expect(failed.ok).toBe(false);
  const made = await node.tokens.create(b.ctx, req, { sudo: true });
  expect(made.client_token).toBe('shared-id-1');
  return { node, a, b };
}

it("revoking A does not revoke a token made under B that A's failed create named", async () => {
  const { node, a, b } = await setup(true);
  await node.tokens.revoke(a.t);
  expect(await node.tokens.authenticate(a.t)).toBeUndefined();
  expect(await node.tokens.authenticate(b.t)).toBeDefined();
  // B's child is outside A's tree: it must still work.
  expect(await node.tokens.authenticate('shared-id-1')).toBeDefined();
});

it('renewing A shorter does not cap a token made under B (TokenStore without a lease manager)', async () => {
  const storage = new FailOnce(new MemoryStorage());
  const clock = new FakeClock();
  const tokens = new TokenStore({ storage, clock });
  const rootT = await tokens.createRoot();
  const root = (await tokens.authenticate(rootT)) as TokenContext;
  const mk = async () => {
    const t = (await tokens.create(root, { policies: ['default'], ttl: '10h', renewable: true }))
      .client_token;
    return { t, ctx: (await tokens.authenticate(t)) as TokenContext };
  };
  const a = await mk();
  const b = await mk();
  storage.armed = true;
  const req = { id: 'shared-id-2', policies: ['default'], ttl: '5h' };
  expect((await outcome(tokens.create(a.ctx, req, { sudo: true }))).ok).toBe(false);
  await tokens.create(b.ctx, req, { sudo: true });
  const before = await tokens.lookup(root, 'shared-id-2');
  await tokens.renewSelf(a.ctx, '60s');
  const after = await tokens.lookup(root, 'shared-id-2');
  // B's child keeps its expiry: A's renewal caps A's tree only.
  expect(after.expire_time).toBe(before.expire_time);
});
