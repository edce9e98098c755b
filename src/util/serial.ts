/**
 * One-at-a-time async steps: each runs after the one asked before it has
 * settled, whether it succeeded or failed (a failure is its caller's, and
 * does not stop the next step). The state changes of a node and of an
 * instance's audit devices run this way.
 * @module
 */

/** A step runner (see the module). @internal */
export type Serial = <T>(fn: () => Promise<T>) => Promise<T>;

/** A new, empty {@link Serial}. @internal */
export function serial(): Serial {
  let tail: Promise<unknown> = Promise.resolve();
  return (fn) => {
    const run = tail.then(fn, fn);
    tail = run.catch(() => undefined);
    return run;
  };
}
