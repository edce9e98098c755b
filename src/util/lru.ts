/**
 * A small LRU map (insertion-ordered `Map`, re-inserted on access). Capacity 0
 * means unbounded. Used for the parsed-policy cache (`cache-config`) and the
 * archived-version cache.
 * @module
 */

/** @internal */
export class Lru<K, V> {
  #map = new Map<K, V>();
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
    const v = this.#map.get(key);
    if (v !== undefined && this.#capacity > 0) {
      this.#map.delete(key);
      this.#map.set(key, v);
    }
    return v;
  }

  /** The value without marking it used (for scans that should not reorder the cache). */
  peek(key: K): V | undefined {
    return this.#map.get(key);
  }

  set(key: K, value: V): void {
    this.#map.delete(key);
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
    for (const k of [...this.#map.keys()]) if (match(k)) this.#map.delete(k);
  }

  /** Change the capacity (0 = unbounded), evicting the least recently used. */
  resize(capacity: number): void {
    this.#capacity = capacity;
    this.#evict();
  }

  #evict(): void {
    if (this.#capacity <= 0) return;
    while (this.#map.size > this.#capacity) {
      const oldest = this.#map.keys().next();
      if (oldest.done) return;
      this.#map.delete(oldest.value);
      this.#onEvict?.();
    }
  }
}
