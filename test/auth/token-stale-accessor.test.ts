/**
 * A create whose entry write failed, and whose take-back failed too (the
 * outcome unknown), leaves its accessor index; the same chosen id is then made
 * again, with an accessor of its own. The stale accessor names the new token's
 * hash, but not its entry: lookup, renew and revoke by it answer `invalid
 * accessor` (revoke drops the stale index) and leave the token alone.
 */
import { describe, expect, it } from 'vitest';
import { TokenStore } from '../../src/auth/token-store.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { StorageView } from '../helpers/storage-view.js';

/** Fails the next `n` compare-and-sets of token entries. */
class FailingEntries extends StorageView {
  fail = 0;
  override compareAndSet(
    key: string,
    expected: Uint8Array | undefined,
    next: Uint8Array | undefined,
  ) {
    if (this.fail > 0 && key.startsWith('auth/token/id/')) {
      this.fail--;
      return Promise.reject(new Error('connection reset'));
    }
    return super.compareAndSet(key, expected, next);
  }
}

describe('a stale accessor of a failed create', () => {
  it('does not reach the token made later with the same id', async () => {
    const inner = new MemoryStorage();
    const storage = new FailingEntries(inner);
    const tokens = new TokenStore({ storage });
    const root = await tokens.authenticate(await tokens.createRoot());
    if (!root) throw new Error('no root');
    const req = { id: 'same-id-9', policies: ['default'], ttl: '1h' };
    const before = await inner.list('auth/token/accessor/'); // the root token's
    storage.fail = 2; // the entry write and its take-back
    await expect(tokens.create(root, req, { sudo: true })).rejects.toThrow('connection reset');
    const [stale] = (await inner.list('auth/token/accessor/')).filter((a) => !before.includes(a));
    if (stale === undefined) throw new Error('no stale accessor left');

    const made = await tokens.create(root, req, { sudo: true });
    const live = made.accessor;
    expect(live).not.toBe(stale);

    await expect(tokens.lookupAccessor(stale)).rejects.toMatchObject({
      message: 'invalid accessor',
    });
    await expect(tokens.renewAccessor(stale)).rejects.toMatchObject({
      message: 'invalid accessor',
    });
    await expect(tokens.revokeAccessor(stale)).rejects.toMatchObject({
      message: 'invalid accessor',
    });
    expect((await inner.list('auth/token/accessor/')).sort()).toEqual([...before, live].sort());
    expect((await tokens.authenticate('same-id-9'))?.accessor).toBe(live);
    expect((await tokens.lookupAccessor(live)).accessor).toBe(live);
  });
});
