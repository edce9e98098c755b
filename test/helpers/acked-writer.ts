/**
 * The restart tests' write load, shared by the Redis and PostgreSQL suites:
 * a writer that puts `restart/0000`, `restart/0001`, … one after another and
 * records which writes were acknowledged, and the check that every
 * acknowledged write survived (readable with its value, and listed).
 * Not a test file.
 * @module
 */
import { expect } from 'vitest';
import type { StorageAdapter } from '../../src/storage/adapter.js';

/** UTF-8 bytes of a string. */
export const b = (s: string): Uint8Array => new TextEncoder().encode(s);
/** A stored value as text (`undefined` when absent). */
export const text = (u: Uint8Array | undefined): string | undefined =>
  u === undefined ? undefined : new TextDecoder().decode(u);

/** The writer's i-th key. */
export const key = (i: number): string => `restart/${String(i).padStart(4, '0')}`;

/**
 * Writes key(0..total-1) one after another; `acked` lists the acknowledged
 * indexes; `reached(n)` resolves once n writes were acknowledged. A write
 * reported as "may or may not have been applied" (its connection died during
 * a crash, so the adapter cannot know) is counted in `unknown` and written
 * again, as any caller would; every other failure ends the writer.
 */
export function startWriter(s: StorageAdapter, total: number) {
  const acked: number[] = [];
  const unknown: number[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const done = (async () => {
    for (let i = 0; i < total; i++) {
      try {
        await s.put(key(i), b(`value-${i}`));
      } catch (e) {
        if (!/may or may not have been applied/.test(String(e))) throw e;
        unknown.push(i);
        i--;
        continue;
      }
      acked.push(i);
      for (const w of waiters.filter((w) => acked.length >= w.n)) w.resolve();
    }
  })();
  const reached = (n: number) =>
    new Promise<void>((resolve) => {
      if (acked.length >= n) resolve();
      else waiters.push({ n, resolve });
    });
  return { acked, unknown, done, reached };
}

/** Every acknowledged key is readable with its value and listed. */
export async function expectAcked(s: StorageAdapter, acked: readonly number[]): Promise<void> {
  const listed = new Set(await s.list('restart/'));
  for (const i of acked) {
    expect(text(await s.get(key(i))), key(i)).toBe(`value-${i}`);
    expect(listed.has(key(i).slice('restart/'.length)), key(i)).toBe(true);
  }
}
