/**
 * The leader advertisement (src/node/leader-advert.ts): a write from an
 * earlier leader that reaches storage late (A's connection stalled after it
 * took the lock; its queued command is delivered when the network heals)
 * overwrote the current leader's entry, and nothing rewrote it until the next
 * takeover: every standby's `sys/leader` named the old leader
 * (`leader_address`). The leader now checks the entry every refresh interval
 * and puts its own back.
 *
 * Real redis-server; A reaches it through a proxy that stalls A's traffic
 * from the advertisement write on (a partition), then delivers it in order.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import { Leadership } from 'transitkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisStorage } from '../../adapters/redis/index.js';
import { advertisedLeader, advertiseLeader } from '../../src/node/leader-advert.js';
import { RedisServer, SKIP_REDIS } from '../helpers/redis-server.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Forwards to `target`; from the first client chunk containing `match`, holds client→server bytes until `flush()`. */
class StallingProxy {
  port = 0;
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #match: string | undefined;
  #held: Array<{ upstream: Socket; chunk: Buffer }> = [];
  #stalled = false;
  stalledAt: number | undefined;
  constructor(target: number) {
    this.#server = createServer((client) => {
      const upstream = connect(target, '127.0.0.1');
      for (const s of [client, upstream]) {
        this.#sockets.add(s);
        s.on('error', () => undefined);
        s.on('close', () => this.#sockets.delete(s));
      }
      upstream.on('data', (d) => client.write(d));
      client.on('data', (d: Buffer) => {
        if (!this.#stalled && this.#match !== undefined && d.includes(this.#match)) {
          this.#stalled = true;
          this.stalledAt = Date.now();
        }
        if (this.#stalled) this.#held.push({ upstream, chunk: d });
        else upstream.write(d);
      });
    });
  }
  async start(): Promise<void> {
    await new Promise<void>((r) => this.#server.listen(0, '127.0.0.1', () => r()));
    const a = this.#server.address();
    this.port = typeof a === 'object' && a !== null ? a.port : 0;
  }
  stallFrom(match: string): void {
    this.#match = match;
  }
  flush(): void {
    this.#stalled = false;
    this.#match = undefined;
    for (const { upstream, chunk } of this.#held.splice(0)) upstream.write(chunk);
  }
  async close(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    await new Promise<void>((r) => this.#server.close(() => r()));
  }
}

describe.skipIf(SKIP_REDIS)('leader advertisement', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await RedisServer.start();
  });
  afterAll(async () => server?.destroy());

  it("a former leader's late advertisement does not replace the current leader's", async () => {
    const proxy = new StallingProxy(server.port);
    await proxy.start();
    const prefix = 'adv:';
    const sa = await RedisStorage.connect(`redis://127.0.0.1:${proxy.port}/0`, { prefix });
    const sb = await RedisStorage.connect(server.url, { prefix });
    const TTL = 300;
    const a = new Leadership({ storage: sa, ttlMs: TTL, refreshMs: 75 });
    const b = new Leadership({ storage: sb, ttlMs: TTL, refreshMs: 75 });
    const stopA = advertiseLeader(sa, a, 'https://a.example:8200');
    const stopB = advertiseLeader(sb, b, 'https://b.example:8200');
    try {
      proxy.stallFrom('sys/leader/advert'); // A's link stalls from its advertisement on
      expect(await a.ensure()).toBe(true);
      await sleep(50);
      expect(proxy.stalledAt).toBeDefined();
      await sleep(TTL); // A's lock runs out (A cannot refresh through the stall)
      b.start();
      expect(await b.ensure()).toBe(true);
      await sleep(50);
      expect(await advertisedLeader(sb)).toBe('https://b.example:8200');
      proxy.flush(); // the partition heals: A's queued write is delivered
      await sleep(200);
      expect(await a.ensure().catch(() => false)).toBe(false); // A knows it is a standby
      expect(b.isLeader()).toBe(true);
      // Every standby's sys/leader reads this entry: it must name B, the holder.
      expect(await advertisedLeader(sb)).toBe('https://b.example:8200');
    } finally {
      stopA();
      stopB();
      await a.stop();
      await b.stop();
      await sa.close();
      await sb.close();
      await proxy.close();
    }
  });
});
