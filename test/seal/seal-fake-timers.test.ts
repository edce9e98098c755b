/**
 * A seal with nothing in flight resolves under an application's fake timers
 * (vi/jest useFakeTimers, sinon): it waits for a macrotask only when writes
 * were in flight.
 */
import { afterEach, expect, it, vi } from 'vitest';
import { autoNodeWithKey } from '../helpers/test-nodes.js';

afterEach(() => {
  vi.useRealTimers();
});

it('seal() with nothing in flight resolves under fake timers', async () => {
  const node = await autoNodeWithKey();
  vi.useFakeTimers();
  let done = false;
  const sealing = node.seal().then(() => {
    done = true;
  });
  // Let every promise continuation run (no timer is advanced).
  for (let i = 0; i < 2_000 && !done; i++) await Promise.resolve();
  const resolvedOnItsOwn = done;
  vi.runAllTimers();
  await sealing;
  expect(resolvedOnItsOwn).toBe(true);
});
