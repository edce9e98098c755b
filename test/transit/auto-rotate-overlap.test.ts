/**
 * Auto-rotation runs one pass at a time: a pass slower than `intervalMs`
 * (many keys, a slow store) is not joined by another every interval. With a
 * plain setInterval they piled up, each one listing and reading every key
 * again.
 */
import { MemoryStorage, Transit } from 'transitkit';
import { afterEach, describe, expect, it } from 'vitest';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

describe('auto-rotation passes', () => {
  it('never overlap: a pass still running is not joined by another', async () => {
    const storage = new MemoryStorage();
    let inFlight = 0;
    let most = 0;
    const list = storage.list.bind(storage);
    storage.list = (async (prefix: string, options?: Parameters<typeof list>[1]) => {
      if (!prefix.startsWith('transit/policy/')) return list(prefix, options);
      inFlight++;
      most = Math.max(most, inFlight);
      try {
        await sleep(300); // a slow store: one listing page takes 300 ms
        return await list(prefix, options);
      } finally {
        inFlight--;
      }
    }) as typeof storage.list;
    const results: number[] = [];
    const transit = new Transit({
      storage,
      // A pass is given up as stuck only after ten intervals (1 s), past the 300 ms a page takes.
      autoRotate: { intervalMs: 100, onResult: () => results.push(Date.now()) },
    });
    cleanups.push(() => transit.close());
    // Until two passes are done (the first loads its module), then a few intervals more.
    for (let waited = 0; results.length < 2 && waited < 10_000; waited += 50) await sleep(50);
    await sleep(400);
    expect(results.length).toBeGreaterThanOrEqual(2);
    expect(most).toBe(1);
  });
});
