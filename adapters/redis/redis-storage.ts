/**
 * `RedisStorage`: the storage adapter for several processes sharing one Redis
 * (standalone or Cluster), with compare-and-set, leader locks and cross-instance
 * change notifications.
 *
 * Shape, and why:
 * - Values are Redis strings (binary-safe). A sorted set (`ZADD` score 0) holds
 *   every key, encoded as UTF-16BE so that Redis' byte order is JavaScript's
 *   string order; `list` is one `ZRANGEBYLEX … LIMIT`, O(log n + page).
 * - Every write is one Lua script (key-layout.ts, scripts.ts): value, index and
 *   the pub/sub notification change together, atomically across processes.
 *   Each carries a random id and a deadline on the server's clock
 *   (server-clock.ts), so that ioredis' re-send of a write whose reply was
 *   lost takes effect at most once (scripts.ts, `writeOnce`).
 * - All Redis keys of a store share the hash tag `{prefix}`: one Cluster slot,
 *   so multi-key scripts are Cluster-safe.
 * - `lock` is SET NX PX with a random token (redis-lock.ts); `watch` is pub/sub
 *   on a second connection (change-feed.ts).
 * - Failures are `TransitError` `internal` with a message that names the
 *   operation and, for connection problems, says `Redis is unreachable`.
 *
 * @module
 */
import { Buffer } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
// Public types come from the package entry, so the built declarations of this
// subpath refer to `transitkit` instead of carrying copies of them.
import type {
  ListOptions,
  LockHandle,
  StorageAdapter,
  StorageLock,
  StorageWatch,
} from 'transitkit';
import { internal, invalidRequest } from '../../src/errors.js';
import { checkBytes, checkKey, checkListArgs, copyBytes } from '../../src/storage/kit.js';
import { REPLAY_PAGE } from '../../src/storage/watchers.js';
import { redactUrl } from '../../src/util/redact-url.js';
import { ChangeFeed } from './change-feed.js';
import { describe, isConnectionError, redisFailure } from './errors.js';
import {
  channelScope,
  decodeMember,
  encodeMember,
  type KeyLayout,
  layoutFor,
  lexRange,
} from './key-layout.js';
import { acquireLock } from './redis-lock.js';
import {
  COMPARE_AND_SET,
  DELETE,
  OUTCOME_TTL_MS,
  PUT,
  runScript,
  type Script,
  WRITE_WINDOW_MS,
} from './scripts.js';
import { ServerClock } from './server-clock.js';

/** Options of {@link RedisStorage}. @public */
export interface RedisStorageOptions {
  /**
   * Prefix of every Redis key of this store, used as its Cluster hash tag
   * (`{prefix}`). Stores with different prefixes share a server without seeing
   * each other. Default `transitkit:`. No `{`, `}` or NUL.
   */
  prefix?: string;
}

/**
 * A storage adapter on Redis (standalone or Cluster) for many instances.
 *
 * Keep Redis durable: `appendonly yes` (with `appendfsync always` if no
 * acknowledged write may be lost in a power failure; `everysec` loses at most
 * about a second). The adapter survives server restarts through ioredis'
 * reconnection: commands issued meanwhile are queued and run once it is back.
 * A write takes effect at most once even when ioredis re-sends it after a lost
 * reply; one that reaches Redis more than a minute after it was issued runs
 * nothing and fails as "may or may not have been applied", as does a write
 * whose reply ioredis stopped waiting for. Each write's outcome is kept for
 * about two minutes in `{prefix}ops` (a hash, not keys with a TTL). Run Redis
 * with `maxmemory-policy noeviction`: any other policy may evict the store's
 * data, and an `allkeys-*` one those outcomes too.
 *
 * @throws `TransitError` `invalid_request` for an empty key, NUL, a lone surrogate,
 * a value that is not a `Uint8Array`, or bad list/lock/watch arguments;
 * `internal` when Redis fails or is unreachable, and after `close`.
 *
 * @example
 * ```ts
 * import { Transit } from 'transitkit';
 * import { RedisStorage } from 'transitkit/adapters/redis';
 *
 * const storage = await RedisStorage.connect('redis://127.0.0.1:6379/0');
 * const transit = new Transit({ storage });
 * await transit.createKey('orders');
 * // …
 * await transit.close();
 * await storage.close();
 * ```
 * @public
 */
export class RedisStorage implements StorageAdapter, StorageLock, StorageWatch {
  /** The key prefix (hash tag) of this store. */
  readonly prefix: string;
  readonly #client: Redis | Cluster;
  #owned = false;
  readonly #layout: KeyLayout;
  readonly #feed: ChangeFeed;
  readonly #clock: ServerClock;
  #closing: Promise<void> | undefined;

  /**
   * Use an ioredis client (`Redis` or `Cluster`) that you own: {@link RedisStorage.close}
   * leaves it open. Watching opens one extra connection (`client.duplicate()`).
   * @throws `TransitError` `invalid_request` for a bad prefix or a missing client.
   */
  constructor(client: Redis | Cluster, options: RedisStorageOptions = {}) {
    if (typeof (client as Partial<Redis> | undefined)?.evalsha !== 'function') {
      throw invalidRequest('RedisStorage needs an ioredis Redis or Cluster client');
    }
    this.#client = client;
    this.#layout = layoutFor(
      options.prefix,
      channelScope(
        (client as Partial<Cluster>).isCluster
          ? (client as Cluster).options.redisOptions
          : (client as Redis).options,
      ),
    );
    this.prefix = this.#layout.prefix;
    this.#clock = new ServerClock(client, this.#layout.index);
    this.#feed = new ChangeFeed(client, this.#layout.channel, (prefix, after) =>
      this.#page(prefix, after, REPLAY_PAGE),
    );
  }

  /**
   * Connect to `url` (`redis://[user:password@]host:port/db`, or `rediss://` for
   * TLS) with ioredis' defaults (reconnect forever; a command fails after 20
   * reconnection attempts). {@link RedisStorage.close} disconnects this client.
   * @throws `TransitError` `invalid_request` for a bad URL or prefix; `internal`
   * (`Redis is unreachable`) when the first connection fails, or when ioredis is
   * not installed.
   */
  static async connect(url: string, options: RedisStorageOptions = {}): Promise<RedisStorage> {
    if (typeof url !== 'string' || !/^rediss?:\/\//.test(url)) {
      throw invalidRequest('RedisStorage.connect: url must start with redis:// or rediss://');
    }
    layoutFor(options.prefix); // validate before connecting
    let RedisClient: typeof Redis;
    try {
      ({ Redis: RedisClient } = await import('ioredis'));
    } catch (e) {
      throw internal(
        `RedisStorage needs the ioredis package (npm install ioredis): ${describe(e)}`,
      );
    }
    let client: Redis;
    try {
      client = new RedisClient(url, { lazyConnect: true });
    } catch {
      // ioredis's own error quotes the whole URL, password included.
      throw invalidRequest(
        `RedisStorage.connect: ${redactUrl(url)} is not a URL ioredis can read (percent-encode reserved characters in the password)`,
      );
    }
    client.on('error', () => undefined); // reported by the commands that fail
    try {
      await client.connect();
    } catch (e) {
      client.disconnect();
      throw internal(
        `RedisStorage: cannot connect to ${redactUrl(url)}: Redis is unreachable (${describe(e)})`,
      );
    }
    const storage = new RedisStorage(client, options);
    storage.#owned = true;
    return storage;
  }

  /** The value at `key` (a fresh copy), or `undefined`. */
  async get(key: string): Promise<Uint8Array | undefined> {
    checkKey(key);
    this.#checkOpen();
    const buf = await this.#io('get', () => this.#client.getBuffer(this.#layout.value(key)));
    // A copy: ioredis may hand out a slice of a larger reply buffer.
    return buf === null ? undefined : new Uint8Array(buf);
  }

  /** Store `value` at `key` (captured when called); notifies watchers. */
  async put(key: string, value: Uint8Array): Promise<void> {
    checkKey(key);
    const data = asBuffer(copyBytes(value));
    this.#checkOpen();
    const l = this.#layout;
    await this.#write('put', PUT, key, [data, encodeMember(key), l.channel, key]);
  }

  /** Remove `key`; a missing key is fine (and notifies nobody). */
  async delete(key: string): Promise<void> {
    checkKey(key);
    this.#checkOpen();
    const l = this.#layout;
    await this.#write('delete', DELETE, key, [encodeMember(key), l.channel, key]);
  }

  /** Keys under `prefix`, sorted by UTF-16 code unit, without the prefix; O(log n + page). */
  async list(prefix: string, options?: ListOptions): Promise<string[]> {
    const { after, limit } = checkListArgs(prefix, options);
    this.#checkOpen();
    return this.#page(prefix, after, limit);
  }

  /** Atomically swap `expected` for `next` (`undefined` = absent / delete), in one Lua script. */
  async compareAndSet(
    key: string,
    expected: Uint8Array | undefined,
    next: Uint8Array | undefined,
  ): Promise<boolean> {
    checkKey(key);
    if (expected !== undefined) checkBytes(expected, 'expected');
    const want = expected === undefined ? EMPTY : asBuffer(copyBytes(expected, 'expected'));
    const data = next === undefined ? EMPTY : asBuffer(copyBytes(next, 'next'));
    this.#checkOpen();
    const l = this.#layout;
    const args = [
      expected === undefined ? '0' : '1',
      want,
      next === undefined ? '0' : '1',
      data,
      encodeMember(key),
      l.channel,
      key,
    ];
    return (await this.#write('compareAndSet', COMPARE_AND_SET, key, args)) === 1;
  }

  /**
   * Take the lock `name` for `ttlMs` (on the Redis server's clock), or `undefined`
   * while another holder, in any process, has it.
   */
  async lock(name: string, ttlMs: number): Promise<LockHandle | undefined> {
    this.#checkOpen();
    return acquireLock(this.#client, this.#layout, name, ttlMs);
  }

  /**
   * Call `onChange(key)` after each put, delete of an existing key, or successful
   * compareAndSet under `prefix`, by any instance on this store. Resolves once
   * subscribed. After a lost connection, every key under `prefix` is reported once
   * (changes made meanwhile cannot be known). A throwing listener is ignored.
   */
  async watch(prefix: string, onChange: (key: string) => void): Promise<() => Promise<void>> {
    this.#checkOpen();
    return this.#feed.watch(prefix, onChange);
  }

  /**
   * Stop watching (close the subscriber connection) and, when this instance
   * created the client ({@link RedisStorage.connect}), quit it after the commands
   * in flight. A client passed to the constructor stays open. Idempotent; any
   * later call fails.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#feed.close();
      if (!this.#owned) return;
      try {
        await this.#client.quit();
      } catch {
        this.#client.disconnect(); // unreachable: drop the socket and stop reconnecting
      }
    })();
    return this.#closing;
  }

  async #page(prefix: string, after: string | undefined, limit: number): Promise<string[]> {
    const [min, max] = lexRange(prefix, after);
    const index = this.#layout.index;
    const members = await this.#io('list', () =>
      limit === 0
        ? this.#client.zrangebylexBuffer(index, min, max)
        : this.#client.zrangebylexBuffer(index, min, max, 'LIMIT', 0, limit),
    );
    return members.map((m) => {
      // A member of odd length was written by someone else (a tool, another
      // layout under this prefix): a storage failure, not a crash.
      if (m.length % 2 !== 0) {
        throw internal(
          `RedisStorage: list failed: the index ${index} holds a member this adapter did not write`,
        );
      }
      return decodeMember(m).slice(prefix.length);
    });
  }

  #checkOpen(): void {
    if (this.#closing !== undefined) {
      throw internal(`RedisStorage (prefix ${this.prefix}) is closed`);
    }
  }

  /**
   * Run the write script `s` on storage key `key` once (scripts.ts,
   * `writeOnce`): a fresh id, a deadline on the server's clock, and the result
   * of its one run even when ioredis re-sent it after a lost reply.
   */
  async #write(
    op: string,
    s: Script,
    key: string,
    args: ReadonlyArray<string | Buffer>,
  ): Promise<unknown> {
    const l = this.#layout;
    const id = randomBytes(16).toString('base64url');
    const deadline = await this.#io(op, () => this.#clock.deadline());
    let result: unknown;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      result = await Promise.race([
        runScript(
          this.#client,
          s,
          [l.value(key), l.index, l.ops, l.opsDue],
          [deadline, OUTCOME_TTL_MS, id, ...args],
        ),
        // ioredis can hold a command whose reply was lost forever (a reconnection that
        // connects but never gets ready, then gives up, drops it unanswered). Past its
        // deadline no send of it can run any more, so its outcome is settled: stop waiting.
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error('ETIMEDOUT: no reply before the write deadline')),
            WRITE_WINDOW_MS + 5_000,
          );
          timer.unref?.();
        }),
      ]);
    } catch (e) {
      // Sent, perhaps run, and its reply lost for good (ioredis gave up re-sending).
      if (isConnectionError(e)) throw redisFailure(op, e, true);
      throw redisFailure(op, e);
    } finally {
      clearTimeout(timer);
    }
    if (result !== -1) return result;
    // Arrived after its deadline, so this send did not run; an earlier send of
    // it (before a lost reply) may have, and its record may be gone. Or the
    // server's clock moved: read it again for the next write.
    this.#clock.forget();
    throw internal(
      `RedisStorage: ${op} failed: the write reached Redis after its deadline (a connection lost for over a minute, or the server's clock moved), so it may or may not have been applied`,
    );
  }

  async #io<T>(op: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      throw redisFailure(op, e);
    }
  }
}

const EMPTY = Buffer.alloc(0);

/** A Buffer view of `u` (no copy; `u` is already a private copy). */
function asBuffer(u: Uint8Array): Buffer {
  return Buffer.from(u.buffer, u.byteOffset, u.byteLength);
}
