/**
 * What may have changed among a store's archived key versions, in order: a
 * stamp that moves with every change, and the recent changes themselves, so
 * that something built from archived versions (a kept read-body listing)
 * re-checks only the versions named since it was built instead of all of
 * them. A change is logged when a version may have been rewritten in place
 * (here, or by another instance as far as this one heard) and "everything"
 * when the archive cache was dropped whole. The log is bounded: a stamp older
 * than what it still holds gets `undefined` (re-check everything).
 * @module
 */

/** One archived version that may have changed. @internal */
export interface ArchiveChange {
  readonly name: string;
  readonly version: number;
}

/** Changes kept (a stamp further back is answered "everything"). */
const KEPT = 1024;

/** @internal */
export class ArchiveLog {
  #stamp = 0;
  /** The stamp just before `#log[0]`. */
  #start = 0;
  #log: ArchiveChange[] = [];

  /** Moves with every change; equal stamps mean nothing changed in between. */
  get stamp(): number {
    return this.#stamp;
  }

  /** Version `version` of `name` may have changed. */
  changed(name: string, version: number): void {
    this.#stamp++;
    this.#log.push({ name, version });
    if (this.#log.length > KEPT) {
      const drop = this.#log.length - KEPT / 2;
      this.#log = this.#log.slice(drop);
      this.#start += drop;
    }
  }

  /** Anything may have changed. */
  changedAll(): void {
    this.#stamp++;
    this.#log = [];
    this.#start = this.#stamp;
  }

  /** The changes after `stamp`, oldest first; `undefined` when that is no longer known. */
  since(stamp: number): readonly ArchiveChange[] | undefined {
    if (stamp < this.#start || stamp > this.#stamp) return undefined;
    return this.#log.slice(stamp - this.#start);
  }
}
