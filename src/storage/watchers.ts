/**
 * The watcher side of a change feed, shared by the adapters whose feed comes
 * from a server (Redis pub/sub, PostgreSQL LISTEN/NOTIFY): the set of
 * watchers, the fan-out of one changed key to the watchers whose prefix
 * matches, and the full report an adapter sends when notifications may have
 * been lost (after a reconnection): each watcher is told about its prefix
 * itself (anything under it may have changed, deletions included, which no
 * listing can show), then about every key under it, page by page. A feed
 * owns only its connection and its reconnection policy.
 *
 * A watcher's own exception is its own: the write already happened, so it is
 * swallowed and the other watchers are still told.
 *
 * @module
 */
import { invalidRequest } from '../errors.js';

/** Lists the keys under a prefix (suffixes, without it), after `after`, one page. @internal */
export type KeyPager = (prefix: string, after: string | undefined) => Promise<string[]>;

/** Keys per page of a full report. @internal */
export const REPLAY_PAGE = 1_000;

interface Watcher {
  readonly prefix: string;
  readonly onChange: (key: string) => void;
}

/** The watchers of one store. @internal */
export class Watchers {
  readonly #set = new Set<Watcher>();
  readonly #page: KeyPager;

  /** @param page - lists keys under a prefix, {@link REPLAY_PAGE} at a time. */
  constructor(page: KeyPager) {
    this.#page = page;
  }

  /**
   * Check a `watch` call's arguments before the feed does any work.
   * @throws TransitError `invalid_request` for a prefix that is not a string or
   * a listener that is not a function.
   */
  static check(prefix: unknown, onChange: unknown): void {
    if (typeof prefix !== 'string') throw invalidRequest('watch prefix must be a string');
    if (typeof onChange !== 'function') throw invalidRequest('watch onChange must be a function');
  }

  /** Add a watcher; returns its unsubscribe function. */
  add(prefix: string, onChange: (key: string) => void): () => Promise<void> {
    const watcher: Watcher = { prefix, onChange };
    this.#set.add(watcher);
    return async () => {
      this.#set.delete(watcher);
    };
  }

  /** Drop every watcher. */
  clear(): void {
    this.#set.clear();
  }

  /** Tell each watcher whose prefix matches that `key` changed. */
  dispatch(key: string): void {
    for (const watcher of this.#set) {
      if (key.startsWith(watcher.prefix)) this.#call(watcher, key);
    }
  }

  /** The full report: every watcher's prefix itself, then every key under it. */
  async reportAll(): Promise<void> {
    for (const watcher of [...this.#set]) {
      this.#call(watcher, watcher.prefix);
      let after: string | undefined;
      for (;;) {
        const page = await this.#page(watcher.prefix, after);
        for (const suffix of page) this.#call(watcher, watcher.prefix + suffix);
        if (page.length < REPLAY_PAGE) break;
        after = page[page.length - 1];
      }
    }
  }

  #call(watcher: Watcher, key: string): void {
    if (!this.#set.has(watcher)) return; // unsubscribed in the meantime
    try {
      watcher.onChange(key);
    } catch {
      // A listener's failure is its own; the write already happened.
    }
  }
}
