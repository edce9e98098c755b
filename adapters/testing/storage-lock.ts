/**
 * Conformance group for the {@link StorageLock} capability: lease-based named
 * locks for leader duties.
 *
 * Like openbao's `ExerciseHABackend(t, b, b2)`, the factory may return a `peer`:
 * a second instance over the same backing store, acting as the other node. The
 * "other" taker in every test is the peer when given, else the same instance
 * (single-process adapters: memory, file). Expiry is driven by the fixture's
 * {@link FakeClock}; an adapter whose TTLs run on a server clock must skip those
 * tests with a reason.
 *
 * @module
 */
import type { StorageAdapter, StorageLock } from 'transitkit';
import type { FakeClock } from './fake-clock.js';
import {
  assertions,
  type SuiteOptions,
  suiteRunner,
  type TestHarness,
  withFixture,
} from './harness.js';

/** What a lock factory returns: a fresh store with the lock capability. @public */
export interface LockFixture {
  /** The store under test, empty, with the lock capability. */
  storage: StorageAdapter & StorageLock;
  /** A second instance over the same backing store (the other node). */
  peer?: StorageAdapter & StorageLock;
  /** Drives lease expiry; required by the expiry tests. */
  clock?: FakeClock;
  /** Tear down (close, delete files). Default: `storage.close?.()`. */
  cleanup?: () => Promise<void>;
}

/**
 * The lock tests that need `clock` from the fixture: an adapter whose lease
 * TTLs run on a server clock skips them, with a reason.
 * @public
 */
export const LOCK_CLOCK_TESTS: readonly string[] = [
  'the lease expires after its ttl; then another can take it',
  'refresh extends the lease',
  'refresh after the lease was lost returns false',
  'release after the lease was lost does not free the new holder',
];

/**
 * Register the lock conformance tests for one adapter.
 *
 * @example
 * ```ts
 * import { describe, expect, it } from 'vitest';
 * runLockConformance({ describe, it, expect }, 'memory', async () => {
 *   const clock = new FakeClock();
 *   return { storage: new MemoryStorage({ clock }), clock };
 * });
 * ```
 * @public
 */
export function runLockConformance(
  h: TestHarness,
  name: string,
  factory: () => Promise<LockFixture>,
  options?: SuiteOptions,
): void {
  const { describe, expect } = h;
  const { expectInvalid } = assertions(expect);
  describe(`lock conformance: ${name}`, () => {
    const { test, done } = suiteRunner(h, `lock conformance (${name})`, options);
    type Body = (
      a: StorageLock,
      other: StorageLock,
      clock: FakeClock | undefined,
      f: LockFixture,
    ) => Promise<void>;
    const t = (title: string, fn: Body): void =>
      test(title, () =>
        withFixture(factory, (f) => fn(f.storage, f.peer ?? f.storage, f.clock, f)),
      );
    const needClock = (clock: FakeClock | undefined): FakeClock => {
      if (clock === undefined) {
        throw new Error(
          'this test needs the factory to return a FakeClock; skip it with a reason otherwise',
        );
      }
      return clock;
    };

    t('lock returns a handle when the name is free', async (a) => {
      const h = await a.lock('leader', 10_000);
      expect(h).toBeDefined();
      expect(typeof h?.refresh).toBe('function');
      expect(typeof h?.release).toBe('function');
    });

    t('a second take is refused while the lock is held', async (a, other) => {
      expect(await a.lock('leader', 10_000)).toBeDefined();
      expect(await other.lock('leader', 10_000)).toBeUndefined();
      expect(await a.lock('leader', 10_000)).toBeUndefined(); // not re-entrant either
    });

    t('different names are independent', async (a, other) => {
      expect(await a.lock('one', 10_000)).toBeDefined();
      expect(await other.lock('two', 10_000)).toBeDefined();
      expect(await other.lock('one', 10_000)).toBeUndefined();
    });

    t(LOCK_CLOCK_TESTS[0] as string, async (a, other, c) => {
      const clock = needClock(c);
      expect(await a.lock('leader', 1_000)).toBeDefined();
      clock.advance(999);
      expect(await other.lock('leader', 1_000)).toBeUndefined();
      clock.advance(1);
      expect(await other.lock('leader', 1_000)).toBeDefined();
      expect(await a.lock('leader', 1_000)).toBeUndefined();
    });

    t(LOCK_CLOCK_TESTS[1] as string, async (a, other, c) => {
      const clock = needClock(c);
      const h = await a.lock('leader', 1_000);
      clock.advance(800);
      expect(await h?.refresh(1_000)).toBe(true);
      clock.advance(800); // 1,600 ms after the take: held only thanks to the refresh
      expect(await other.lock('leader', 1_000)).toBeUndefined();
      clock.advance(200); // 1,000 ms after the refresh
      expect(await other.lock('leader', 1_000)).toBeDefined();
    });

    t(LOCK_CLOCK_TESTS[2] as string, async (a, other, c) => {
      const clock = needClock(c);
      const h = await a.lock('leader', 100);
      clock.advance(100);
      const taker = await other.lock('leader', 1_000);
      expect(taker).toBeDefined();
      expect(await h?.refresh(1_000)).toBe(false);
      expect(await a.lock('leader', 1_000)).toBeUndefined(); // the new holder still holds it
      expect(await taker?.refresh(1_000)).toBe(true);
    });

    t('release lets another take it; release is idempotent', async (a, other) => {
      const h = await a.lock('leader', 10_000);
      await h?.release();
      await h?.release();
      const taker = await other.lock('leader', 10_000);
      expect(taker).toBeDefined();
      await h?.release(); // a stale handle must not free the new holder
      expect(await a.lock('leader', 10_000)).toBeUndefined();
      expect(await h?.refresh(10_000)).toBe(false);
    });

    t(LOCK_CLOCK_TESTS[3] as string, async (a, other, c) => {
      const clock = needClock(c);
      const h = await a.lock('leader', 100);
      clock.advance(150);
      expect(await other.lock('leader', 1_000)).toBeDefined();
      await h?.release();
      expect(await a.lock('leader', 1_000)).toBeUndefined();
    });

    t('locks are not visible as storage keys', async (a, _other, _c, f) => {
      await a.lock('leader', 10_000);
      expect(await f.storage.list('')).toEqual([]);
      expect(await f.storage.get('leader')).toBeUndefined();
    });

    t('a bad name or ttl is refused with invalid_request', async (a) => {
      // One rule on every adapter, as for storage keys: no NUL, no lone surrogate.
      for (const name of ['', 'leader\0x', 'leader\ud800', 'a\udbff']) {
        await expectInvalid(() => a.lock(name, 1_000), /name/);
      }
      // Beyond 2^31 - 1 ms a server overflows (an internal error) and a timer fires every 1 ms.
      for (const ttl of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31, 1e16]) {
        await expectInvalid(() => a.lock('leader', ttl), /ttl/);
      }
      const h = await a.lock('leader', 1_000);
      await expectInvalid(() => h?.refresh(0), /ttl/);
      await expectInvalid(() => h?.refresh(2 ** 31), /ttl/);
    });

    done();
  });
}
