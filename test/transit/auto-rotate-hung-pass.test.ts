/**
 * "One auto-rotation pass at a time" needs a bound: one storage call of a
 * pass that never settles (a lost reply, an adapter with no timeout) kept the
 * guard set, and auto-rotation never ran again on this instance, silently,
 * while it stayed leader (so no other instance rotated either). A pass is now
 * given up after ten intervals.
 */
import { MemoryStorage, Transit } from 'transitkit';
import { describe, expect, it } from 'vitest';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('auto-rotation after one hung storage call', () => {
  it('still runs passes later', async () => {
    const storage = new MemoryStorage();
    const list = storage.list.bind(storage);
    let passes = 0;
    storage.list = ((prefix: string, options?: Parameters<typeof list>[1]) => {
      if (prefix.startsWith('transit/policy/')) {
        passes++;
        if (passes === 1) return new Promise(() => undefined); // this reply never comes
      }
      return list(prefix, options);
    }) as typeof storage.list;
    const done: number[] = [];
    const transit = new Transit({
      storage,
      autoRotate: { intervalMs: 20, onResult: () => done.push(Date.now()) },
    });
    try {
      await sleep(2_000); // 100 intervals
      expect({ passesStarted: passes > 1, passesDone: done.length > 0 }).toEqual({
        passesStarted: true,
        passesDone: true,
      });
    } finally {
      await transit.close();
    }
  });
});
