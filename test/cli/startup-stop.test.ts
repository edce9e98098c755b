import { describe, expect, it } from 'vitest';
import { abortable, StartupStopped } from '../../adapters/cli/startup-stop.js';

describe('abortable', () => {
  it('already aborted wins over already resolved; late gets the value', async () => {
    const c = new AbortController();
    c.abort();
    const got: number[] = [];
    await expect(
      abortable(c.signal, Promise.resolve(1), (v) => got.push(v)),
    ).rejects.toBeInstanceOf(StartupStopped);
    await new Promise((r) => setTimeout(r, 5));
    expect(got).toEqual([1]);
  });
  it('value passes', async () => {
    const c = new AbortController();
    expect(await abortable(c.signal, Promise.resolve(2))).toBe(2);
  });
  it('abort mid-way', async () => {
    const c = new AbortController();
    let res!: (v: number) => void;
    const p = new Promise<number>((r) => {
      res = r;
    });
    const got: number[] = [];
    const a = abortable(c.signal, p, (v) => got.push(v));
    c.abort();
    await expect(a).rejects.toBeInstanceOf(StartupStopped);
    res(3);
    await new Promise((r) => setTimeout(r, 5));
    expect(got).toEqual([3]);
  });
  it('own rejection passes; late not called', async () => {
    const c = new AbortController();
    const got: number[] = [];
    await expect(
      abortable(c.signal, Promise.reject(new Error('x')), (v: number) => got.push(v)),
    ).rejects.toThrow('x');
    c.abort();
    expect(got).toEqual([]);
  });
});
