/**
 * A module loaded on first use, once: `lazy(() => import('./x.js'))` returns a
 * function that starts the import on its first call and hands every later call
 * the same promise, so a hot path pays one resolved `await`, not a module
 * resolution per call. A failed load is retried on the next call. Bundlers
 * still see the literal `import()` and split the module into its own chunk.
 * @module
 */

/** The loader of a module imported on first use. @internal */
export function lazy<M>(load: () => Promise<M>): () => Promise<M> {
  let loading: Promise<M> | undefined;
  return () => {
    loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
}
