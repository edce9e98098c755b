/**
 * Waiting for something to settle, but not forever: a close or a stop that
 * waits for work in flight must finish even when a storage call never answers.
 * @module
 */

/**
 * Resolves once `p` settles (fulfilled or rejected: never rejects) or `ms`
 * have passed, whichever is first. The timer is unref'd: it keeps no process
 * alive. `undefined` resolves at once.
 * @internal
 */
export function settledWithin(p: Promise<unknown> | undefined, ms: number): Promise<void> {
  if (p === undefined) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    (t as { unref?: () => void }).unref?.();
    const done = () => {
      clearTimeout(t);
      resolve();
    };
    p.then(done, done);
  });
}
