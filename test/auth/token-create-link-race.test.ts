/**
 * A same-id create that loses does not delete its parent link (a check of who
 * holds the hash, then a delete, could be overtaken): the holder can be
 * revoked and the id made again under this create's parent meanwhile, and
 * that token must stay in its parent's tree.
 */
import { expect, it } from 'vitest';
import { MemoryStorage, TransitNode } from '../../src/index.js';
import { Gate, outcome } from '../helpers/gated-storage.js';

const until = async (f: () => boolean) => {
  while (!f()) await new Promise((r) => setTimeout(r, 5));
};

it('a losing same-id create does not delete the parent link of a later token with that id', async () => {
  const gate = new Gate(new MemoryStorage());
  const node = new TransitNode({ storage: gate, leases: { tickMs: false } });
  const init = await node.init({ secret_shares: 1, secret_threshold: 1 });
  await node.unseal({ key: init.keys[0] as string });
  const root = await node.tokens.authenticate(init.root_token);
  if (!root) throw new Error('no root');
  const mk = async () => {
    const t = (await node.tokens.create(root, { policies: ['default'], ttl: '1h' })).client_token;
    const ctx = await node.tokens.authenticate(t);
    if (!ctx) throw new Error('no token');
    return { t, ctx };
  };
  const a = await mk();
  const b = await mk();
  const req = { id: 'race-id-1', policies: ['default'], ttl: '30m' };

  // B's create: accessor and link B/H written, its entry write held.
  gate.arm({ op: 'cas', match: (k) => k.startsWith('auth/token/id/') });
  const first = outcome(node.tokens.create(b.ctx, req, { sudo: true }));
  await gate.held(1);
  // A's create of the same id wins meanwhile.
  const madeA = await node.tokens.create(a.ctx, req, { sudo: true });
  expect(madeA.client_token).toBe('race-id-1');
  const h = (await node.tokens.authenticate('race-id-1'))?.hash as string;
  // B's clean-up reads the holder (A), then its delete of link B/H is held.
  gate.arm({ op: 'delete', match: (k) => k === `auth/token/parent/${b.ctx.hash}/${h}` });
  gate.release();
  // B's clean-up either finishes (it deletes no link) or its delete is held.
  const step = await Promise.race([
    first.then(() => 'settled' as const),
    until(() => gate.heldCount > 0).then(() => 'delete held' as const),
  ]);
  // A's tree goes (the token with it); the same id is made again, now under B.
  await node.tokens.revoke(a.t);
  expect(await node.tokens.authenticate('race-id-1')).toBeUndefined();
  const again = await node.tokens.create(b.ctx, req, { sudo: true });
  expect(again.client_token).toBe('race-id-1');
  if (step === 'delete held')
    gate.release(); // the stale clean-up's delete lands
  else gate.disarm(); // no clean-up delete came: the revocation below passes freely
  expect((await first).ok).toBe(false);

  // Revoking B revokes its child (Vault: the whole tree).
  await node.tokens.revoke(b.t);
  expect(await node.tokens.authenticate(b.t)).toBeUndefined();
  expect(await node.tokens.authenticate('race-id-1')).toBeUndefined();
});
