/**
 * The token store's reads of token entries, and the cache in front of them.
 *
 * Entries are cached (parsed, by hash) only while a storage `watch` on
 * `auth/token/id/` is live: a change by any instance drops the entry, and a
 * cached entry is trusted for at most one second (the backstop for lost
 * notifications, as the policy and key caches). Without a live watch every
 * read goes to storage. Limited-use tokens, and every read asked `fresh`
 * (compare-and-set retries, renew, revoke), read storage; a read that a change
 * overtook is not cached; a failed read is an error, never "absent". Entries
 * hold no secret (the token itself is never stored, only its salted hash).
 * @module
 */
import type { Clock } from '../clock.js';
import { internal, isTransitError } from '../errors.js';
import { hasWatch, type StorageAdapter } from '../storage/adapter.js';
import { LiveWatch } from '../storage/live-watch.js';
import { sameBytes } from '../util/same-bytes.js';
import { K, parseEntry, type StoredToken, sameHash } from './token-entry.js';

/** Where token entries live: the watched prefix. */
const ID_PREFIX = K.id('');
/** The longest a cached entry is used without reading storage (lost notifications). */
const MAX_AGE_MS = 1_000;
/** Parsed entries kept at most (the cache restarts when full). */
const MAX_CACHED = 1024;

/**
 * A read entry: the bytes, their parse, and whether it is the entry of the
 * hash it is stored under.
 * @internal
 */
export interface FoundToken {
  raw: Uint8Array;
  entry: StoredToken;
  /** The entry names the hash it was read under (checked in constant time once per parse). */
  own: boolean;
}

/**
 * `num_uses` of an entry whose revocation is under way (token-revoke.ts): it
 * stops authenticating at once, and stays findable until its whole tree is
 * revoked. @internal
 */
export const REVOKING = -1;

const unlessRevoking = (f: FoundToken | undefined): FoundToken | undefined =>
  f && f.entry.num_uses < 0 ? undefined : f;

/** A cached entry and when storage last showed its bytes. */
interface Cached extends FoundToken {
  at: number;
}

/**
 * Token entries by hash, read from storage or from the cache while it can be
 * trusted.
 * @internal
 */
export class TokenEntries {
  readonly #storage: StorageAdapter;
  readonly #clock: Clock;
  /** Parsed entries by hash with the bytes they came from. */
  readonly #parsed = new Map<string, Cached>();
  /** Bumped on every change seen: a read that started before one is not trusted later. */
  #gen = 0;
  /** The watch of `auth/token/id/`: `undefined` without `watch`; trust waits for it to be live. */
  readonly #watch: LiveWatch | undefined;
  #closed = false;

  constructor(storage: StorageAdapter, clock: Clock) {
    this.#storage = storage;
    this.#clock = clock;
    this.#watch = hasWatch(storage)
      ? new LiveWatch(storage, ID_PREFIX, (key) =>
          this.forget(
            key.startsWith(ID_PREFIX) && key !== ID_PREFIX
              ? key.slice(ID_PREFIX.length)
              : undefined,
          ),
        )
      : undefined;
  }

  /** Stop watching and trusting the cache (reads then always go to storage). Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    this.forget();
    await this.#watch?.close();
  }

  /** Drop one cached entry (or all) after a change. */
  forget(hash?: string): void {
    this.#gen++;
    if (hash === undefined) this.#parsed.clear();
    else this.#parsed.delete(hash);
  }

  /**
   * An entry: from the cache while the watch is live and the entry is younger
   * than {@link MAX_AGE_MS} (and `fresh` is not asked for), else read from
   * storage; parsing is skipped when the bytes are unchanged.
   * An entry whose revocation is under way (`num_uses` {@link REVOKING}, as
   * Vault's pending revocation) is no token: it reads as absent, except with
   * `revoking` (the revocation itself, which finishes it).
   * @throws TransitError `sealed` as storage threw it; `internal` for any other
   *   failed read (without the entry's path, which carries the token's hash).
   */
  read(
    hash: string,
    fresh = false,
    revoking = false,
  ): FoundToken | Promise<FoundToken | undefined> {
    // A cached entry is one of unlimited uses ({@link cached}), never a revoking one.
    const hit = fresh ? undefined : this.cached(hash);
    if (hit) return hit;
    const stored = this.#readStored(hash);
    return revoking ? stored : stored.then(unlessRevoking);
  }

  /**
   * The entry {@link read} would answer from the cache, if it would (an
   * unlimited-use entry, the watch live, young enough); reads nothing.
   */
  cached(hash: string): FoundToken | undefined {
    const hit = this.#parsed.get(hash);
    if (hit && hit.entry.num_uses === 0 && this.#trusted()) {
      const age = this.#clock.now() - hit.at;
      if (age >= 0 && age < MAX_AGE_MS) return hit;
    }
    return undefined;
  }

  /** Whether cached entries may be trusted now: the watch is live. */
  #trusted(): boolean {
    return !this.#closed && this.#watch !== undefined && this.#watch.live();
  }

  async #readStored(hash: string): Promise<FoundToken | undefined> {
    const gen = this.#gen;
    let raw: Uint8Array | undefined;
    try {
      raw = await this.#storage.get(K.id(hash));
    } catch (e) {
      // Fail closed, and say so without the entry's path (it carries the token's hash).
      if (isTransitError(e, 'sealed')) throw e;
      throw internal('token store: cannot read a token entry', e);
    }
    if (!raw) {
      this.#parsed.delete(hash);
      return undefined;
    }
    const hit = this.#parsed.get(hash);
    const same = hit !== undefined && sameBytes(hit.raw, raw);
    const entry = same ? hit.entry : parseEntry(raw);
    const own = same ? hit.own : sameHash(entry.hash, hash);
    const at = this.#clock.now();
    if (gen !== this.#gen) {
      // A change overtook this read: use what was read, but do not keep it.
      this.#parsed.delete(hash);
      return { raw, entry, own };
    }
    if (!hit && this.#parsed.size >= MAX_CACHED) this.#parsed.clear();
    this.#parsed.set(hash, { raw, entry, own, at });
    return { raw, entry, own };
  }
}
