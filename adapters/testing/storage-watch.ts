/**
 * Conformance group for the {@link StorageWatch} capability: change
 * notifications used to invalidate other instances' caches.
 *
 * As in storage-lock.ts, the factory may return a `peer` (a second instance over
 * the same backing store): writes then go through the peer and notifications are
 * expected on `storage`, which is the real use. Without a peer both are the same
 * instance (memory: subscribers share the instance).
 *
 * Notifications are asynchronous, so absence is proven with a sentinel: a later
 * write under the watched prefix is awaited, and only then is the record checked.
 * Presence is awaited by re-checking every 5 ms for up to 5 s (no fixed sleeps).
 *
 * @module
 */
import type { StorageAdapter, StorageWatch } from 'transitkit';
import { type SuiteOptions, suiteRunner, type TestHarness, withFixture } from './harness.js';

/** What a watch factory returns: a fresh store with the watch capability. @public */
export interface WatchFixture {
  /** The store under test, empty, with the watch capability. */
  storage: StorageAdapter & StorageWatch;
  /** A second instance over the same backing store; writes go through it when given. */
  peer?: StorageAdapter;
  /** Tear down. Default: `storage.close?.()`. */
  cleanup?: () => Promise<void>;
}

const v = (s: string): Uint8Array => new TextEncoder().encode(s);

/** How long a notification may take to arrive. */
const NOTIFY_TIMEOUT_MS = 5_000;

/** Records notified keys. */
class Recorder {
  readonly keys: string[] = [];
  readonly onChange = (key: string): void => {
    this.keys.push(key);
  };
  /** Wait until `key` has been notified (re-checked every 5 ms, for up to 5 s). */
  async saw(key: string): Promise<void> {
    const deadline = Date.now() + NOTIFY_TIMEOUT_MS;
    while (!this.keys.includes(key)) {
      if (Date.now() > deadline) {
        throw new Error(
          `no change notification for ${JSON.stringify(key)} within ${NOTIFY_TIMEOUT_MS} ms (got ${JSON.stringify(this.keys)})`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}

/**
 * Register the watch conformance tests for one adapter.
 *
 * @example
 * ```ts
 * import { describe, expect, it } from 'vitest';
 * runWatchConformance({ describe, it, expect }, 'memory', async () => ({
 *   storage: new MemoryStorage(),
 * }));
 * ```
 * @public
 */
export function runWatchConformance(
  h: TestHarness,
  name: string,
  factory: () => Promise<WatchFixture>,
  options?: SuiteOptions,
): void {
  const { describe, expect } = h;
  describe(`watch conformance: ${name}`, () => {
    const { test, done } = suiteRunner(h, `watch conformance (${name})`, options);
    type Body = (s: StorageAdapter & StorageWatch, writer: StorageAdapter) => Promise<void>;
    const t = (title: string, fn: Body): void =>
      test(title, () => withFixture(factory, (f) => fn(f.storage, f.peer ?? f.storage)));

    t('put under the prefix notifies with the full key', async (s, w) => {
      const rec = new Recorder();
      await s.watch('policy/', rec.onChange);
      await w.put('policy/k1', v('1'));
      await rec.saw('policy/k1');
      expect(rec.keys).toEqual(['policy/k1']);
    });

    t('delete under the prefix notifies', async (s, w) => {
      await w.put('policy/k1', v('1'));
      const rec = new Recorder();
      await s.watch('policy/', rec.onChange);
      await w.delete('policy/k1');
      await rec.saw('policy/k1');
      expect(rec.keys).toEqual(['policy/k1']);
    });

    t('a successful compareAndSet notifies', async (s, w) => {
      const rec = new Recorder();
      await s.watch('policy/', rec.onChange);
      expect(await w.compareAndSet('policy/k1', undefined, v('1'))).toBe(true);
      await rec.saw('policy/k1');
      expect(await w.compareAndSet('policy/k2', undefined, v('2'))).toBe(true);
      await rec.saw('policy/k2');
    });

    t('writes under another prefix do not notify', async (s, w) => {
      const rec = new Recorder();
      await s.watch('policy/', rec.onChange);
      await w.put('other/k1', v('1'));
      await w.put('policy', v('1')); // the prefix without its slash is not under it
      await w.put('policy/sentinel', v('1'));
      await rec.saw('policy/sentinel');
      expect(rec.keys).toEqual(['policy/sentinel']);
    });

    t('an empty prefix watches every key', async (s, w) => {
      const rec = new Recorder();
      await s.watch('', rec.onChange);
      await w.put('a', v('1'));
      await w.put('b/c', v('1'));
      await rec.saw('b/c');
      expect(rec.keys).toEqual(['a', 'b/c']);
    });

    t('unsubscribe stops notifications; it is idempotent', async (s, w) => {
      const gone = new Recorder();
      const unsubscribe = await s.watch('policy/', gone.onChange);
      await w.put('policy/before', v('1'));
      await gone.saw('policy/before');
      await unsubscribe();
      await unsubscribe();
      const sentinel = new Recorder();
      await s.watch('policy/', sentinel.onChange);
      await w.put('policy/after', v('1'));
      await sentinel.saw('policy/after');
      expect(gone.keys).toEqual(['policy/before']);
    });

    t('a throwing listener breaks neither the write nor other listeners', async (s, w) => {
      await s.watch('policy/', () => {
        throw new Error('listener bug');
      });
      const rec = new Recorder();
      await s.watch('policy/', rec.onChange);
      await w.put('policy/k1', v('1'));
      await rec.saw('policy/k1');
      expect(await w.get('policy/k1')).toEqual(v('1'));
    });

    done();
  });
}
