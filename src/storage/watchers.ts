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
 * swallowed and the other watchers are still told. A listing that fails
 * stops no other watcher's report, and the feed tries the report again.
 *
 * @module
 */
import { invalidRequest } from '../errors.js';

/** Lists the keys under a prefix (suffixes, without it), after `after`, one page. @internal */
export type KeyPager = (prefix: string, after: string | undefined) => Promise<string[]>;

/** Keys per page of a full report. @internal */
export const REPLAY_PAGE = 1_000;
/** The longest pause between tries of a failed full report. */
const MAX_RETRY_MS = 30_000;

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

  /**
   * The full report: every watcher's prefix itself first (at once, so no
   * watcher waits on another's listing), then every key under each prefix.
   * A listing that fails does not stop the others'; the first failure is
   * thrown once all have run, for the feed to report again.
   */
  async reportAll(): Promise<void> {
    const watchers = [...this.#set];
    for (const watcher of watchers) this.#call(watcher, watcher.prefix);
    const listed = await Promise.allSettled(watchers.map((w) => this.#reportKeys(w)));
    const failed = listed.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /**
   * {@link reportAll}, tried again after a failure (250 ms, doubling up to
   * 30 s) until it succeeds: a feed calls this after a reconnection, where a
   * listing that failed once would leave caches to notice only by age.
   * It ends once every watcher is gone (the store closed).
   */
  reportAllRetrying(delayMs = 250): void {
    this.reportAll().catch(() => {
      if (this.#set.size === 0) return;
      const next = () => this.reportAllRetrying(Math.min(delayMs * 2, MAX_RETRY_MS));
      (setTimeout(next, delayMs) as { unref?: () => void }).unref?.();
    });
  }

  /** Every key under one watcher's prefix, page by page. */
  async #reportKeys(watcher: Watcher): Promise<void> {
    let after: string | undefined;
    for (;;) {
      if (!this.#set.has(watcher)) return;
      const page = await this.#page(watcher.prefix, after);
      for (const suffix of page) this.#call(watcher, watcher.prefix + suffix);
      if (page.length < REPLAY_PAGE) return;
      after = page[page.length - 1];
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
