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
      autoRotate: { intervalMs: 50, onResult: () => results.push(Date.now()) },
    });
    cleanups.push(() => transit.close());
    await sleep(1_000);
    expect(results.length).toBeGreaterThan(0);
    expect(most).toBe(1);
  });
});
