/**
 * Shared machinery of the storage conformance suites (storage.ts,
 * storage-list.ts, storage-cas.ts, storage-lock.ts, storage-watch.ts): skip
 * rules, the suite runner, fixtures, the invalid_request assertion, and byte
 * and key helpers. Like them, it imports nothing but vitest and transitkit's
 * public error helpers.
 *
 * @module
 */

import { expect, it } from 'vitest';
import { isTransitError } from '../../src/errors.js';
import type { StorageAdapter } from '../../src/storage/adapter.js';
import type { FakeClock } from '../helpers/fake-clock.js';

/** Tests to skip, with the reason (shown in the test name). */
export interface SkipRule {
  reason: string;
  tests: string[];
}

/** Options shared by the conformance suites. */
export interface SuiteOptions {
  skip?: SkipRule[];
}

/** What a storage factory returns: a fresh, empty store. */
export interface StorageFixture {
  storage: StorageAdapter;
  clock?: FakeClock;
  /** Tear down (close, delete files). Default: `storage.close?.()`. */
  cleanup?: () => Promise<void>;
}

/**
 * Declare the tests of a suite through `test(title, fn)`; applies `skip` rules and,
 * via `done()`, fails when a rule names a test that does not exist.
 * @internal
 */
export function suiteRunner(suite: string, options: SuiteOptions | undefined) {
  const skipped = new Map<string, string>();
  for (const rule of options?.skip ?? []) {
    if (!rule.reason) throw new Error(`${suite}: every skip needs a reason`);
    for (const t of rule.tests) skipped.set(t, rule.reason);
  }
  const seen = new Set<string>();
  return {
    test(title: string, fn: () => Promise<void>, timeout?: number): void {
      seen.add(title);
      const reason = skipped.get(title);
      if (reason === undefined) it(title, fn, timeout);
      else it.skip(`${title} [skipped: ${reason}]`, fn);
    },
    done(): void {
      const unknown = [...skipped.keys()].filter((t) => !seen.has(t));
      if (unknown.length > 0) {
        throw new Error(
          `${suite}: skip names unknown tests: ${unknown.map((t) => `"${t}"`).join(', ')}`,
        );
      }
    },
  };
}

/** Run `fn` on a fresh fixture, then clean up. @internal */
export async function withFixture<
  F extends { storage: StorageAdapter; cleanup?: () => Promise<void> },
>(factory: () => Promise<F>, fn: (f: F) => Promise<void>): Promise<void> {
  const f = await factory();
  try {
    await fn(f);
  } finally {
    if (f.cleanup) await f.cleanup();
    else await f.storage.close?.();
  }
}

/** Assert that `fn` throws or rejects with a TransitError `invalid_request`. @internal */
export async function expectInvalid(fn: () => unknown, message?: RegExp): Promise<void> {
  let error: unknown;
  try {
    await fn();
  } catch (e) {
    error = e;
  }
  expect(
    isTransitError(error, 'invalid_request'),
    `expected invalid_request, got ${String(error)}`,
  ).toBe(true);
  if (message) expect((error as Error).message).toMatch(message);
}

/** Registers one conformance test that runs `fn` on a fresh adapter. @internal */
export type AdapterTest = (title: string, fn: (s: StorageAdapter) => Promise<void>) => void;

const enc = new TextEncoder();
const dec = new TextDecoder();
export const b = (s: string): Uint8Array => enc.encode(s);
export const text = (u: Uint8Array | undefined): string | undefined =>
  u === undefined ? undefined : dec.decode(u);

/** Byte equality with a useful message (and fast on 8 MiB). */
export function expectBytes(got: Uint8Array | undefined, want: Uint8Array): void {
  expect(got).toBeInstanceOf(Uint8Array);
  const g = got as Uint8Array;
  expect(g.length).toBe(want.length);
  let i = 0;
  while (i < want.length && g[i] === want[i]) i++;
  expect(i, `first differing byte at ${i}`).toBe(want.length);
}

/** Put `keys[i]` = `v${i}`, 50 at a time (file adapters fsync each write). */
export async function putKeys(s: StorageAdapter, keys: readonly string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += 50) {
    await Promise.all(keys.slice(i, i + 50).map((k, j) => s.put(k, b(`v${i + j}`))));
  }
}

/** Every key has its own value (as written by {@link putKeys}) and list('') is exactly them. */
export async function expectKeys(s: StorageAdapter, keys: readonly string[]): Promise<void> {
  for (const [i, k] of keys.entries())
    expect(text(await s.get(k)), JSON.stringify(k)).toBe(`v${i}`);
  expect(await s.list('')).toEqual(JS_ORDER(keys));
}

export const UNICODE_KEYS = [
  ...['🔑', '鍵/秘密', 'ключ', 'مفتاح', '👨‍👩‍👧', '\uFEFFbom', '\u{10FFFF}'],
  ...['caf\u00e9', 'cafe\u0301'], // "café", NFC and NFD
  ...['\u00c5', '\u212b', 'A\u030a'], // "Å": NFC, angstrom sign, NFD
];

export const PATH_KEYS = [
  ...['a/b/c', '/leading', 'trailing/', '//', '../../etc/passwd', './x', '.', '..', '...'],
  ...['.lock', '.tmp-x', 'a b', ' ', 'a%2fb', 'a/b', '%', '\\', 'a\\b', 'C:\\x', '~', '*?<>|"'],
  ...['con', 'NUL', 'line\nbreak', 'tab\t'],
];

export const JS_ORDER = (keys: Iterable<string>): string[] => [...keys].sort();
