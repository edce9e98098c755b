import { afterEach, describe, expect, it, vi } from 'vitest';
import { LiveWatch } from '../../src/storage/live-watch.js';
import { MemoryStorage } from '../../src/storage/memory.js';

const settle = () => new Promise((r) => setTimeout(r, 0));

describe('LiveWatch', () => {
  afterEach(() => vi.useRealTimers());

  it('goes live after subscribing, says so once with the prefix, then forwards changes', async () => {
    const storage = new MemoryStorage();
    const seen: string[] = [];
    const w = new LiveWatch(storage, 'p/', (k) => seen.push(k));
    expect(w.live()).toBe(false);
    await settle();
    expect(w.live()).toBe(true);
    expect(seen).toEqual(['p/']);
    await storage.put('p/a', new Uint8Array([1]));
    await storage.put('q/b', new Uint8Array([1]));
    await settle();
    expect(seen).toEqual(['p/', 'p/a']);
    await w.close();
    expect(w.live()).toBe(false);
    await storage.put('p/c', new Uint8Array([1]));
    await settle();
    expect(seen).toEqual(['p/', 'p/a']);
  });

  it('a failed subscription is not live and is retried at most once a second', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const storage = new MemoryStorage();
    const real = storage.watch.bind(storage);
    let fail = true;
    const watch = vi.fn((prefix: string, on: (k: string) => void) =>
      fail ? Promise.reject(new Error('down')) : real(prefix, on),
    );
    const w = new LiveWatch(Object.assign(storage, { watch }), 'p/', () => undefined);
    await settle();
    expect(w.live()).toBe(false);
    expect(watch).toHaveBeenCalledTimes(1);
    vi.setSystemTime(Date.now() + 500);
    expect(w.live()).toBe(false);
    expect(watch).toHaveBeenCalledTimes(1);
    fail = false;
    vi.setSystemTime(Date.now() + 600);
    expect(w.live()).toBe(false); // the retry starts now
    await settle();
    expect(watch).toHaveBeenCalledTimes(2);
    expect(w.live()).toBe(true);
    await w.close();
  });

  it('closed while subscribing: the subscription is undone and never live', async () => {
    const storage = new MemoryStorage();
    const seen: string[] = [];
    const w = new LiveWatch(storage, 'p/', (k) => seen.push(k));
    await w.close();
    await storage.put('p/a', new Uint8Array([1]));
    await settle();
    expect(w.live()).toBe(false);
    expect(seen).toEqual([]);
  });
});
