/**
 * Archived key versions (those outside a key document's hot window,
 * policy-store.ts): reading them through the {@link ArchiveCache}, logging
 * what may have changed ({@link ArchiveLog}), and splitting a document's
 * versions into the hot ones and those to archive. The writes themselves
 * (guarded against a writer whose view is behind, see ./archive-writes.ts)
 * load on first need: a key of at most 16 versions never archives one, and
 * an application that only encrypts and decrypts never loads them.
 * @module
 */
import { internal } from '../errors.js';
import type { StorageAdapter } from '../storage/adapter.js';
import { keyspace } from '../storage/keyspace.js';
import { lazy } from '../util/lazy.js';
import type { ReadonlyLinkedMap } from '../util/linked-map.js';
import { ArchiveCache } from './archive-cache.js';
import { ArchiveLog } from './archive-log.js';
import { keyType } from './key-types.js';
import { type KeyPolicy, type KeyVersion, oldestVersion } from './policy.js';
import { decodeVersion } from './policy-codec.js';
import type { Mutation } from './policy-store.js';

/** How many of the newest versions stay inline in the key document. @internal */
export const HOT_VERSIONS = 16;
const ARCHIVE_CACHE = 4096;

const writes = lazy(() => import('./archive-writes.js'));

/** The key a write is for, as the writer last read it. @internal */
export interface WriteView {
  /** The stored document bytes the writer read (its compare-and-set operand). */
  readonly raw: Uint8Array;
  /** The document's hot versions. */
  readonly hot: ReadonlyMap<number, KeyVersion>;
}

/** @internal */
export class ArchiveStore {
  readonly storage: StorageAdapter;
  readonly cache = new ArchiveCache(ARCHIVE_CACHE);
  /** What may have changed among archived versions (./archive-log.ts). */
  readonly log = new ArchiveLog();
  /** The stored bytes each archived version object was read from or written as. */
  readonly sources = new WeakMap<KeyVersion, Uint8Array>();

  constructor(storage: StorageAdapter) {
    this.storage = storage;
  }

  /** Archived version `v` of a key (cached; read from storage on a miss). */
  async read(policy: KeyPolicy, uid: string, v: number): Promise<KeyVersion> {
    const { name } = policy;
    const cached = this.cache.get(name, uid, v);
    if (cached) return cached;
    const changes = this.log.stamp;
    const raw = await this.storage.get(keyspace.archive(name, uid, v));
    if (!raw) throw internal(`archived version ${v} of key ${name} is missing from storage`);
    const ver = decodeVersion(raw, keyType(policy.type));
    this.sources.set(ver, raw);
    // A read that a change overtook may hold the older bytes: answered, not cached.
    if (changes === this.log.stamp) this.cache.set(name, uid, v, ver);
    return ver;
  }

  /** The archived versions of one incarnation now cached (a live view). */
  versionsOf(name: string, uid: string): ReadonlyLinkedMap<number, KeyVersion> | undefined {
    return this.cache.versionsOf(name, uid);
  }

  /** Forget one version after its entry changed (here or by another instance). */
  changed(name: string, uid: string, version: number): void {
    this.log.changed(name, version);
    this.cache.delete(name, uid, version);
  }

  /** Forget everything (the whole prefix was reported changed). */
  clear(): void {
    this.log.changedAll();
    this.cache.clear();
  }

  /**
   * The hot versions of `all` under `policy`, which stay inline, after
   * writing those below the hot window (from the oldest available version
   * on; ./archive-writes.ts). `view` is the key as the writer read it (absent
   * for a new incarnation, whose entries are all new); `base` maps a
   * rewritten archived version to the version it was derived from. Each
   * entry written is pushed to `written`. `undefined` when the view proved
   * behind storage (then reload, {@link dropUncommitted}, and try again).
   */
  async split(
    policy: KeyPolicy,
    uid: string,
    all: ReadonlyMap<number, KeyVersion>,
    written: number[],
    view?: WriteView,
    base?: ReadonlyMap<number, KeyVersion>,
  ): Promise<Map<number, KeyVersion> | undefined> {
    const oldest = oldestVersion(policy);
    const hotFloor = Math.max(oldest, policy.latest_version - HOT_VERSIONS + 1);
    const hot = new Map<number, KeyVersion>();
    const cold = new Map<number, KeyVersion>();
    for (const [n, v] of all) {
      if (n >= hotFloor) hot.set(n, v);
      else if (n >= oldest) cold.set(n, v);
    }
    if (cold.size === 0) return hot;
    const done = await (await writes()).archive(this, policy, uid, cold, written, view, base);
    return done ? hot : undefined;
  }

  /**
   * After an attempt of `m` whose document did not commit: put back the
   * archived versions it rewrote in place (each compare-and-set from the
   * bytes it wrote to those it replaced; one rewritten again since is left as
   * it is), so a lost attempt leaves no change behind and its retry starts
   * from the key as it was (an import of a private half is not then refused
   * as done).
   */
  async undoRewrites(
    name: string,
    uid: string,
    m: Mutation,
    written: readonly number[],
  ): Promise<void> {
    if (m.base && written.length > 0) {
      await (await writes()).undoRewrites(this, name, uid, m, written);
    }
  }

  /**
   * After an attempt whose document did not commit: delete the entries it
   * wrote that the key as now stored (`now`) no longer covers — the key is
   * gone or replaced (another uid), or trimmed past them.
   */
  async dropUncommitted(
    uid: string,
    written: readonly number[],
    now: { uid: string; policy: KeyPolicy } | undefined,
    name: string,
  ): Promise<void> {
    if (written.length > 0) await (await writes()).dropUncommitted(this, uid, written, now, name);
  }

  /** After a trim, remove archived entries below the oldest version `after` keeps. */
  async dropTrimmed(uid: string, before: KeyPolicy, after: KeyPolicy): Promise<void> {
    if (oldestVersion(before) < oldestVersion(after)) {
      await (await writes()).dropTrimmed(this, uid, before, after);
    }
    // What an earlier clean-up left (its delete failed after its document
    // committed) goes with the key's next write: one listing of the lowest
    // page, only for a trimmed key.
    if (after.min_available_version > 0) {
      await (await writes()).sweepTrimmed(this.storage, after.name, uid, oldestVersion(after));
    }
  }

  /** Delete every archived entry of one incarnation. */
  async deleteAll(name: string, uid: string): Promise<void> {
    await (await writes()).deleteIncarnation(this, name, uid);
  }
}
