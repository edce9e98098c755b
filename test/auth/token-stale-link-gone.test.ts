/**
 * A revocation that follows a stale link (left by a failed create) to a hash
 * with no entry stops there: it lists no children and revokes no leases under
 * that hash. So when the same id is made meanwhile under another parent and
 * given a child, the revocation does not reach that child.
 */
import { expect, it } from 'vitest';
import { TokenStore } from '../../src/auth/token-store.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { Gate } from '../helpers/gated-storage.js';

/** Fails the next armed entry compare-and-set. */
class FailOnce extends Gate {
  fail = 0;
  override compareAndSet(key: string, e: Uint8Array | undefined, n: Uint8Array | undefined) {
    if (this.fail > 0 && key.startsWith('auth/token/id/')) {
      this.fail--;
      return Promise.reject(new Error('connection reset'));
    }
    return super.compareAndSet(key, e, n);
  }
}

it("revoking a parent does not reach a child of a token made since with a stale link's id", async () => {
  const storage = new FailOnce(new MemoryStorage());
  const tokens = new TokenStore({ storage });
  const root = await tokens.authenticate(await tokens.createRoot());
  if (!root) throw new Error('no root');
  const p = (await tokens.create(root, { policies: ['root'], ttl: '2h' })).client_token;
  const pCtx = await tokens.authenticate(p);
  if (!pCtx) throw new Error('no parent');
  const req = { id: 'stale-id-1', policies: ['default'], ttl: '1h' };

  // A create of the id under P fails: its link P/H stays (by design).
  storage.fail = 1;
  await expect(tokens.create(pCtx, req, { sudo: true })).rejects.toThrow('connection reset');
  const [h] = await storage.inner.list(`auth/token/parent/${pCtx.hash}/`);
  if (h === undefined) throw new Error('no stale link');

  // P is revoked; its walk reaches H (no entry) and its listing of H's children is held.
  storage.arm({ op: 'list', match: (k) => k === `auth/token/parent/${h}/` });
  const revoking = tokens.revoke(p);
  // The walk either lists H's children (held here) or, stopping at a link
  // that leads to no entry, never does and finishes.
  const step = await Promise.race([
    revoking.then(() => 'done' as const),
    storage.held(1).then(() => 'held' as const),
  ]);
  if (step === 'done') storage.disarm();
  // Meanwhile the id is made under root, and makes a child of its own.
  await tokens.create(root, req, { sudo: true });
  const x = await tokens.authenticate('stale-id-1');
  if (!x) throw new Error('no x');
  const g = (await tokens.create(x, { policies: ['default'], ttl: '30m' })).client_token;
  storage.release();
  await revoking;

  expect(await tokens.authenticate(p)).toBeUndefined();
  expect(await tokens.authenticate('stale-id-1')).toBeDefined(); // not P's
  expect(await tokens.authenticate(g)).toBeDefined(); // X's child: not P's either
});
