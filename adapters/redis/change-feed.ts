/**
 * `watch` for the Redis adapter: one pub/sub subscriber connection per store,
 * opened on the first `watch`, fanning each message out to the watchers whose
 * prefix matches.
 *
 * Every write script publishes the changed key on the store's channel (inside
 * the script, so a notification is never sent for a write that did not happen).
 * Pub/sub does not queue: messages published while the subscriber is
 * disconnected are lost. So after each reconnection, once the channel is
 * subscribed again, every watcher is told about its prefix itself (anything
 * under it may have changed, deletions included, which no listing can show),
 * then about every key under its prefix ("may have changed"): caches are
 * invalidated in full instead of going stale.
 *
 * @module
 */
import type { Cluster, Redis } from 'ioredis';
import { invalidRequest } from '../../src/errors.js';
import { redisFailure } from './errors.js';

interface Watcher {
  readonly prefix: string;
  readonly onChange: (key: string) => void;
}

/** Lists every key under a prefix, page by page. @internal */
export type KeyPager = (prefix: string, after: string | undefined) => Promise<string[]>;

/** Keys per page of the replay after a reconnection. @internal */
export const REPLAY_PAGE = 1_000;

/** @internal */
export class ChangeFeed {
  readonly #client: Redis | Cluster;
  readonly #channel: string;
  readonly #page: KeyPager;
  readonly #watchers = new Set<Watcher>();
  #subscriber: Promise<Redis | Cluster> | undefined;
  #closed = false;

  /** @param page - lists keys under a prefix (without it), {@link REPLAY_PAGE} at a time. */
  constructor(client: Redis | Cluster, channel: string, page: KeyPager) {
    this.#client = client;
    this.#channel = channel;
    this.#page = page;
  }

  /** Add a watcher; resolves once the channel is subscribed. */
  async watch(prefix: string, onChange: (key: string) => void): Promise<() => Promise<void>> {
    if (typeof prefix !== 'string') throw invalidRequest('watch prefix must be a string');
    if (typeof onChange !== 'function') throw invalidRequest('watch onChange must be a function');
    this.#subscriber ??= this.#subscribe();
    try {
      await this.#subscriber;
    } catch (e) {
      this.#subscriber = undefined;
      throw redisFailure('watch', e);
    }
    const watcher: Watcher = { prefix, onChange };
    this.#watchers.add(watcher);
    return async () => {
      this.#watchers.delete(watcher);
    };
  }

  /** Drop every watcher and disconnect the subscriber. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#watchers.clear();
    const pending = this.#subscriber;
    this.#subscriber = undefined;
    const sub = await pending?.catch(() => undefined);
    sub?.disconnect();
  }

  async #subscribe(): Promise<Redis | Cluster> {
    const sub = this.#client.duplicate();
    // Reconnection errors are expected while the server is away; commands report them.
    sub.on('error', () => undefined);
    sub.on('message', (channel: string, key: string) => {
      if (channel === this.#channel) this.#dispatch(key);
    });
    try {
      await sub.subscribe(this.#channel);
    } catch (e) {
      sub.disconnect();
      throw e;
    }
    if (this.#closed) {
      sub.disconnect();
      throw new Error('closed');
    }
    // From now on, every 'ready' is a reconnection after a gap.
    sub.on('ready', () => {
      this.#resume(sub).catch(() => undefined);
    });
    return sub;
  }

  /** After a reconnection: subscribe (again), then report every key as changed. */
  async #resume(sub: Redis | Cluster): Promise<void> {
    await sub.subscribe(this.#channel);
    for (const watcher of [...this.#watchers]) {
      this.#call(watcher, watcher.prefix); // keys deleted meanwhile cannot be listed
      let after: string | undefined;
      for (;;) {
        const page = await this.#page(watcher.prefix, after);
        for (const suffix of page) this.#call(watcher, watcher.prefix + suffix);
        if (page.length < REPLAY_PAGE) break;
        after = page[page.length - 1];
      }
    }
  }

  #dispatch(key: string): void {
    for (const watcher of this.#watchers) {
      if (key.startsWith(watcher.prefix)) this.#call(watcher, key);
    }
  }

  #call(watcher: Watcher, key: string): void {
    if (!this.#watchers.has(watcher)) return; // unsubscribed in the meantime
    try {
      watcher.onChange(key);
    } catch {
      // A listener's failure is its own; the write already happened.
    }
  }
}
