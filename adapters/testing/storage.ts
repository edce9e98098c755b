/**
 * The storage conformance suite: the core contract of a `StorageAdapter`
 * (get/put/delete, list with pagination, compareAndSet, key validation), run
 * against every adapter: memory, file, Redis and PostgreSQL in this
 * repository, and any third-party adapter through `transitkit/testing`
 * (docs/testing.md in the repository).
 *
 * Shape:
 * - a harness (`{ describe, it, expect }` of the caller's test runner), a
 *   name and a factory, called once per test so every test gets a fresh,
 *   empty instance;
 * - declared skips, each with a reason; a skip that names no existing test
 *   fails the run, so skips cannot rot;
 * - capability groups live next door: `./storage-lock.ts`, `./storage-watch.ts`;
 * - the list and compareAndSet groups of the core contract are in
 *   `./storage-list.ts` and `./storage-cas.ts`, the shared machinery in `./harness.ts`.
 *
 * It imports no test framework and nothing but transitkit's storage types and
 * error guard, so it ships in the package.
 *
 * @module
 */

import type { StorageAdapter } from 'transitkit';
import {
  assertions,
  b,
  PATH_KEYS,
  putKeys,
  type StorageFixture,
  type SuiteOptions,
  suiteRunner,
  type TestHarness,
  text,
  UNICODE_KEYS,
  withFixture,
} from './harness.js';
import { casConformance } from './storage-cas.js';
import { listConformance } from './storage-list.js';

/**
 * Register the core storage conformance tests for one adapter.
 *
 * Each test gets a fresh, empty store from `factory` and tears it down
 * (`cleanup`, else `storage.close()`). A skip names tests by their exact
 * title and gives a reason; a skip naming no test fails the run.
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
export function runStorageConformance(
  h: TestHarness,
  name: string,
  factory: () => Promise<StorageFixture>,
  options?: SuiteOptions,
): void {
  const { describe, expect } = h;
  const { expectBytes, expectInvalid, expectKeys } = assertions(expect);
  describe(`storage conformance: ${name}`, () => {
    const { test, done } = suiteRunner(h, `storage conformance (${name})`, options);
    // One generous timeout: file adapters fsync every write, servers add round trips.
    const t = (title: string, fn: (s: StorageAdapter) => Promise<void>) =>
      test(title, () => withFixture(factory, (f) => fn(f.storage)), 120_000);

    describe('get/put/delete', () => {
      t('get of a missing key is undefined', async (s) => {
        expect(await s.get('missing')).toBeUndefined();
      });

      t('put then get returns the bytes; put overwrites', async (s) => {
        await s.put('k', b('one'));
        expect(text(await s.get('k'))).toBe('one');
        await s.put('k', b('two, longer'));
        expect(text(await s.get('k'))).toBe('two, longer');
        await s.put('k', b('3'));
        expect(text(await s.get('k'))).toBe('3');
      });

      t('delete removes; deleting a missing key is fine', async (s) => {
        await s.put('k', b('v'));
        await s.delete('k');
        expect(await s.get('k')).toBeUndefined();
        await s.delete('k');
        await s.delete('never-existed');
        expect(await s.list('')).toEqual([]);
      });

      t('stored values are copies of the input and of the output', async (s) => {
        const input = b('abc');
        await s.put('k', input);
        input[0] = 0x7a;
        const out = await s.get('k');
        expect(text(out)).toBe('abc');
        (out as Uint8Array)[1] = 0x7a;
        expect(text(await s.get('k'))).toBe('abc');
      });

      t('the value is captured when put is called', async (s) => {
        const input = b('abc');
        const pending = s.put('k', input);
        input.fill(0x7a);
        await pending;
        expect(text(await s.get('k'))).toBe('abc');
      });

      t('a subarray view stores only its own bytes', async (s) => {
        const whole = b('0123456789');
        await s.put('k', whole.subarray(3, 6));
        expect(text(await s.get('k'))).toBe('345');
      });

      t('binary values with all 256 byte values round-trip', async (s) => {
        const all = Uint8Array.from({ length: 512 }, (_, i) => (i < 256 ? i : 511 - i));
        await s.put('bin', all);
        expectBytes(await s.get('bin'), all);
      });

      t('an empty value (0 bytes) is stored and distinct from absent', async (s) => {
        await s.put('empty', new Uint8Array(0));
        const got = await s.get('empty');
        expect(got).toBeInstanceOf(Uint8Array);
        expect(got?.length).toBe(0);
        expect(await s.list('')).toEqual(['empty']);
        expect(await s.compareAndSet('empty', undefined, b('x'))).toBe(false);
        expect(await s.compareAndSet('empty', new Uint8Array(0), b('x'))).toBe(true);
        expect(text(await s.get('empty'))).toBe('x');
      });

      t('large values (8 MiB) round-trip', async (s) => {
        const big = new Uint8Array(8 * 1024 * 1024);
        for (let i = 0; i < big.length; i++) big[i] = (i * 31 + (i >>> 13)) & 255;
        await s.put('big', big);
        expectBytes(await s.get('big'), big);
      });

      t('a 200-character key round-trips', async (s) => {
        const key = `long/${'k'.repeat(195)}`;
        await s.put(key, b('v'));
        expect(text(await s.get(key))).toBe('v');
        expect(await s.list('long/')).toEqual(['k'.repeat(195)]);
      });
    });

    describe('keys', () => {
      t('unicode keys round-trip; NFC and NFD are distinct keys', async (s) => {
        await putKeys(s, UNICODE_KEYS);
        await expectKeys(s, UNICODE_KEYS);
      });

      t('keys are case-sensitive', async (s) => {
        await putKeys(s, ['key', 'Key', 'KEY']);
        await expectKeys(s, ['key', 'Key', 'KEY']);
      });

      t('keys with slashes, dots, spaces and path syntax are ordinary keys', async (s) => {
        await putKeys(s, PATH_KEYS);
        await expectKeys(s, PATH_KEYS);
      });
    });

    listConformance(h, t);
    casConformance(h, t);

    describe('invalid input', () => {
      // empty, NUL, lone high / low surrogates
      const badKeys: Array<[string, RegExp]> = [
        ['', /empty/],
        ['a\0b', /NUL/],
        ['\0', /NUL/],
        ['a\ud800', /surrogate|Unicode/],
        ['\udc00b', /surrogate|Unicode/],
      ];

      t('invalid keys are refused with invalid_request by every method', async (s) => {
        for (const [key, message] of badKeys) {
          await expectInvalid(() => s.get(key), message);
          await expectInvalid(() => s.put(key, b('v')), message);
          await expectInvalid(() => s.delete(key), message);
          await expectInvalid(() => s.compareAndSet(key, undefined, b('v')), message);
        }
        await expectInvalid(() => s.get(42 as unknown as string), /string/);
        await expectInvalid(() => s.put(undefined as unknown as string, b('v')), /string/);
        // a lone surrogate must not alias its U+FFFD replacement
        await s.put('a\ufffd', b('replacement'));
        await expectInvalid(() => s.compareAndSet('a\ud800', b('replacement'), undefined));
        expect(await s.list('')).toEqual(['a\ufffd']);
      });

      t('a value that is not a Uint8Array is refused with invalid_request', async (s) => {
        const bad: unknown[] = [
          'text',
          [1, 2],
          new ArrayBuffer(2),
          undefined,
          null,
          7,
          new Uint16Array(2),
        ];
        for (const v of bad) {
          await expectInvalid(() => s.put('k', v as Uint8Array), /Uint8Array/);
          // (for compareAndSet, `next === undefined` is valid: it means delete)
          if (v !== undefined) {
            await expectInvalid(
              () => s.compareAndSet('k', undefined, v as Uint8Array),
              /Uint8Array/,
            );
          }
        }
        await expectInvalid(
          () => s.compareAndSet('k', 'x' as unknown as Uint8Array, b('v')),
          /Uint8Array/,
        );
        expect(await s.list('')).toEqual([]);
      });
    });

    test('close is idempotent', async () => {
      const f = await factory();
      try {
        await f.storage.close?.();
        await f.storage.close?.();
      } finally {
        await f.cleanup?.();
      }
    });

    done();
  });
}
