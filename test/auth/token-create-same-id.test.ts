/**
 * Two creates of one chosen id under one parent, the first one's entry write
 * failing while the second is between its parent-link write and its entry
 * write: the failed create's clean-up leaves the shared parent link, so the
 * second token, once stored, is revoked with its parent (as Vault revokes
 * every child with it).
 */
import { expect, it } from 'vitest';
import { MemoryStorage, TransitNode } from '../../src/index.js';
import { outcome } from '../helpers/gated-storage.js';
import { StorageView } from '../helpers/storage-view.js';

class Scripted extends StorageView {
  idCas = 0;
  held: Array<() => void> = [];
  heldCount = 0;
  armed = false;
  override compareAndSet(key: string, e: Uint8Array | undefined, n: Uint8Array | undefined) {
    if (this.armed && key.startsWith('auth/token/id/') && e === undefined) {
      const call = ++this.idCas;
      if (call === 1 || call === 2) {
        return new Promise<void>((go) => {
          this.held.push(go);
          this.heldCount++;
        }).then(() => {
          if (call === 1) throw new Error('connection reset');
          return super.compareAndSet(key, e, n);
        });
      }
    }
    return super.compareAndSet(key, e, n);
  }
}

const tick = () => new Promise((r) => setTimeout(r, 20));

it('a failed same-id create does not delete the parent link of the create that wins', async () => {
  const storage = new Scripted(new MemoryStorage());
  const node = new TransitNode({ storage, leases: { tickMs: false } });
  const init = await node.init({ secret_shares: 1, secret_threshold: 1 });
  await node.unseal({ key: init.keys[0] as string });
  const root = await node.tokens.authenticate(init.root_token);
  if (!root) throw new Error('no root');
  const parent = (await node.tokens.create(root, { policies: ['default'], ttl: '1h' }))
    .client_token;
  const pctx = await node.tokens.authenticate(parent);
  if (!pctx) throw new Error('no parent');

  storage.armed = true;
  const req = { id: 'same-id-1', policies: ['default'], ttl: '1h' };
  const a = outcome(node.tokens.create(pctx, req, { sudo: true }));
  const b = outcome(node.tokens.create(pctx, req, { sudo: true }));
  while (storage.heldCount < 2) await tick(); // both wrote accessor + link, both entry writes held
  const [first, second] = storage.held;
  first?.(); // the first entry write fails
  await tick();
  const ra = await a.then((r) => r); // settled by now or soon
  second?.(); // the second lands
  const rb = await b;
  const results = [ra, rb];
  expect(results.filter((r) => r.ok).length).toBe(1);

  // The parent's tree is revoked: the child made under it must go too (Vault: children revoked).
  await node.tokens.revoke(parent);
  expect(await node.tokens.authenticate(parent)).toBeUndefined();
  expect(await node.tokens.authenticate('same-id-1')).toBeUndefined();
});
