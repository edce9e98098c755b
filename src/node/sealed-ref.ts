/**
 * A stable facade over an object that exists only while unsealed.
 *
 * `node.transit` (and `tokens`, `leases`, `policies`) is a Proxy that looks up
 * the node's **current** instance on every property access and method call.
 * It holds no reference to the instance itself, so a caller who kept
 * `node.transit` (or one of its methods) across a seal keeps nothing alive:
 * the sealed-away engine, its key cache and its timers are unreachable, and
 * every call fails with `sealed` until the next unseal (which then serves the
 * new instance).
 *
 * While sealed, a method that returns a promise (an `async` one, or one marked
 * with `markPromised`) returns a promise rejected with `sealed`
 * (as it would fail when unsealed); any other access throws it.
 *
 * Runtime-neutral.
 * @module
 */
import { sealed } from '../errors.js';
import { returnsPromise } from '../util/promised.js';

/** The method `prop` declared on `proto`'s chain (never runs a getter). */
function methodOf(proto: object, prop: PropertyKey): unknown {
  for (let o: object | null = proto; o !== null; o = Object.getPrototypeOf(o)) {
    const d = Object.getOwnPropertyDescriptor(o, prop);
    if (d) return typeof d.value === 'function' ? d.value : undefined;
  }
  return undefined;
}

/**
 * A facade of an instance of the class with prototype `proto` that resolves
 * `current()` on each use; `undefined` means sealed.
 * @internal
 */
export function sealedRef<T extends object>(proto: T, current: () => T | undefined): T {
  return new Proxy({} as T, {
    get(_target, prop) {
      // Not a thenable: `await node.transit` must not call into the node.
      if (prop === 'then') return undefined;
      const declared = methodOf(proto, prop);
      const live = current();
      if (typeof declared === 'function') {
        // Resolved again at call time, so a kept method reference holds no instance.
        return (...args: unknown[]) => {
          const now = current();
          if (!now) {
            if (returnsPromise(declared)) return Promise.reject(sealed());
            throw sealed();
          }
          return (Reflect.get(now, prop, now) as (...a: unknown[]) => unknown).apply(now, args);
        };
      }
      if (!live) throw sealed();
      return Reflect.get(live, prop, live) as unknown;
    },
    has(_target, prop) {
      return prop in proto;
    },
  });
}
