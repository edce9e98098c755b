/**
 * A storage view whose next read of an archived version (a key under
 * `transit/archive/`) waits, once armed, until the test releases it: the
 * moment between a call's read of a key's document and its read of an
 * archived version, where another instance can trim or delete the key.
 */
import { MemoryStorage, Transit } from '../../src/index.js';
import { FakeClock } from './fake-clock.js';
import { StorageView } from './storage-view.js';

/** Reads under `prefix` wait (before reading) until released, while armed. */
export class HoldingView extends StorageView {
  armed = false;
  readonly prefix = 'transit/archive/';
  #held: Array<() => void> = [];
  #onHold: Array<() => void> = [];
  override async get(key: string): Promise<Uint8Array | undefined> {
    if (this.armed && key.startsWith(this.prefix)) {
      this.armed = false;
      await new Promise<void>((resolve) => {
        this.#held.push(resolve);
        for (const f of this.#onHold.splice(0)) f();
      });
    }
    return this.inner.get(key);
  }
  /** Resolves once a read is held. */
  held(): Promise<void> {
    return new Promise((resolve) => {
      if (this.#held.length > 0) resolve();
      else this.#onHold.push(resolve);
    });
  }
  /** Let every held read go on. */
  release(): void {
    for (const go of this.#held.splice(0)) go();
  }
}

/**
 * Two instances on one store: `a` reads through a {@link HoldingView}, `b`
 * directly. `b` made key `k` (of `type`, default AES) and rotated it to 20
 * versions, so its early versions are archived.
 */
export async function racingInstances(
  type?: string,
): Promise<{ a: Transit; b: Transit; view: HoldingView }> {
  const clock = new FakeClock();
  const inner = new MemoryStorage({ clock });
  const view = new HoldingView(inner);
  const a = new Transit({ storage: view, clock, autoRotate: false });
  const b = new Transit({ storage: inner, clock, autoRotate: false });
  await b.createKey('k', type === undefined ? {} : { type });
  for (let i = 0; i < 19; i++) await b.rotateKey('k');
  return { a, b, view };
}
