/**
 * The cache of archived key versions (those outside a key document's hot
 * window, policy-store.ts): by key name, then by version number, for the
 * current incarnation (uid) of each name.
 *
 * Why not one map keyed by storage path: a scan over every version (the read
 * body that rotate returns lists them all) then built and hashed one long
 * path string per version, which made rotate grow with the number of
 * versions. Here a scan fetches the key's version map once and looks
 * versions up by number.
 *
 * Bounded by the number of versions held; the least recently used key goes
 * first, and a key alone past the bound loses its earliest cached versions.
 * Both orders are kept in {@link LinkedMap}s: a key rotated again and again
 * (each rotate archives a version) otherwise paid for V8's `Map` re-insertion
 * and front-eviction costs, which grow with the cache (see there).
 * @module
 */
import { LinkedMap, type ReadonlyLinkedMap } from '../util/linked-map.js';
import type { KeyVersion } from './policy.js';

interface Incarnation {
  readonly uid: string;
  /** In the order cached (a rewrite keeps its place). */
  readonly versions: LinkedMap<number, KeyVersion>;
}

/** @internal */
export class ArchiveCache {
  /** Least recently used first. */
  readonly #byName = new LinkedMap<string, Incarnation>();
  readonly #capacity: number;
  #size = 0;

  /** @param capacity - versions held at most */
  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  /** Versions held in all. */
  get size(): number {
    return this.#size;
  }

  /** A cached version, marking its key used. */
  get(name: string, uid: string, version: number): KeyVersion | undefined {
    const inc = this.#byName.get(name);
    if (!inc || inc.uid !== uid) return undefined;
    const v = inc.versions.get(version);
    if (v !== undefined) this.#byName.use(name);
    return v;
  }

  /** A cached version, without marking it used (scans). */
  peek(name: string, uid: string, version: number): KeyVersion | undefined {
    const inc = this.#byName.get(name);
    return inc && inc.uid === uid ? inc.versions.get(version) : undefined;
  }

  /** Every cached version of one incarnation, by number (live view; do not modify). */
  versionsOf(name: string, uid: string): ReadonlyLinkedMap<number, KeyVersion> | undefined {
    const inc = this.#byName.get(name);
    return inc && inc.uid === uid ? inc.versions : undefined;
  }

  /** Cache a version; another incarnation of the name is dropped first. */
  set(name: string, uid: string, version: number, value: KeyVersion): void {
    let inc = this.#byName.get(name);
    if (inc && inc.uid !== uid) {
      this.#size -= inc.versions.size;
      inc = undefined;
    }
    inc ??= { uid, versions: new LinkedMap() };
    this.#byName.set(name, inc);
    if (!inc.versions.has(version)) this.#size++;
    inc.versions.set(version, value, false);
    this.#evict(name);
  }

  /** Forget one version. */
  delete(name: string, uid: string, version: number): void {
    const inc = this.#byName.get(name);
    if (inc && inc.uid === uid && inc.versions.delete(version)) this.#size--;
  }

  /** Forget one incarnation (or, without `uid`, whatever is cached for the name). */
  deleteKey(name: string, uid?: string): void {
    const inc = this.#byName.get(name);
    if (!inc || (uid !== undefined && inc.uid !== uid)) return;
    this.#size -= inc.versions.size;
    this.#byName.delete(name);
  }

  clear(): void {
    this.#byName.clear();
    this.#size = 0;
  }

  /** Back under the bound: whole keys, least recently used first; `keep` last, version by version. */
  #evict(keep: string): void {
    while (this.#size > this.#capacity) {
      const name = this.#byName.oldestKey();
      const inc = this.#byName.oldestValue();
      if (name === undefined || inc === undefined) return;
      if (name !== keep) {
        this.#size -= inc.versions.size;
        this.#byName.delete(name);
        continue;
      }
      const oldest = inc.versions.oldestKey();
      if (oldest === undefined) return;
      inc.versions.delete(oldest);
      this.#size--;
    }
  }
}
