/**
 * One instance for paused-leader.test.ts: a Leadership and a
 * Transit (auto-rotation every 20 ms under that leadership) on Redis.
 * With BLOCK_MS > 0, the instance's first lock refresh after a `block` line on stdin is followed by a
 * synchronous block of the event loop (a long CPU-bound call) of BLOCK_MS,
 * right after the request was written to the socket.
 *
 * Prints `lead <ms>` / `standby <ms>` on every change of isLeader() (polled
 * every 5 ms), `passstart <ms>` as a pass lists the keys, and `pass <ms>` at the end of each auto-rotation pass.
 * Usage: node --import tsx paused-leader-child.ts URL PREFIX TTL_MS BLOCK_MS
 */
import { RedisStorage } from '../../adapters/redis/index.js';
import { Leadership } from '../../src/node/leadership.js';
import { Transit } from '../../src/transit/transit.js';

const [url, prefix, ttlArg, blockArg] = process.argv.slice(2) as [string, string, string, string];
const ttl = Number(ttlArg);
const blockMs = Number(blockArg);
const say = (line: string) => process.stdout.write(`${line}\n`);

const storage = await RedisStorage.connect(url, { prefix });
const lock = storage.lock.bind(storage);
let armed = false; // set by a `block` line on stdin
storage.lock = async (name: string, ms: number) => {
  const h = await lock(name, ms);
  if (!h) return h;
  return {
    refresh: (next: number) => {
      const p = h.refresh(next); // the request is on the wire now
      if (blockMs > 0 && armed) {
        armed = false;
        const until = Date.now() + blockMs;
        while (Date.now() < until) {
          // a long synchronous call
        }
      }
      return p;
    },
    release: () => h.release(),
  };
};
const list = storage.list.bind(storage);
storage.list = ((prefix: string, options?: Parameters<typeof list>[1]) => {
  // An auto-rotation pass begins with this listing.
  if (prefix === 'transit/policy/') say(`passstart ${Date.now()}`);
  return list(prefix, options);
}) as typeof storage.list;
const leadership = new Leadership({ storage, ttlMs: ttl, refreshMs: Math.floor(ttl / 4) });
leadership.start();
const transit = new Transit({
  storage,
  leadership,
  autoRotate: { intervalMs: 20, onResult: () => say(`pass ${Date.now()}`) },
});
await transit.listKeys();
let leader = false;
setInterval(() => {
  const now = leadership.isLeader();
  if (now !== leader) say(`${now ? 'lead' : 'standby'} ${Date.now()}`);
  leader = now;
}, 5);
say('ready');
process.stdin.on('data', (d) => {
  if (String(d).includes('block')) armed = true;
});
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
