/**
 * `watch` for the PostgreSQL adapter: LISTEN on the store's channel over one
 * connection taken from the pool (held for as long as the store is open), opened
 * on the first `watch`, fanning each notification out to the watchers whose
 * prefix matches.
 *
 * Every write statement notifies with the changed key (schema.ts); PostgreSQL
 * delivers a notification only when the write committed, to every listening
 * session at once. Notifications are not queued for a session that is not
 * there: when the listening connection is lost, the feed reconnects (backing off
 * from 50 ms to 1 s, until the store is closed), LISTENs again, and then sends
 * the full report of `src/storage/watchers.ts` (each watcher's prefix itself,
 * then every key under it: "may have changed"), so caches are invalidated in
 * full instead of going stale, deletions made meanwhile included. An empty payload (a key too
 * long for NOTIFY) triggers the same full report.
 *
 * @module
 */
import type { Notification, Pool, PoolClient } from 'pg';
import { type KeyPager, Watchers } from '../../src/storage/watchers.js';
import { pgFailure } from './errors.js';

/** The listening connection, and how to give it up (once). */
interface Held {
  readonly client: PoolClient;
  readonly drop: () => void;
}

const MIN_BACKOFF_MS = 50;
const MAX_BACKOFF_MS = 1_000;

/** @internal */
export class ChangeFeed {
  readonly #pool: Pool;
  readonly #channel: string;
  readonly #watchers: Watchers;
  #listener: Promise<Held> | undefined;
  #held: Held | undefined;
  #closed = false;
  #retry: ReturnType<typeof setTimeout> | undefined;

  /** @param page - lists keys under a prefix (without it), one page at a time. */
  constructor(pool: Pool, channel: string, page: KeyPager) {
    this.#pool = pool;
    this.#channel = channel;
    this.#watchers = new Watchers(page);
  }

  /** Add a watcher; resolves once the channel is listened to. */
  async watch(prefix: string, onChange: (key: string) => void): Promise<() => Promise<void>> {
    Watchers.check(prefix, onChange);
    this.#listener ??= this.#listen();
    try {
      await this.#listener;
    } catch (e) {
      this.#listener = undefined;
      throw pgFailure('watch', e);
    }
    return this.#watchers.add(prefix, onChange);
  }

  /** Drop every watcher and give the listening connection back (closed). Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#watchers.clear();
    clearTimeout(this.#retry);
    const pending = this.#listener;
    this.#listener = undefined;
    await pending?.catch(() => undefined);
    const held = this.#held;
    this.#held = undefined;
    held?.drop(); // a LISTENing session is not handed to anyone else: it is closed
  }

  /** Take a connection, LISTEN, and watch it for loss. */
  async #listen(): Promise<Held> {
    const client = await this.#pool.connect();
    let dropped = false;
    const held: Held = {
      client,
      drop: () => {
        if (dropped) return;
        dropped = true;
        if (this.#held === held) this.#held = undefined;
        client.release(true);
      },
    };
    const onLost = (): void => {
      if (dropped) return;
      held.drop();
      this.#reconnect(MIN_BACKOFF_MS);
    };
    // Errors of a held client are emitted on it; without a listener they would crash the process.
    client.on('error', onLost);
    client.on('end', onLost);
    client.on('notification', (n: Notification) => {
      if (n.channel === this.#channel) this.#dispatch(n.payload ?? '');
    });
    try {
      await client.query(`LISTEN "${this.#channel}"`);
    } catch (e) {
      held.drop();
      throw e;
    }
    if (this.#closed) {
      held.drop();
      throw new Error('closed');
    }
    this.#held = held;
    return held;
  }

  /** After losing the listening connection: listen again, then report every key. */
  #reconnect(delayMs: number): void {
    if (this.#closed) return;
    this.#retry = setTimeout(() => {
      this.#listen().then(
        (held) => {
          this.#listener = Promise.resolve(held);
          this.#watchers.reportAllRetrying();
        },
        () => this.#reconnect(Math.min(delayMs * 2, MAX_BACKOFF_MS)),
      );
    }, delayMs);
    this.#retry.unref?.();
  }

  #dispatch(key: string): void {
    if (key === '') {
      this.#watchers.reportAllRetrying(); // a key too long for NOTIFY changed
      return;
    }
    this.#watchers.dispatch(key);
  }
}
