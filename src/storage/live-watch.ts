/**
 * A storage watch kept live for a cache (the token store's and the ACL
 * policy store's): subscribed at once, retried at most once a second after a
 * failed subscription, and closed with its owner. A cache may trust what it
 * holds only while {@link LiveWatch.live} says so; until then (and after a
 * failure, and once closed) every use reads storage. When the subscription
 * goes live, `onChange(prefix)` is called once: anything read before it is
 * suspect.
 * @module
 */
import type { StorageAdapter, StorageWatch } from './adapter.js';

/** Delay before a failed watch subscription is tried again. */
const RETRY_MS = 1_000;

/** One watched prefix of one store. @internal */
export class LiveWatch {
  readonly #storage: StorageAdapter & StorageWatch;
  readonly #prefix: string;
  readonly #onChange: (key: string) => void;
  #live = false;
  #pending: Promise<void> | undefined;
  #stop: (() => Promise<void>) | undefined;
  #retryAt = 0;
  #closed = false;

  constructor(
    storage: StorageAdapter & StorageWatch,
    prefix: string,
    onChange: (key: string) => void,
  ) {
    this.#storage = storage;
    this.#prefix = prefix;
    this.#onChange = onChange;
    this.#subscribe();
  }

  /** Whether notifications flow now; when not, a due retry is started. */
  live(): boolean {
    if (this.#closed) return false;
    if (this.#live) return true;
    if (!this.#pending && Date.now() >= this.#retryAt) this.#subscribe();
    return false;
  }

  /** Resolves when the subscription under way (if any) succeeded or failed. */
  async settled(): Promise<void> {
    await this.#pending?.catch(() => undefined);
  }

  /** Unsubscribe; `live()` is false from now on. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#live = false;
    await this.#pending?.catch(() => undefined);
    const stop = this.#stop;
    this.#stop = undefined;
    await stop?.();
  }

  #subscribe(): void {
    if (this.#closed) return;
    const storage = this.#storage;
    this.#pending = Promise.resolve()
      .then(() => storage.watch(this.#prefix, this.#onChange))
      .then(
        async (stop) => {
          if (this.#closed) {
            await stop();
            return;
          }
          this.#stop = stop;
          this.#onChange(this.#prefix); // anything read before the subscription is suspect
          this.#live = true;
        },
        () => {
          this.#retryAt = Date.now() + RETRY_MS; // not live: every use reads storage
        },
      )
      .finally(() => {
        this.#pending = undefined;
      });
  }
}
