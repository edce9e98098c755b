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
import { type KeyPager, Watchers } from '../../src/storage/watchers.js';
import { redisFailure } from './errors.js';

/** @internal */
export class ChangeFeed {
  readonly #client: Redis | Cluster;
  readonly #channel: string;
  readonly #watchers: Watchers;
  #subscriber: Promise<Redis | Cluster> | undefined;
  #closed = false;

  /** @param page - lists keys under a prefix (without it), one page at a time. */
  constructor(client: Redis | Cluster, channel: string, page: KeyPager) {
    this.#client = client;
    this.#channel = channel;
    this.#watchers = new Watchers(page);
  }

  /** Add a watcher; resolves once the channel is subscribed. */
  async watch(prefix: string, onChange: (key: string) => void): Promise<() => Promise<void>> {
    Watchers.check(prefix, onChange);
    this.#subscriber ??= this.#subscribe();
    try {
      await this.#subscriber;
    } catch (e) {
      this.#subscriber = undefined;
      throw redisFailure('watch', e);
    }
    return this.#watchers.add(prefix, onChange);
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
      if (channel === this.#channel) this.#watchers.dispatch(key);
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

  /** After a reconnection: subscribe (again), then the full report (tried again until it lands). */
  async #resume(sub: Redis | Cluster): Promise<void> {
    await sub.subscribe(this.#channel);
    this.#watchers.reportAllRetrying();
  }
}
