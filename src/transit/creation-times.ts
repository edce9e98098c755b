/**
 * The `keys` map of a symmetric key's read body (version → creation time),
 * kept per key so that rotate does not grow with the number of versions.
 *
 * The read body lists every live version, as Vault's does, and rotate, trim
 * and config return it. Built version by version, a key with 1,000 versions
 * paid ~0.1 ms per rotate for the listing alone (a lookup, a call and a
 * property per version). Here the listing of each recently used key is kept
 * and extended by the versions added since, and a reply that extends it
 * gets a {@link Snapshot}: the copy is made when the reply's `keys` is
 * first read (`JSON.stringify` reads it; an in-process rotate whose caller
 * never looks at `keys` never pays for it). A copy grows with the versions:
 * ≈ 2 µs at 1,000, ≈ 7 µs at 10,000, and past ≈ 16,000 V8 allocates it in
 * its large-object space, ≈ 190 µs at 20,000 — more than the rest of a rotate.
 *
 * Coherent by construction: a version's creation time never changes once the
 * version exists, and an incarnation (uid) of a name never reuses a number,
 * so a kept listing for `[from, to]` of one uid is right for any later
 * request of the same uid with the same `from` and a `to` at least as high;
 * anything else (trim, a lower `min_decryption_version`, a restored or
 * re-created key, a listing from an older document) is rebuilt.
 *
 * Only families whose read body shows creation times are kept here (a key
 * pair's versions show public keys: ./public-listing.ts keeps those). Bounded
 * by the number of versions kept in all; the least recently used key goes
 * first (./kept-listings.ts).
 * @module
 */
import type { LoadedKey, PolicyStore } from '../keys/policy-store.js';
import type { Engine } from './engine.js';
import { type KeptListing, KeptListings } from './kept-listings.js';
import { fillCreationTimes as fill } from './version-times.js';

/**
 * Versions `from..to` of a kept listing, copied when called: a listing is
 * only ever extended past its `to` (anything else replaces it), so the
 * entries a snapshot covers never change after it is taken.
 * @internal
 */
export type Snapshot<T = number> = () => Record<number, T>;

interface Listing extends KeptListing {
  /** Never handed out: replies get a copy. */
  readonly times: Record<number, number>;
}

/** @internal */
export class CreationTimes {
  readonly #kept: KeptListings<Listing>;

  /** @param capacity - versions kept at most, across all keys */
  constructor(capacity?: number) {
    this.#kept = new KeptListings(capacity);
  }

  /** Whether a listing of `name` is kept. */
  keeps(name: string): boolean {
    return this.#kept.keeps(name);
  }

  /** Versions kept in all. */
  get size(): number {
    return this.#kept.size;
  }

  /**
   * `{ [version]: creation_time }` for versions `from..to` of `key`: a fresh
   * object, or a {@link Snapshot} that makes one (the caller may keep or
   * change either).
   */
  async listing(
    store: PolicyStore,
    key: LoadedKey,
    from: number,
    to: number,
  ): Promise<Record<number, number> | Snapshot> {
    const { uid, policy } = key.doc;
    const name = policy.name;
    const kept = this.#kept.get(name);
    if (kept && kept.uid === uid && kept.from === from && kept.to <= to) {
      if (this.#extend(store, key, kept, to)) return snapshot(kept, to);
    }
    const times: Record<number, number> = {};
    await fill(store, key, times, from, to);
    // Replace whatever is kept now (another call may have changed it meanwhile).
    const listing = { uid, from, to, times };
    return this.#kept.replace(name, listing) ? snapshot(listing, to) : times;
  }

  /**
   * Extend `kept` to `to` with versions at hand (the ones a rotate just added
   * are inline), synchronously so no other call sees it half done; false when
   * one would need a storage read (then the caller rebuilds).
   */
  #extend(store: PolicyStore, key: LoadedKey, kept: Listing, to: number): boolean {
    const added: number[] = [];
    for (let v = kept.to + 1; v <= to; v++) {
      const ver = store.cachedVersion(key, v);
      if (!ver) return false;
      added.push(ver.creation_time);
    }
    for (let i = 0; i < added.length; i++) kept.times[kept.to + 1 + i] = added[i] as number;
    this.#kept.extended(key.doc.policy.name, kept, to);
    return true;
  }
}

/** A {@link Snapshot} of `kept` as it is now, up to `to`. */
function snapshot(kept: Listing, to: number): Snapshot {
  const { from, times } = kept;
  return () => {
    // Not extended since: one spread (fast elements copy as a block).
    if (kept.to === to) return { ...times };
    const out: Record<number, number> = {};
    for (let v = from; v <= to; v++) out[v] = times[v] as number;
    return out;
  };
}

/** The kept listings of each engine's key store. */
const keptByStore = new WeakMap<PolicyStore, CreationTimes>();

/**
 * {@link CreationTimes.listing} on the engine's own kept listings. Loaded
 * only for a key with {@link KEEP_FROM} versions or more (./read-body.ts
 * builds shorter listings itself), so the edge build does not carry it.
 * @internal
 */
export function keptCreationTimes(
  e: Engine,
  key: LoadedKey,
  from: number,
  to: number,
): Promise<Record<number, number> | Snapshot> {
  let times = keptByStore.get(e.store);
  if (!times) {
    times = new CreationTimes();
    keptByStore.set(e.store, times);
  }
  return times.listing(e.store, key, from, to);
}
