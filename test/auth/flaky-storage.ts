/**
 * A storage whose reads can be made to fail (an I/O error, a Redis timeout)
 * or to hang, per key prefix, over a real MemoryStorage. Writes, lists and
 * `watch` pass through. Not a test file.
 */

import { MemoryStorage } from '../../src/storage/memory.js';
import { StorageView } from '../helpers/storage-view.js';

/** A MemoryStorage (or a view of one) whose `get` fails for keys under armed prefixes. */
export class FlakyStorage extends StorageView {
  /** Prefixes whose reads throw. */
  readonly failing = new Set<string>();
  /** Prefixes whose reads wait for {@link FlakyStorage.release}. */
  readonly holding = new Set<string>();
  #held: Array<() => void> = [];
  /** How many reads matched a held prefix so far. */
  heldCount = 0;

  constructor(inner: MemoryStorage = new MemoryStorage()) {
    super(inner);
  }

  /** Let every held read continue. */
  release(): void {
    for (const go of this.#held.splice(0)) go();
  }

  override async get(key: string): Promise<Uint8Array | undefined> {
    const hold = [...this.holding].some((p) => key.startsWith(p));
    // Read first, then wait: the value returned is the one from before the wait.
    const value = await this.inner.get(key);
    if (hold) {
      this.heldCount++;
      await new Promise<void>((resolve) => this.#held.push(resolve));
    }
    if ([...this.failing].some((p) => key.startsWith(p))) {
      throw new Error(`simulated I/O error (ETIMEDOUT) reading ${key}`);
    }
    return value;
  }
}

/** Poll `check` until it returns true (a generous deadline: the machine is shared and noisy). */
export async function eventually(
  check: () => Promise<boolean>,
  what: string,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A storage whose `n`-th delete of a token entry, once armed, fails. */
export class FailingEntryDelete extends StorageView {
  armed = false;
  #deletes = 0;
  constructor(
    inner: MemoryStorage,
    readonly n: number,
  ) {
    super(inner);
  }
  override async delete(key: string): Promise<void> {
    if (this.armed && key.startsWith('auth/token/id/') && ++this.#deletes === this.n) {
      this.armed = false;
      throw new Error('simulated storage outage');
    }
    return this.inner.delete(key);
  }
}
