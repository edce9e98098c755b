/**
 * A lock reply acted on after the TTL makes ensure() answer false; it also
 * must not announce a gain: Leadership flipped to "leader" and told its
 * listeners, and the leader advertisement wrote this (stale) node's address
 * over the address of the node that really holds the lock.
 */
import { Leadership, MemoryStorage, type StorageAdapter } from 'transitkit';
import { describe, expect, it } from 'vitest';
import { advertisedLeader, advertiseLeader } from '../../src/node/leader-advert.js';
import { FakeClock } from '../helpers/fake-clock.js';

const TTL = 10_000;
const settle = async () => {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
};

describe('a stale lock reply', () => {
  it('does not announce a gain (no advertisement over the real leader)', async () => {
    const clock = new FakeClock();
    const storage = new MemoryStorage({ clock });
    const b = new Leadership({ storage, clock, ttlMs: TTL, refreshMs: 2_500 });
    // A's view of the same storage: its lock reply is heard after the TTL ran
    // out and B took the lock meanwhile (A was paused, or the network slow).
    const aStorage = {
      lock: async (name: string, ttl: number) => {
        const h = await storage.lock(name, ttl);
        clock.advance(TTL + 1);
        expect(await b.ensure()).toBe(true); // the lock ran out: B takes it
        await settle(); // B's advertisement is written
        return h;
      },
    } as unknown as StorageAdapter;
    const a = new Leadership({ storage: aStorage, clock, ttlMs: TTL, refreshMs: 2_500 });
    const gains: boolean[] = [];
    a.onChange((leader) => gains.push(leader));
    const stopA = advertiseLeader(storage, a, 'https://a.example:8200');
    const stopB = advertiseLeader(storage, b, 'https://b.example:8200');
    try {
      expect(await a.ensure()).toBe(false); // the fix: A does not lead
      await settle();
      expect(b.isLeader()).toBe(true);
      // sys/leader on every standby reads this entry: it must name B, the holder.
      // (A's listeners also heard a gain, gains = [true], for a lock it does not hold.)
      expect(await advertisedLeader(storage)).toBe('https://b.example:8200');
    } finally {
      stopA();
      stopB();
    }
  });
});
