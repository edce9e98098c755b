/**
 * Shared machinery of the storage conformance suites (`./storage.ts`,
 * `./storage-list.ts`, `./storage-cas.ts`, `./storage-lock.ts`,
 * `./storage-watch.ts`): the test-runner harness they register through, skip
 * rules, the suite runner, fixtures, and byte and key helpers.
 *
 * The suites depend on no test runner: they take `{ describe, it, expect }`
 * ({@link TestHarness}) from the caller, so one suite runs under vitest, jest
 * or any runner with the same three functions, and transitkit has no
 * run-time dependency on a test framework.
 *
 * @module
 */

import { isTransitError, type StorageAdapter } from 'transitkit';
import type { FakeClock } from './fake-clock.js';

/**
 * The assertions the suites use, as vitest's and jest's `expect(value)` provide
 * them (a structural subset).
 * @public
 */
export interface ConformanceMatchers {
  /** `Object.is` equality. */
  toBe(expected: unknown): void;
  /** Deep equality. */
  toEqual(expected: unknown): void;
  /** The value is `undefined`. */
  toBeUndefined(): void;
  /** The value is not `undefined`. */
  toBeDefined(): void;
  /** The value's `length`. */
  toHaveLength(length: number): void;
  /** The value is an instance of the class. */
  toBeInstanceOf(expected: abstract new (...args: never[]) => unknown): void;
  /** The string matches. */
  toMatch(expected: RegExp | string): void;
  /** The number is at most `expected`. */
  toBeLessThanOrEqual(expected: number): void;
}

/**
 * The test runner the suites register their tests with: vitest's (or jest's)
 * `describe`, `it` (with `it.skip`) and `expect`.
 *
 * @example
 * ```ts
 * import { describe, expect, it } from 'vitest';
 * runStorageConformance({ describe, it, expect }, 'memory', async () => ({
 *   storage: new MemoryStorage(),
 * }));
 * ```
 * @public
 */
export interface TestHarness {
  /** Group tests under a title. */
  describe(title: string, body: () => void): void;
  /** Register a test (with an optional timeout in ms); `it.skip` registers a skipped one. */
  it: {
    (title: string, fn: () => Promise<void>, timeout?: number): void;
    skip(title: string, fn: () => Promise<void>): void;
  };
  /** Start an assertion (one argument, as jest's `expect` takes). */
  expect(actual: unknown): ConformanceMatchers;
}

/** Tests to skip, with the reason (shown in the test name). @public */
export interface SkipRule {
  /** Why (a skip without a reason is refused). */
  reason: string;
  /** The exact titles of the tests to skip (an unknown title fails the run). */
  tests: string[];
}

/** Options shared by the conformance suites. @public */
export interface SuiteOptions {
  /** Tests this adapter cannot run, each rule with its reason. */
  skip?: SkipRule[];
}

/** What a storage factory returns: a fresh, empty store. @public */
export interface StorageFixture {
  /** The store under test, empty. */
  storage: StorageAdapter;
  /** The clock the store was given, when a test needs to move time. */
  clock?: FakeClock;
  /** Tear down (close, delete files). Default: `storage.close?.()`. */
  cleanup?: () => Promise<void>;
}

/**
 * Declare the tests of a suite through `test(title, fn)`; applies `skip` rules and,
 * via `done()`, fails when a rule names a test that does not exist.
 * @internal
 */
export function suiteRunner(h: TestHarness, suite: string, options: SuiteOptions | undefined) {
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
      if (reason === undefined) h.it(title, fn, timeout);
      else h.it.skip(`${title} [skipped: ${reason}]`, fn);
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

/** Registers one conformance test that runs `fn` on a fresh adapter. @internal */
export type AdapterTest = (title: string, fn: (s: StorageAdapter) => Promise<void>) => void;

const enc = new TextEncoder();
const dec = new TextDecoder();
/** UTF-8 bytes of `s`. @internal */
export const b = (s: string): Uint8Array => enc.encode(s);
/** The UTF-8 text of `u` (`undefined` stays `undefined`). @internal */
export const text = (u: Uint8Array | undefined): string | undefined =>
  u === undefined ? undefined : dec.decode(u);

/** The assertion helpers of the suites, over the caller's `expect`. @internal */
export function assertions(expect: TestHarness['expect']) {
  return {
    /** Assert that `fn` throws or rejects with a TransitError `invalid_request`. */
    async expectInvalid(fn: () => unknown, message?: RegExp): Promise<void> {
      let error: unknown;
      try {
        await fn();
      } catch (e) {
        error = e;
      }
      // One argument only (jest's expect refuses a message): the error shows in the diff.
      expect({
        invalidRequest: isTransitError(error, 'invalid_request'),
        got: String(error),
      }).toEqual({ invalidRequest: true, got: String(error) });
      if (message) expect((error as Error).message).toMatch(message);
    },

    /** Byte equality with a useful message (and fast on 8 MiB). */
    expectBytes(got: Uint8Array | undefined, want: Uint8Array): void {
      expect(got).toBeInstanceOf(Uint8Array);
      const g = got as Uint8Array;
      expect(g.length).toBe(want.length);
      let i = 0;
      while (i < want.length && g[i] === want[i]) i++;
      expect({ firstDifferingByte: i }).toEqual({ firstDifferingByte: want.length });
    },

    /** Every key has its own value (as written by {@link putKeys}) and list('') is exactly them. */
    async expectKeys(s: StorageAdapter, keys: readonly string[]): Promise<void> {
      for (const [i, k] of keys.entries())
        expect({ key: k, value: text(await s.get(k)) }).toEqual({ key: k, value: `v${i}` });
      expect(await s.list('')).toEqual(JS_ORDER(keys));
    },
  };
}

/** Put `keys[i]` = `v${i}`, 50 at a time (file adapters fsync each write). @internal */
export async function putKeys(s: StorageAdapter, keys: readonly string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += 50) {
    await Promise.all(keys.slice(i, i + 50).map((k, j) => s.put(k, b(`v${i + j}`))));
  }
}

/** Keys in many scripts, NFC/NFD pairs, a BOM, the last code point. @internal */
export const UNICODE_KEYS = [
  ...['🔑', '鍵/秘密', 'ключ', 'مفتاح', '👨‍👩‍👧', '\uFEFFbom', '\u{10FFFF}'],
  ...['caf\u00e9', 'cafe\u0301'], // "café", NFC and NFD
  ...['\u00c5', '\u212b', 'A\u030a'], // "Å": NFC, angstrom sign, NFD
];

/** Keys that look like paths, device names or file-system syntax. @internal */
export const PATH_KEYS = [
  ...['a/b/c', '/leading', 'trailing/', '//', '../../etc/passwd', './x', '.', '..', '...'],
  ...['.lock', '.tmp-x', 'a b', ' ', 'a%2fb', 'a/b', '%', '\\', 'a\\b', 'C:\\x', '~', '*?<>|"'],
  ...['con', 'NUL', 'line\nbreak', 'tab\t'],
];

/** Keys sorted as `list` must return them: by UTF-16 code unit. @internal */
export const JS_ORDER = (keys: Iterable<string>): string[] => [...keys].sort();
