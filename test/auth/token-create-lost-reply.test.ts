/**
 * A create whose entry write landed but answered an error (a lost reply)
 * takes the entry back by compare-and-set on the bytes it wrote. When the
 * entry changed meanwhile (a use of a limited-use token), the take-back
 * fails; the entry is then read again, and one that is this create's (its
 * accessor) is revoked with its links, so no live token is left without its
 * accessor or lease while the caller is told the create failed.
 */
import { describe, expect, it } from 'vitest';
import { TokenStore } from '../../src/auth/token-store.js';
import { LeaseManager } from '../../src/leases/lease-manager.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { Gate, outcome } from '../helpers/gated-storage.js';
import { StorageView } from '../helpers/storage-view.js';

/** The next armed entry compare-and-set is applied, then answers an error. */
class LostReply extends StorageView {
  armed = false;
  override async compareAndSet(
    key: string,
    expected: Uint8Array | undefined,
    next: Uint8Array | undefined,
  ) {
    const out = await super.compareAndSet(key, expected, next);
    if (this.armed && key.startsWith('auth/token/id/')) {
      this.armed = false;
      throw new Error('connection reset');
    }
    return out;
  }
}

describe('a create whose entry write lost its reply', () => {
  for (const withLeases of [false, true]) {
    it(`leaves no live token without its accessor (${withLeases ? 'with' : 'no'} lease manager)`, async () => {
      const clock = new FakeClock();
      const inner = new MemoryStorage({ clock });
      const lossy = new LostReply(inner);
      const gate = new Gate(lossy as unknown as MemoryStorage);
      const leases = withLeases ? new LeaseManager({ storage: gate, clock }) : undefined;
      const tokens = new TokenStore({ storage: gate, clock, ...(leases ? { leases } : {}) });
      const root = await tokens.authenticate(await tokens.createRoot());
      if (!root) throw new Error('no root');

      lossy.armed = true;
      // The take-back (the second entry compare-and-set) is held.
      gate.arm({ op: 'cas', match: (k) => k.startsWith('auth/token/id/'), times: 2 });
      const req = { id: 'lost-id-1', policies: ['default'], ttl: '1h', num_uses: 3 };
      const made = outcome(tokens.create(root, req, { sudo: true }));
      await gate.held(1);
      gate.release(); // the entry write: applied, then "connection reset"
      await gate.held(1); // the take-back, held
      // The entry exists: the chosen id is used once meanwhile (its bytes change).
      gate.disarm();
      const used = await tokens.authenticate('lost-id-1');
      expect(used).toBeDefined();
      gate.release();
      const r = await made;
      expect(r.ok).toBe(false); // the create reports the failure

      const ctx = await tokens.authenticate('lost-id-1');
      if (ctx !== undefined) {
        // A token that exists keeps its accessor (storeEntry's own rule): it can be
        // looked up and revoked by it, and its lease still revokes it.
        expect((await tokens.lookupAccessor(ctx.accessor)).accessor).toBe(ctx.accessor);
      }
      await leases?.stop();
    });
  }
});
