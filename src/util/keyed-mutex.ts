/**
 * Per-name async mutual exclusion in one process: read-modify-write of a key
 * (rotate, config, trim, …) runs one at a time per name; different names do
 * not wait for each other.
 * @module
 */

/** @internal */
export class KeyedMutex {
  #tails = new Map<string, Promise<void>>();

  /** Run `fn` holding the lock for `name`. */
  async run<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.#tails.get(name) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => {
      release = r;
    });
    const tail = prev.then(() => mine);
    this.#tails.set(name, tail);
    await prev;
    try {
      return await fn();
    } finally {
      release();
      if (this.#tails.get(name) === tail) this.#tails.delete(name);
    }
  }
}
