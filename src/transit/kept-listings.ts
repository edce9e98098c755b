/**
 * The bound shared by the read body's kept version listings (creation times,
 * ./creation-times.ts; a key pair's public keys, ./public-listing.ts): one
 * listing per key name, each covering versions `from..to` of one incarnation
 * (uid), at most `capacity` versions (or units the caller weighs) in all,
 * the least recently used key evicted first. What a listing holds and when it is still right is the
 * caller's; this module only counts and evicts.
 * @module
 */
import { LinkedMap } from '../util/linked-map.js';

/** Versions kept across all keys by default (one slot each). @internal */
export const KEPT_VERSIONS = 200_000;
/** Below this many versions a key's listing is cheaper to build than to keep. @internal */
export const KEEP_FROM = 64;

/** What every kept listing has: the versions `from..to` of incarnation `uid`. @internal */
export interface KeptListing {
  readonly uid: string;
  readonly from: number;
  /** Only ever raised, by {@link KeptListings.extended}. */
  to: number;
}

interface Slot<L> {
  readonly listing: L;
  /** What it counts against the capacity. */
  units: number;
}

/**
 * Kept listings by key name, bounded by what they hold: a unit per version
 * by default, or what the caller says a listing weighs (bytes, for entries of
 * very different sizes). @internal
 */
export class KeptListings<L extends KeptListing> {
  /** Least recently used first (a `LinkedMap`: a key rotated again and again is its newest). */
  readonly #byName = new LinkedMap<string, Slot<L>>();
  readonly #capacity: number;
  #size = 0;

  /** @param capacity - units kept at most, across all keys */
  constructor(capacity = KEPT_VERSIONS) {
    this.#capacity = capacity;
  }

  /** Units kept in all. */
  get size(): number {
    return this.#size;
  }

  /** Whether a listing of `name` is kept. */
  keeps(name: string): boolean {
    return this.#byName.has(name);
  }

  /** The listing kept for `name`, without marking it used. */
  get(name: string): L | undefined {
    return this.#byName.get(name)?.listing;
  }

  /** Mark `name`'s listing used. */
  use(name: string): void {
    this.#byName.use(name);
  }

  /**
   * Replace whatever is kept for `name` by `listing` (a new object: snapshots
   * of the old one stay as they were), or by nothing when `listing` is
   * short enough to build each time ({@link KEEP_FROM}); returns whether it
   * is kept. `units` defaults to its number of versions.
   */
  replace(name: string, listing: L, units = listing.to - listing.from + 1): boolean {
    const now = this.#byName.get(name);
    if (now) this.#drop(name, now);
    if (listing.to - listing.from + 1 < KEEP_FROM) return false;
    this.#byName.set(name, { listing, units });
    this.#size += units;
    this.#evict(name);
    return this.#byName.get(name)?.listing === listing;
  }

  /**
   * Record that `kept`, the listing of `name`, now runs to `to` (its caller
   * added the entries); `units` defaults to the number of versions added.
   */
  extended(name: string, kept: L, to: number, units = to - kept.to): void {
    const slot = this.#byName.get(name);
    kept.to = to;
    if (slot?.listing !== kept) return;
    slot.units += units;
    this.#size += units;
    this.#byName.use(name);
    this.#evict(name);
  }

  #drop(name: string, slot: Slot<L>): void {
    this.#byName.delete(name);
    this.#size -= slot.units;
  }

  /** Back under the bound, least recently used first (`keep` too, if alone past it). */
  #evict(keep: string): void {
    if (this.#size <= this.#capacity) return;
    for (const name of this.#byName.keys()) {
      if (this.#size <= this.#capacity) return;
      if (name !== keep || this.#byName.size === 1) {
        this.#drop(name, this.#byName.get(name) as Slot<L>);
      }
    }
  }
}
