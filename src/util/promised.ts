/**
 * Methods that return a promise without being `async` functions (a hot path
 * that hands back its callee's promise instead of wrapping it in another).
 * Whoever must tell such a method from a synchronous one without calling it —
 * the sealed facade, which rejects the first kind and throws for the second —
 * asks {@link returnsPromise}.
 * @module
 */

const marked = new WeakSet<object>();

/**
 * Mark the methods `names` of `proto` as promise-returning.
 * @internal
 */
export function markPromised<T extends object>(proto: T, names: readonly (keyof T)[]): void {
  for (const name of names) {
    const f = proto[name];
    if (typeof f !== 'function') throw new TypeError(`${String(name)} is not a method`);
    marked.add(f);
  }
}

/**
 * Whether `f` returns a promise: an `async` function, or a marked method.
 * @internal
 */
export function returnsPromise(f: unknown): boolean {
  return typeof f === 'function' && (f.constructor?.name === 'AsyncFunction' || marked.has(f));
}
