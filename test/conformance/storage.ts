/**
 * The storage conformance suite: the core contract of `src/storage/adapter.ts`
 * (get/put/delete, list with pagination, compareAndSet, key validation), run
 * against every adapter.
 *
 * Shape (style.md, "How storage adapters share one conformance suite"):
 * - a name and a factory (unstorage `testDriver`), called once per test so every
 *   test gets a fresh, empty instance (keyv's factory);
 * - declared skips, each with a reason (hono `runTest`); a skip that names no
 *   existing test fails the run, so skips cannot rot;
 * - capability groups live next door: storage-lock.ts, storage-watch.ts.
 *
 * No `.test.ts` suffix: vitest runs it only through `test/adapters/*.test.ts`.
 * It imports nothing but vitest and transitkit's public error helpers, so it can
 * later ship as `transitkit/testing` for third-party adapters.
 *
 * @module
 */
import { describe, expect, it } from 'vitest';
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

const enc = new TextEncoder();
const dec = new TextDecoder();
const b = (s: string): Uint8Array => enc.encode(s);
const text = (u: Uint8Array | undefined): string | undefined =>
  u === undefined ? undefined : dec.decode(u);

/** Byte equality with a useful message (and fast on 8 MiB). */
function expectBytes(got: Uint8Array | undefined, want: Uint8Array): void {
  expect(got).toBeInstanceOf(Uint8Array);
  const g = got as Uint8Array;
  expect(g.length).toBe(want.length);
  let i = 0;
  while (i < want.length && g[i] === want[i]) i++;
  expect(i, `first differing byte at ${i}`).toBe(want.length);
}

/** Put `keys[i]` = `v${i}`, 50 at a time (file adapters fsync each write). */
async function putKeys(s: StorageAdapter, keys: readonly string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += 50) {
    await Promise.all(keys.slice(i, i + 50).map((k, j) => s.put(k, b(`v${i + j}`))));
  }
}

/** Every key has its own value (as written by {@link putKeys}) and list('') is exactly them. */
async function expectKeys(s: StorageAdapter, keys: readonly string[]): Promise<void> {
  for (const [i, k] of keys.entries())
    expect(text(await s.get(k)), JSON.stringify(k)).toBe(`v${i}`);
  expect(await s.list('')).toEqual(JS_ORDER(keys));
}

const UNICODE_KEYS = [
  ...['🔑', '鍵/秘密', 'ключ', 'مفتاح', '👨‍👩‍👧', '\uFEFFbom', '\u{10FFFF}'],
  ...['caf\u00e9', 'cafe\u0301'], // "café", NFC and NFD
  ...['\u00c5', '\u212b', 'A\u030a'], // "Å": NFC, angstrom sign, NFD
];

const PATH_KEYS = [
  ...['a/b/c', '/leading', 'trailing/', '//', '../../etc/passwd', './x', '.', '..', '...'],
  ...['.lock', '.tmp-x', 'a b', ' ', 'a%2fb', 'a/b', '%', '\\', 'a\\b', 'C:\\x', '~', '*?<>|"'],
  ...['con', 'NUL', 'line\nbreak', 'tab\t'],
];

const JS_ORDER = (keys: Iterable<string>): string[] => [...keys].sort();

/**
 * Register the core storage conformance tests for one adapter.
 *
 * @example
 * ```ts
 * runStorageConformance('memory', async () => ({ storage: new MemoryStorage() }));
 * ```
 */
export function runStorageConformance(
  name: string,
  factory: () => Promise<StorageFixture>,
  options?: SuiteOptions,
): void {
  describe(`storage conformance: ${name}`, () => {
    const { test, done } = suiteRunner(`storage conformance (${name})`, options);
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

    describe('list', () => {
      const tree = ['a', 'a/', 'a/b', 'a/b/c', 'a/c', 'ab', 'a0', 'b/a'];

      t('list returns the keys under a prefix, without it, sorted and flat', async (s) => {
        await putKeys(s, tree);
        expect(await s.list('a/')).toEqual(['', 'b', 'b/c', 'c']);
        expect(await s.list('a/b')).toEqual(['', '/c']);
        expect(await s.list('a/b/')).toEqual(['c']);
        expect(await s.list('a')).toEqual(['', '/', '/b', '/b/c', '/c', '0', 'b']);
        expect(await s.list('b/')).toEqual(['a']);
      });

      t('list with an empty prefix returns every key', async (s) => {
        await putKeys(s, tree);
        expect(await s.list('')).toEqual(JS_ORDER(tree));
      });

      t('list with a prefix that matches nothing is []', async (s) => {
        expect(await s.list('')).toEqual([]);
        expect(await s.list('x/')).toEqual([]);
        await putKeys(s, tree);
        expect(await s.list('x/')).toEqual([]);
        expect(await s.list('a/b/c/')).toEqual([]);
        expect(await s.list('0')).toEqual([]);
        expect(await s.list('zzz')).toEqual([]);
      });

      t('list orders by UTF-16 code unit (JS string order), not by code point', async (s) => {
        // U+FF21 < U+1F511 by code point, but 0xFF21 > 0xD83D (its high surrogate).
        await putKeys(s, ['\uff21', '🔑', 'z', 'é']);
        expect(await s.list('')).toEqual(['z', 'é', '🔑', '\uff21']);
      });

      t('a key equal to the prefix lists as "" and after "" skips it', async (s) => {
        await putKeys(s, ['p', 'p/', 'p/x']);
        expect(await s.list('p/')).toEqual(['', 'x']);
        expect(await s.list('p/', { limit: 1 })).toEqual(['']);
        expect(await s.list('p/', { after: '', limit: 1 })).toEqual(['x']);
        expect(await s.list('p/', { after: 'x' })).toEqual([]);
      });

      t('limit 0 or absent returns all; limit caps the page', async (s) => {
        await putKeys(s, tree);
        const all = JS_ORDER(tree);
        expect(await s.list('', { limit: 0 })).toEqual(all);
        expect(await s.list('', {})).toEqual(all);
        expect(await s.list('', { limit: 3 })).toEqual(all.slice(0, 3));
        expect(await s.list('', { limit: 1000 })).toEqual(all);
        expect(await s.list('a/', { after: 'b', limit: 0 })).toEqual(['b/c', 'c']);
      });

      t('after is relative to the prefix and need not exist', async (s) => {
        await putKeys(s, tree);
        expect(await s.list('a/', { after: 'b' })).toEqual(['b/c', 'c']);
        expect(await s.list('a/', { after: 'a' })).toEqual(['b', 'b/c', 'c']); // 'a/a' does not exist
        expect(await s.list('a/', { after: 'b/' })).toEqual(['b/c', 'c']);
        expect(await s.list('a/', { after: 'bz', limit: 1 })).toEqual(['c']);
        expect(await s.list('a/', { after: 'c' })).toEqual([]);
        expect(await s.list('a/', { after: '\uffff' })).toEqual([]);
        expect(await s.list('', { after: 'a0' })).toEqual(['ab', 'b/a']);
      });

      t('walks 1,000 keys in pages of 7 and gets exactly the sorted set', async (s) => {
        const keys = new Set<string>();
        for (let i = 0; i < 1000; i++) {
          const n = (i * 7919) % 1000; // a permutation of 0..999: insertion order is not sorted
          const forms = [`${n}/sub`, n.toString(36), `é${n}`, `🔑${n}`, `${n}`.padStart(4, '0')];
          keys.add(`p/${forms[i % 5]}`);
        }
        expect(keys.size).toBe(1000);
        const decoys = ['o/1', 'p', 'p.x', 'p0', 'q', 'P/1'];
        await putKeys(s, [...keys, ...decoys]);

        const want = JS_ORDER([...keys].map((k) => k.slice(2)));
        const got: string[] = [];
        let after: string | undefined;
        let pages = 0;
        for (;;) {
          const page = await s.list('p/', { after, limit: 7 });
          pages++;
          expect(page.length).toBeLessThanOrEqual(7);
          got.push(...page);
          if (page.length < 7) break;
          after = page[page.length - 1];
        }
        expect(got).toEqual(want);
        expect(pages).toBe(Math.floor(1000 / 7) + 1);
        expect(await s.list('p/')).toEqual(want);
      });

      t('list reflects deletes; overwrites do not duplicate', async (s) => {
        await putKeys(s, tree);
        await s.put('a/b', b('again'));
        await s.delete('a/b/c');
        await s.delete('a');
        expect(await s.list('a')).toEqual(['/', '/b', '/c', '0', 'b']);
      });

      t('bad list options are refused with invalid_request', async (s) => {
        await expectInvalid(() => s.list('', { limit: -1 }), /limit/);
        await expectInvalid(() => s.list('', { limit: 1.5 }), /limit/);
        await expectInvalid(() => s.list('', { limit: Number.NaN }), /limit/);
        await expectInvalid(() => s.list('', { after: 3 as unknown as string }), /after/);
        await expectInvalid(() => s.list(undefined as unknown as string), /prefix/);
      });
    });

    describe('compareAndSet', () => {
      t('compareAndSet: absent → value', async (s) => {
        expect(await s.compareAndSet('k', undefined, b('v1'))).toBe(true);
        expect(text(await s.get('k'))).toBe('v1');
        expect(await s.list('')).toEqual(['k']);
      });

      t('compareAndSet: value → value, comparing bytes not identity', async (s) => {
        await s.put('k', b('v1'));
        expect(await s.compareAndSet('k', b('v1'), b('v2'))).toBe(true);
        expect(text(await s.get('k'))).toBe('v2');
      });

      t('compareAndSet: a mismatch returns false and changes nothing', async (s) => {
        await s.put('k', b('v1'));
        expect(await s.compareAndSet('k', b('v0'), b('x'))).toBe(false);
        expect(await s.compareAndSet('k', b('v'), b('x'))).toBe(false); // a prefix of the value
        expect(await s.compareAndSet('k', b('v1+'), b('x'))).toBe(false); // longer
        expect(await s.compareAndSet('k', undefined, b('x'))).toBe(false); // present, expected absent
        expect(await s.compareAndSet('k', undefined, undefined)).toBe(false);
        expect(text(await s.get('k'))).toBe('v1');
        expect(await s.compareAndSet('absent', b('v1'), b('x'))).toBe(false); // absent, expected present
        expect(await s.compareAndSet('absent', new Uint8Array(0), b('x'))).toBe(false);
        expect(await s.get('absent')).toBeUndefined();
        expect(await s.list('')).toEqual(['k']);
      });

      t('compareAndSet with next undefined deletes', async (s) => {
        await s.put('k', b('v1'));
        expect(await s.compareAndSet('k', b('v1'), undefined)).toBe(true);
        expect(await s.get('k')).toBeUndefined();
        expect(await s.list('')).toEqual([]);
        expect(await s.compareAndSet('k', undefined, undefined)).toBe(true); // absent → absent
        expect(await s.list('')).toEqual([]);
      });

      t('compareAndSet keeps no reference to next', async (s) => {
        const next = b('v1');
        const pending = s.compareAndSet('k', undefined, next);
        next.fill(0x7a);
        expect(await pending).toBe(true);
        expect(text(await s.get('k'))).toBe('v1');
      });

      t('50 concurrent compareAndSet from one expected value: exactly one wins', async (s) => {
        for (let round = 0; round < 3; round++) {
          const start = b(`round-${round}`);
          await s.put('k', start);
          const results = await Promise.all(
            Array.from({ length: 50 }, (_, i) =>
              s.compareAndSet('k', b(`round-${round}`), b(`w${i}`)),
            ),
          );
          const winners = results.flatMap((ok, i) => (ok ? [i] : []));
          expect(winners).toHaveLength(1);
          expect(text(await s.get('k'))).toBe(`w${winners[0]}`);
        }
      });

      t('20 writers × 25 CAS increments with retry end at exactly 500', async (s) => {
        const writer = async () => {
          for (let n = 0; n < 25; n++) {
            for (;;) {
              const cur = await s.get('counter');
              const value = cur === undefined ? 0 : Number(text(cur));
              if (await s.compareAndSet('counter', cur, b(String(value + 1)))) break;
            }
          }
        };
        await Promise.all(Array.from({ length: 20 }, writer));
        expect(text(await s.get('counter'))).toBe('500');
      });
    });

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
