/**
 * The in-memory half of the one ordered index: a binary min-heap of
 * (due time, lease id), mirroring the storage due index
 * (`sys/leases/expiry/<ms>/<id>`) on the leader.
 *
 * Shape, and why:
 * - Two parallel arrays (times, ids) instead of one object per entry: at a
 *   million leases that is two pointers per lease, no object headers.
 * - No decrease-key and no delete: a renewed or revoked lease leaves its old
 *   pair in the heap, and the pair is checked against the stored entry when it
 *   is popped (the entry is the truth; a stale pair costs one read).
 * - Stale pairs are counted ({@link ExpiryQueue.noteStale}): once they are
 *   most of the heap (a lease renewed every hour with a day's TTL leaves ~23
 *   behind), {@link ExpiryQueue.needsRebuild} tells the scheduler to reload
 *   the heap from the storage index, so its size stays O(live leases) at an
 *   amortised O(1) per renewal.
 * - Ties are broken by id so the pop order is the storage index order.
 * @module
 */

/** Stale pairs tolerated before a rebuild is worth it, whatever the heap's size. @internal */
export const MIN_STALE_FOR_REBUILD = 4_096;

/** @internal */
export class ExpiryQueue {
  #times: number[] = [];
  #ids: string[] = [];
  #stale = 0;

  /** Number of pairs (stale ones included). */
  get size(): number {
    return this.#times.length;
  }

  /** Pairs known to have gone stale since this heap was built (an upper bound). */
  get stale(): number {
    return this.#stale;
  }

  /** Record that a pair still in the heap no longer matches its lease (renewed, revoked). */
  noteStale(): void {
    this.#stale++;
  }

  /** True when stale pairs are most of the heap: rebuilding it from storage is worth it. */
  needsRebuild(): boolean {
    return this.#stale >= MIN_STALE_FOR_REBUILD && this.#stale * 2 > this.#times.length;
  }

  /** The earliest due time, or `Infinity` when empty. */
  peekTime(): number {
    return this.#times.length === 0 ? Number.POSITIVE_INFINITY : (this.#times[0] as number);
  }

  /** Add a pair; O(log n). */
  push(time: number, id: string): void {
    const times = this.#times;
    const ids = this.#ids;
    let i = times.length;
    times.push(time);
    ids.push(id);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!less(time, id, times[parent] as number, ids[parent] as string)) break;
      times[i] = times[parent] as number;
      ids[i] = ids[parent] as string;
      i = parent;
    }
    times[i] = time;
    ids[i] = id;
  }

  /** Remove and return up to `max` pairs due at or before `now`, earliest first. */
  popDue(now: number, max: number): Array<[number, string]> {
    const out: Array<[number, string]> = [];
    while (out.length < max && this.#times.length > 0 && (this.#times[0] as number) <= now) {
      out.push(this.#pop());
    }
    return out;
  }

  #pop(): [number, string] {
    const times = this.#times;
    const ids = this.#ids;
    const top: [number, string] = [times[0] as number, ids[0] as string];
    const lastTime = times.pop() as number;
    const lastId = ids.pop() as string;
    const n = times.length;
    if (n === 0) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c =
        r < n && less(times[r] as number, ids[r] as string, times[l] as number, ids[l] as string)
          ? r
          : l;
      if (!less(times[c] as number, ids[c] as string, lastTime, lastId)) break;
      times[i] = times[c] as number;
      ids[i] = ids[c] as string;
      i = c;
    }
    times[i] = lastTime;
    ids[i] = lastId;
    return top;
  }
}

function less(t1: number, id1: string, t2: number, id2: string): boolean {
  return t1 < t2 || (t1 === t2 && id1 < id2);
}
