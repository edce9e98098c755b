/**
 * A storage whose calls matching a predicate wait until released (before
 * they reach the inner storage, or after it answered). Not a test file.
 */
import type { MemoryStorage } from '../../src/index.js';
import { StorageView } from './storage-view.js';

type Op = 'get' | 'put' | 'delete' | 'list' | 'cas';
export interface Rule {
  op: Op;
  match: (key: string) => boolean;
  /** Hold after the inner call answered (default: before it). */
  after?: boolean;
  /** How many calls to hold (default 1). */
  times?: number;
}

export class Gate extends StorageView {
  #rules: Array<Rule & { left: number }> = [];
  #held: Array<() => void> = [];
  #waiters: Array<() => void> = [];
  constructor(inner: MemoryStorage) {
    super(inner);
  }
  arm(rule: Rule): void {
    this.#rules.push({ ...rule, left: rule.times ?? 1 });
  }
  /** Drop the rules not yet used up: later calls pass. */
  disarm(): void {
    this.#rules = [];
  }
  get heldCount(): number {
    return this.#held.length;
  }
  held(n = 1): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        if (this.#held.length >= n) resolve();
        else this.#waiters.push(check);
      };
      check();
    });
  }
  release(): void {
    for (const go of this.#held.splice(0)) go();
  }
  async #run<T>(op: Op, key: string, call: () => Promise<T>): Promise<T> {
    const rule = this.#rules.find((r) => r.op === op && r.left > 0 && r.match(key));
    if (!rule) return call();
    rule.left--;
    const wait = () =>
      new Promise<void>((resolve) => {
        this.#held.push(resolve);
        for (const w of this.#waiters.splice(0)) w();
      });
    if (!rule.after) {
      await wait();
      return call();
    }
    const out = await call();
    await wait();
    return out;
  }
  override get(key: string) {
    return this.#run('get', key, () => super.get(key));
  }
  override put(key: string, value: Uint8Array) {
    return this.#run('put', key, () => super.put(key, value));
  }
  override delete(key: string) {
    return this.#run('delete', key, () => super.delete(key));
  }
  override list(prefix: string, o?: Parameters<StorageView['list']>[1]) {
    return this.#run('list', prefix, () => super.list(prefix, o));
  }
  override compareAndSet(key: string, e: Uint8Array | undefined, n: Uint8Array | undefined) {
    return this.#run('cas', key, () => super.compareAndSet(key, e, n));
  }
}

/** How a promise settled: 'ok:<value>' or the error code. */
export const outcome = <T>(p: Promise<T>) =>
  p.then(
    (v) => ({ ok: true as const, v }),
    (e: { code?: string; message?: string }) => ({
      ok: false as const,
      code: e.code,
      message: e.message,
    }),
  );
