/**
 * The full report of a change feed (src/storage/watchers.ts), sent after a
 * reconnection: every watcher hears its own prefix before any listing runs,
 * a listing that fails stops no other watcher's report, and the feed tries
 * the report again until it lands.
 */
import { describe, expect, it } from 'vitest';
import { Watchers } from '../../src/storage/watchers.js';

describe('Watchers.reportAll', () => {
  it("a failing listing neither keeps another watcher from its prefix nor stops the other's keys", async () => {
    const w = new Watchers(async (prefix) => {
      if (prefix === 'a/') throw new Error('list failed');
      return ['k1', 'k2'];
    });
    const seenA: string[] = [];
    const seenB: string[] = [];
    w.add('a/', (k) => seenA.push(k));
    w.add('b/', (k) => seenB.push(k));
    await expect(w.reportAll()).rejects.toThrow('list failed');
    expect(seenA).toEqual(['a/']);
    expect(seenB).toEqual(['b/', 'b/k1', 'b/k2']);
  });

  it('every prefix is told before any listing is awaited', async () => {
    const order: string[] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const w = new Watchers(async (prefix) => {
      order.push(`list ${prefix}`);
      if (prefix === 'a/') await gate;
      return [];
    });
    w.add('a/', (k) => order.push(`told ${k}`));
    w.add('b/', (k) => order.push(`told ${k}`));
    const done = w.reportAll();
    await Promise.resolve();
    expect(order.slice(0, 2)).toEqual(['told a/', 'told b/']);
    release();
    await done;
  });

  it('reportAllRetrying tries again until the listing succeeds, and stops once the watchers are gone', async () => {
    let failures = 2;
    let calls = 0;
    const w = new Watchers(async () => {
      calls++;
      if (failures-- > 0) throw new Error('not yet');
      return ['k'];
    });
    const seen: string[] = [];
    w.add('p/', (k) => seen.push(k));
    w.reportAllRetrying(5);
    await expect.poll(() => seen.includes('p/k'), { timeout: 5_000 }).toBe(true);
    expect(calls).toBe(3);
    expect(seen.filter((k) => k === 'p/')).toHaveLength(3);

    let tries = 0;
    const gone = new Watchers(async () => {
      tries++;
      throw new Error('never');
    });
    gone.add('q/', () => undefined);
    gone.reportAllRetrying(5);
    await expect.poll(() => tries, { timeout: 5_000 }).toBeGreaterThanOrEqual(2);
    gone.clear();
    const stopped = tries;
    await new Promise((r) => setTimeout(r, 200));
    expect(tries).toBeLessThanOrEqual(stopped + 1);
  });
});
