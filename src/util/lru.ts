/**
 * A small LRU map. Capacity 0 means unbounded (and then a read does not
 * reorder). Used for the parsed-policy cache (`cache-config`). The order is
 * kept in a {@link LinkedMap}, not by re-inserting into a `Map` (see there
 * why: with a hot key that costs time in proportion to the cache's size).
 * @module
 */
import { LinkedMap } from './linked-map.js';

/** @internal */
export class Lru<K, V> {
  readonly #map = new LinkedMap<K, V>();
  #capacity: number;
  readonly #onEvict: (() => void) | undefined;

  /** `onEvict` hears each entry dropped by the capacity (not deletes or clears). */
  constructor(capacity = 0, onEvict?: () => void) {
    this.#capacity = capacity;
    this.#onEvict = onEvict;
  }

  get size(): number {
    return this.#map.size;
  }

  get(key: K): V | undefined {
    return this.#capacity > 0 ? this.#map.use(key) : this.#map.get(key);
  }

  /** The value without marking it used (for scans that should not reorder the cache). */
  peek(key: K): V | undefined {
    return this.#map.get(key);
  }

  set(key: K, value: V): void {
    this.#map.set(key, value);
    this.#evict();
  }

  delete(key: K): void {
    this.#map.delete(key);
  }

  clear(): void {
    this.#map.clear();
  }

  /** Delete every entry whose key matches. */
  deleteWhere(match: (key: K) => boolean): void {
    for (const k of this.#map.keys()) if (match(k)) this.#map.delete(k);
  }

  /** Change the capacity (0 = unbounded), evicting the least recently used. */
  resize(capacity: number): void {
    this.#capacity = capacity;
    this.#evict();
  }

  #evict(): void {
    if (this.#capacity <= 0) return;
    while (this.#map.size > this.#capacity) {
      this.#map.delete(this.#map.oldestKey() as K);
      this.#onEvict?.();
    }
  }
}
