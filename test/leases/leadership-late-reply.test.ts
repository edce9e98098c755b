/**
 * Leadership.ensure() answers "this instance leads" only while the lock it
 * took or refreshed is fresh (less than the TTL since the request was sent):
 * a reply that arrives (or is acted on) after the TTL ran out, when another
 * instance may have taken the lock, says false. It used to answer from the
 * reply alone, and both instances ran the leader duties; an auto-rotation
 * pass also checks it still leads before each key.
 *
 * Real redis-server; A's lock replies are held back by `late` ms (a slow
 * network, or a process paused between the reply and its continuation).
 */
import { Leadership, Transit } from 'transitkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisStorage } from '../../adapters/redis/index.js';
import { RedisServer, SKIP_REDIS } from '../helpers/redis-server.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const TTL = 300;

/** A's view: every lock reply (take and refresh) delivered `late` ms after the server answered. */
function lateReplies(s: RedisStorage, late: number): RedisStorage {
  const lock = s.lock.bind(s);
  s.lock = async (name: string, ttl: number) => {
    const h = await lock(name, ttl);
    await sleep(late);
    return h;
  };
  return s;
}

describe.skipIf(SKIP_REDIS)('a lock reply acted on after its TTL', () => {
  let server: RedisServer;
  let n = 0;
  beforeAll(async () => {
    server = await RedisServer.start();
  });
  afterAll(async () => server?.destroy());

  async function pair() {
    const prefix = `late${++n}:`;
    const sa = lateReplies(await RedisStorage.connect(server.url, { prefix }), 2 * TTL);
    const sb = await RedisStorage.connect(server.url, { prefix });
    const a = new Leadership({ storage: sa, ttlMs: TTL, refreshMs: TTL / 4 });
    const b = new Leadership({ storage: sb, ttlMs: TTL, refreshMs: TTL / 4 });
    return { sa, sb, a, b };
  }

  it('ensure() does not say "leader" for a lock that ran out and another took', async () => {
    const { sa, sb, a, b } = await pair();
    try {
      const aSays = a.ensure(); // the server gives A the lock now; A hears of it 600 ms later
      await sleep(TTL + 100);
      expect(await b.ensure()).toBe(true); // the lock ran out: B takes it
      const aLeads = await aSays;
      // Two leaders at once: both were told they lead, and B's lock is live.
      expect({ aLeads, bLeads: b.isLeader() }).not.toEqual({ aLeads: true, bLeads: true });
    } finally {
      await a.stop();
      await b.stop();
      await sa.close();
      await sb.close();
    }
  });

  it('no auto-rotation pass runs on A while B holds the leader lock', async () => {
    const { sa, sb, a, b } = await pair();
    const passesOnA: boolean[] = [];
    const transit = new Transit({
      storage: sa,
      leadership: a,
      autoRotate: {
        intervalMs: 50,
        onResult: () => passesOnA.push(b.isLeader()),
      },
    });
    try {
      b.start();
      await sleep(TTL * 4);
      // No pass A ran, ran while B led (B's own view, read as each pass ended).
      expect(passesOnA.filter((bLed) => bLed)).toEqual([]);
    } finally {
      await transit.close();
      await a.stop();
      await b.stop();
      await sa.close();
      await sb.close();
    }
  });
});
