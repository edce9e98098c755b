/**
 * `lazy` (src/util/lazy.ts): one import for every call, a failed load tried
 * again, and the module at hand as `loaded` only once its import has settled.
 */
import { describe, expect, it } from 'vitest';
import { lazy } from '../../src/util/lazy.js';

describe('lazy', () => {
  it('loads once, and has the module at hand only once loaded', async () => {
    let loads = 0;
    const mod = { answer: 42 };
    const get = lazy(async () => {
      loads++;
      return mod;
    });
    expect(get.loaded).toBeUndefined();
    const first = get();
    expect(get.loaded).toBeUndefined(); // started, not settled
    expect(get()).toBe(first);
    expect(await first).toBe(mod);
    expect(get.loaded).toBe(mod);
    expect(await get()).toBe(mod);
    expect(loads).toBe(1);
  });

  it('a failed load leaves nothing at hand and is tried again', async () => {
    let loads = 0;
    const get = lazy(async () => {
      loads++;
      if (loads === 1) throw new Error('offline');
      return { ok: true };
    });
    await expect(get()).rejects.toThrow('offline');
    expect(get.loaded).toBeUndefined();
    expect(await get()).toEqual({ ok: true });
    expect(get.loaded).toEqual({ ok: true });
    expect(loads).toBe(2);
  });
});
