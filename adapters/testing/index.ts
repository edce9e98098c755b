/**
 * `transitkit/testing`: the storage conformance suite that transitkit's own
 * adapters (memory, file, Redis, PostgreSQL) pass, for a third-party
 * `StorageAdapter` to run as well, and the hand-driven clock it uses for lease
 * expiry. The suites register tests with the caller's runner (`{ describe, it,
 * expect }` from vitest or jest): no test framework is a dependency of
 * transitkit. The guide is docs/testing.md in the repository.
 *
 * @example
 * ```ts
 * import { describe, expect, it } from 'vitest';
 * import { MemoryStorage } from 'transitkit';
 * import { FakeClock, runLockConformance, runStorageConformance } from 'transitkit/testing';
 *
 * runStorageConformance({ describe, it, expect }, 'memory', async () => ({
 *   storage: new MemoryStorage(),
 * }));
 * runLockConformance({ describe, it, expect }, 'memory', async () => {
 *   const clock = new FakeClock();
 *   return { storage: new MemoryStorage({ clock }), clock };
 * });
 * ```
 *
 * @packageDocumentation
 */
export { FAKE_CLOCK_START, FakeClock } from './fake-clock.js';
export type {
  ConformanceMatchers,
  SkipRule,
  StorageFixture,
  SuiteOptions,
  TestHarness,
} from './harness.js';
export { runStorageConformance } from './storage.js';
export { LOCK_CLOCK_TESTS, type LockFixture, runLockConformance } from './storage-lock.js';
export { runWatchConformance, type WatchFixture } from './storage-watch.js';
