/** `src/util/own.ts`: `setOwn` writes data, never a prototype. */
import { describe, expect, it } from 'vitest';
import { setOwn } from '../../src/util/own.js';

describe('setOwn', () => {
  it('writes "__proto__" as an own key; the prototype is untouched', () => {
    const o: Record<string, unknown> = {};
    setOwn(o, '__proto__', { polluted: true });
    expect(Object.getPrototypeOf(o)).toBe(Object.prototype);
    expect(Object.keys(o)).toEqual(['__proto__']);
    expect(JSON.stringify(o)).toBe('{"__proto__":{"polluted":true}}');
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it('writes an enumerable, writable, configurable value; a second write replaces it', () => {
    const o: Record<string, unknown> = {};
    setOwn(o, 'a', 1);
    setOwn(o, 'a', 2);
    expect(Object.getOwnPropertyDescriptor(o, 'a')).toEqual({
      value: 2,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  });
});
