/**
 * Loading and persisting keys (openbao `lock_manager.go`): a parsed-key cache
 * (LRU, `cache-config` size; kept coherent by `watch` notifications, with
 * a one-second re-check against storage as the backstop for lost ones; a key
 * that a notification overtook or outdated is never answered from again, only
 * compared with the bytes the next read finds, so that a write this engine
 * hears of is not decoded twice; a read that fails is an error, never
 * "absent"), a per-name async lock for read-modify-write, and
 * compare-and-set writes so that concurrent writers (other processes on the
 * same storage) never lose an update (./store-writes.ts, under the lock taken
 * here).
 *
 * Layout: the newest {@link HOT_VERSIONS} versions stay inline in the key
 * document; older ones are archived under their own storage entries, written
 * *before* the document that drops them (./archive-store.ts: guarded, so that
 * a crash between the two leaves only a harmless duplicate, and a writer whose
 * view is behind overwrites nothing another instance rewrote). Encrypt with
 * the latest version and rotate are therefore O(1) in the number of versions.
 *
 * @module
 */
import { type Clock, systemClock } from '../clock.js';
import type { CryptoBackend } from '../crypto/backend.js';
import { encodeHex } from '../encoding.js';
import { internal, isTransitError, type TransitError } from '../errors.js';
import type { StorageAdapter } from '../storage/adapter.js';
import { keyspace } from '../storage/keyspace.js';
import { contended } from '../util/contention.js';
import { KeyedMutex } from '../util/keyed-mutex.js';
import { lazy } from '../util/lazy.js';
import type { ReadonlyLinkedMap } from '../util/linked-map.js';
import { Lru } from '../util/lru.js';
import { sameBytes } from '../util/same-bytes.js';
import type { ArchiveLog } from './archive-log.js';
import { ArchiveStore } from './archive-store.js';
import { keyType } from './key-types.js';
import { type KeyPolicy, type KeyVersion, oldestVersion } from './policy.js';
import { decodeStoredDocument, type KeyDocument } from './policy-codec.js';
import type { WholeKeyOps } from './store-admin.js';
import { CAS_RETRIES, createKey } from './store-writes.js';

export { HOT_VERSIONS } from './archive-store.js';

/** The longest a cached key is used without checking storage (lost notifications). @internal */
export const MAX_AGE_MS = 1_000;
/** Names whose invalidations are counted one by one (beyond: a new epoch). */
const MAX_STAMPS = 10_000;

/** Errors that report a key changed under a read (see {@link isKeyChanged}). */
const CHANGED = new WeakSet<object>();

/** How often an operation runs again after its key changed under it. @internal */
export const CHANGE_RETRIES = 8;

/** The error of a read that a trim, delete or replace of the key overtook. */
function keyChanged(name: string): TransitError {
  const err = internal(`key ${name} changed while it was read; try again`);
  CHANGED.add(err);
  return err;
}

/**
 * Whether `err` reports that the key changed under a read of its archived
 * versions (another instance trimmed, deleted or replaced it): the operation
 * is right to run again on the key as it is now. @internal
 */
export const isKeyChanged = (err: unknown): boolean =>
  typeof err === 'object' && err !== null && CHANGED.has(err);

/** A loaded key: its document and the stored bytes it was parsed from (for CAS). @internal */
export interface LoadedKey {
  readonly doc: KeyDocument;
  readonly raw: Uint8Array;
}

/**
 * What a mutation returns: the new policy and the versions it adds or
 * rewrites; for a rewrite of an archived version, `base` holds the version it
 * was derived from (its write is compare-and-set against that version's
 * stored bytes, so a concurrent rewrite is never lost). @internal
 */
export interface Mutation {
  policy: KeyPolicy;
  add?: ReadonlyMap<number, KeyVersion>;
  base?: ReadonlyMap<number, KeyVersion>;
}

/** What the parsed-key cache reports (the engine's key cache metrics). @internal */
export interface KeyCacheEvents {
  /** A load answered from the cache. */
  hit(): void;
  /** A load that reads storage (not cached, or cached past the re-check age). */
  miss(): void;
  /** A key dropped by the cache's size limit. */
  evict(): void;
}

/** Restore, key deletion and listing (./store-admin.ts), loaded on first use. */
const admin = lazy(() => import('./store-admin.js'));
const mutating = lazy(() => import('./store-mutate.js'));

/** @internal */
export class PolicyStore {
  readonly #storage: StorageAdapter;
  readonly #backend: CryptoBackend;
  /** Parsed keys and when each was read; `at` is -Infinity once a change was heard (stale). */
  readonly #cache: Lru<string, { key: LoadedKey; at: number }>;
  /** Revalidations of aged cache entries in flight, one per name. */
  readonly #revalidating = new Map<string, Promise<LoadedKey | undefined>>();
  readonly #archive: ArchiveStore;
  readonly #locks = new KeyedMutex();
  /**
   * Invalidation stamps: a load (or a write) caches its result only when no
   * invalidation of that name arrived since it started, so a notification
   * that overtakes a read in flight cannot leave the older value cached.
   */
  readonly #changes = new Map<string, number>();
  #epoch = 0;

  readonly #clock: Clock;

  /** Hit, miss and eviction events of the parsed-key cache (metrics). */
  readonly #events: KeyCacheEvents | undefined;

  /**
   * `clock` times the cache's re-check age (the engine's clock; default the
   * wall clock); `events` hears the cache's hits, misses and evictions.
   */
  constructor(
    storage: StorageAdapter,
    backend: CryptoBackend,
    cacheSize = 0,
    clock = systemClock,
    events?: KeyCacheEvents,
  ) {
    this.#storage = storage;
    this.#backend = backend;
    this.#cache = new Lru(cacheSize, events?.evict);
    this.#archive = new ArchiveStore(storage);
    this.#clock = clock;
    this.#events = events;
  }

  /** Resize the parsed-key cache (0 = unbounded). */
  setCacheSize(size: number): void {
    this.#cache.resize(size);
  }

  /** Forget cached state of one key (or all), e.g. after another instance wrote it. */
  invalidate(name?: string): void {
    if (name === undefined) {
      this.#epoch++;
      this.#changes.clear();
      this.#cache.clear();
      this.#revalidating.clear();
      this.#archive.clear();
    } else {
      this.#changed(name);
      // The entry stays, marked stale: the next load reads storage (as for a
      // miss) but decodes only when the bytes differ from the cached ones. A
      // watching engine hears of its own writes too, and re-parsing the
      // document it had just written cost every rotate (or any write) a full
      // decode on the next call. A check already in flight began before this
      // change, so later loads do not join it.
      // Archived versions are not touched here: each archive entry has its own
      // notification ({@link invalidateArchived}).
      const hit = this.#cache.peek(name);
      if (hit) hit.at = Number.NEGATIVE_INFINITY;
    }
  }

  /**
   * `name` changed in storage (heard of, or written here): loads begun
   * before now may cache what they read only as stale, and later loads do
   * not join a check already in flight.
   */
  #changed(name: string): void {
    if (this.#changes.size >= MAX_STAMPS) {
      this.#epoch++;
      this.#changes.clear();
    } else {
      this.#changes.set(name, (this.#changes.get(name) ?? 0) + 1);
    }
    this.#revalidating.delete(name);
  }

  /**
   * Forget one archived version after its storage entry changed (another
   * instance's write, or this one's). Archived versions are rewritten in place
   * only for asymmetric keys (set-certificate, import_version of a private
   * half); those of other types never change under one uid (their path
   * carries it), so a symmetric key's stay cached. Dropping only the version
   * whose entry changed keeps rotate O(1) in the versions of an asymmetric key
   * too: every rotate past the hot window archives one version, and dropping
   * the key's whole archive on each made the next read body reload and decode
   * every archived version (≈ 8 ms a rotate at 1,000 Ed25519 versions).
   */
  invalidateArchived(name: string, uid: string, version: number): void {
    const cached = this.#cache.peek(name)?.key.doc;
    if (cached?.uid === uid && !keyType(cached.policy.type).asymmetric) return;
    this.#archive.changed(name, uid, version);
  }

  /**
   * Load a key (cached). A cached key older than {@link MAX_AGE_MS} is checked
   * against storage first (decoded again only when its bytes changed): the
   * backstop for lost change notifications.
   */
  async get(name: string): Promise<LoadedKey | undefined> {
    const hit = this.#cache.get(name);
    if (!hit) {
      this.#events?.miss();
      return this.#load(name);
    }
    const age = this.#clock.now() - hit.at;
    if (age >= 0 && age < MAX_AGE_MS) {
      this.#events?.hit();
      return hit.key;
    }
    this.#events?.miss();
    let pending = this.#revalidating.get(name);
    if (!pending) {
      const started = this.#load(name, hit.key).finally(() => {
        if (this.#revalidating.get(name) === started) this.#revalidating.delete(name);
      });
      pending = started;
      this.#revalidating.set(name, pending);
    }
    return pending;
  }

  /**
   * The cached key when it is younger than the re-check age: no I/O and no
   * promise (the hot path of every call); `undefined` otherwise, and then
   * {@link get} loads or re-checks it.
   */
  cached(name: string): LoadedKey | undefined {
    const hit = this.#cache.get(name);
    if (!hit) return undefined;
    const age = this.#clock.now() - hit.at;
    if (age < 0 || age >= MAX_AGE_MS) return undefined;
    this.#events?.hit();
    return hit.key;
  }

  /** Read a key from storage; `previous` is reused when the stored bytes did not change. */
  async #load(name: string, previous?: LoadedKey): Promise<LoadedKey | undefined> {
    const stamp = this.#stamp(name);
    const raw = await this.#storage.get(keyspace.policy(name));
    if (!raw) {
      this.#cache.delete(name);
      return undefined;
    }
    const loaded =
      previous && sameBytes(previous.raw, raw)
        ? previous
        : { doc: await decodeStoredDocument(raw), raw };
    this.#remember(name, loaded, stamp);
    return loaded;
  }

  /** Where invalidations of `name` stand now. */
  #stamp(name: string): string {
    return `${this.#epoch}:${this.#changes.get(name) ?? 0}`;
  }

  /**
   * Cache `key`; if `name` was invalidated since `stamp`, only as stale: never
   * answered from, only compared with the bytes the next load reads (so a
   * write this engine just made, then heard of, is not decoded again).
   */
  #remember(name: string, key: LoadedKey, stamp: string): void {
    const at = stamp === this.#stamp(name) ? this.#clock.now() : Number.NEGATIVE_INFINITY;
    this.#cache.set(name, { key, at });
  }

  /** The material of version `v` (inline or archived). */
  async version(key: LoadedKey, v: number): Promise<KeyVersion> {
    const inline = key.doc.versions.get(v);
    if (inline) return inline;
    const { name } = key.doc.policy;
    if (v < oldestVersion(key.doc.policy) || v > key.doc.policy.latest_version) {
      throw internal(`key version ${v} of ${name} is not available`);
    }
    try {
      return await this.#archive.read(key.doc.policy, key.doc.uid, v);
    } catch (err) {
      // An entry gone because another instance trimmed, deleted or replaced
      // the key since `key` was read: reported as a change, for the caller to
      // run again on the key as it is now. The same document with an entry
      // missing is a real fault, reported as it is.
      if (!isTransitError(err, 'internal')) throw err;
      this.invalidate(name);
      const now = await this.get(name);
      if (now && sameBytes(now.raw, key.raw)) throw err;
      throw keyChanged(name);
    }
  }

  /**
   * Version `v` when it is at hand (inline, or archived and cached), without
   * I/O or a promise; `undefined` otherwise (then use {@link version}). For
   * loops over every version (the read body lists them all).
   */
  cachedVersion(key: LoadedKey, v: number): KeyVersion | undefined {
    const inline = key.doc.versions.get(v);
    if (inline) return inline;
    const p = key.doc.policy;
    if (v < oldestVersion(p) || v > p.latest_version) return undefined;
    return this.#archive.cache.peek(p.name, key.doc.uid, v);
  }

  /**
   * What may have changed among archived versions (./archive-log.ts): a
   * version rewritten in place, here or by another instance as far as this
   * one heard, or the archive cache dropped whole. Something built from
   * archived versions under one stamp is still right while the stamp is the
   * same, and needs only the versions logged since re-checked otherwise (hot
   * versions are checked by identity: a rewrite or a reload puts new objects
   * in the document).
   */
  get archiveChanges(): Pick<ArchiveLog, 'stamp' | 'since'> {
    return this.#archive.log;
  }

  /**
   * The archived versions of `key` now cached, by number (a live view), for
   * scans over every version: one lookup for the key, then one per number.
   */
  archivedVersions(key: LoadedKey): ReadonlyLinkedMap<number, KeyVersion> | undefined {
    return this.#archive.versionsOf(key.doc.policy.name, key.doc.uid);
  }

  /** Create a key unless the name exists. Returns the stored key and whether it was created. */
  async create(
    policy: KeyPolicy,
    versions: ReadonlyMap<number, KeyVersion>,
  ): Promise<{ key: LoadedKey; created: boolean }> {
    return this.#locks.run(policy.name, () => createKey(this.#ops, policy, versions));
  }

  /**
   * Read-modify-write one key under its lock, with compare-and-set against
   * concurrent writers (retried on conflict). `fn` must be pure apart from
   * generating material; it may run more than once. Returning `undefined`
   * from `fn` means "no change" (nothing is written).
   * @returns the stored key, or `undefined` if the key does not exist.
   */
  async mutate(
    name: string,
    fn: (key: LoadedKey) => Mutation | undefined | Promise<Mutation | undefined>,
  ): Promise<LoadedKey | undefined> {
    const { mutateKey } = await mutating();
    return this.#locks.run(name, async () => mutateKey(this.#ops, name, await this.get(name), fn));
  }

  /**
   * Store a whole key (restore from backup): refused when the name exists
   * unless `force`, in which case the old incarnation and its archive are replaced.
   */
  async replace(
    policy: KeyPolicy,
    versions: ReadonlyMap<number, KeyVersion>,
    force: boolean,
  ): Promise<LoadedKey> {
    const { replaceKey } = await admin();
    return this.#locks.run(policy.name, () => replaceKey(this.#ops, policy, versions, force));
  }

  /**
   * After a write that threw: delete the archive entries it wrote that the key
   * as now stored does not cover (./archive-store.ts `dropUncommitted`).
   * Best effort: a store that keeps failing keeps them, as after a crash.
   */
  async #cleanUp(name: string, uid: string, written: readonly number[]): Promise<void> {
    if (written.length === 0) return;
    try {
      const now = await this.#load(name);
      await this.#archive.dropUncommitted(uid, written, now?.doc, name);
    } catch {
      // The caller's error is the one to report.
    }
  }

  /** Delete a key and its archive. Returns false when it did not exist. */
  async delete(name: string, check: (key: LoadedKey) => void): Promise<boolean> {
    const { deleteKey } = await admin();
    return this.#locks.run(name, () => deleteKey(this.#ops, name, check));
  }

  /** The store's state, for ./store-writes.ts and ./store-admin.ts. */
  get #ops(): WholeKeyOps {
    return {
      storage: this.#storage,
      archive: this.#archive,
      retries: CAS_RETRIES,
      load: (name) => this.#load(name),
      // A write that landed is a change like any other: a load that began
      // before it (and may have read the bytes it replaced) then caches only
      // as stale, on storage without notifications too. The written key is
      // cached fresh, unless a change was heard while the write was in flight.
      stamp: (name) => {
        const stamp = this.#stamp(name);
        return (key) => {
          this.#remember(name, key, stamp);
          this.#changed(name);
        };
      },
      forget: (name) => {
        this.#changed(name);
        this.#cache.delete(name);
      },
      cleanUp: (name, uid, written) => this.#cleanUp(name, uid, written),
      newUid: () => encodeHex(this.#backend.randomBytes(8)),
      // After a lost compare-and-set: a random pause, growing with the attempt (../util/contention.ts).
      pause: (attempt) => contended(attempt, this.#backend.randomBytes(1)[0] as number),
    };
  }

  /** User key names, sorted, paginated; internal keys (names with `/`) are skipped. */
  async list(after: string, limit: number): Promise<string[]> {
    return (await admin()).listKeyNames(this.#storage, after, limit);
  }
}
