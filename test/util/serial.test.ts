import { describe, expect, it } from 'vitest';
import { serial } from '../../src/util/serial.js';

describe('serial', () => {
  it('runs steps one at a time in the order asked; a failure is its caller’s and the next still runs', async () => {
    const run = serial();
    const log: string[] = [];
    const step = (name: string, ms: number, fail = false) =>
      run(async () => {
        log.push(`${name} start`);
        await new Promise((r) => setTimeout(r, ms));
        log.push(`${name} end`);
        if (fail) throw new Error(name);
        return name;
      });
    const a = step('a', 20);
    const b = step('b', 1, true);
    const c = step('c', 1);
    await expect(a).resolves.toBe('a');
    await expect(b).rejects.toThrow('b');
    await expect(c).resolves.toBe('c');
    expect(log).toEqual(['a start', 'a end', 'b start', 'b end', 'c start', 'c end']);
  });
});
