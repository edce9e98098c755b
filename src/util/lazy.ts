/**
 * A module loaded on first use, once: `lazy(() => import('./x.js'))` returns a
 * function that starts the import on its first call and hands every later call
 * the same promise, so a hot path pays one resolved `await`, not a module
 * resolution per call. A failed load is retried on the next call. Bundlers
 * still see the literal `import()` and split the module into its own chunk.
 * Once loaded, the module is also at hand without a promise (`loaded`), for a
 * hot path that should cost no tick at all.
 * @module
 */

/** The loader of a module imported on first use, and the module once it is loaded. @internal */
export interface Lazy<M> {
  (): Promise<M>;
  /** The module, once its import has settled successfully. */
  loaded?: M;
}

/** A {@link Lazy} loader of `load`'s module. @internal */
export function lazy<M>(load: () => Promise<M>): Lazy<M> {
  let loading: Promise<M> | undefined;
  const get: Lazy<M> = () => {
    loading ??= load().then(
      (m) => {
        get.loaded = m;
        return m;
      },
      (error: unknown) => {
        loading = undefined;
        throw error;
      },
    );
    return loading;
  };
  return get;
}
