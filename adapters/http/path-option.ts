/**
 * The path options of the HTTP handler (`mount`, `apiPrefix`): checked by
 * `createHandler` and, naming the flag or config key, by the CLI server
 * before it opens storage.
 *
 * Runtime-neutral.
 * @module
 */

/** `/`-separated segments of URL-safe characters, no trailing slash. */
const PATH = /^(\/[A-Za-z0-9_.~-]+)+$/;

/** Whether `v` is a path option such as `/v1/transit`. @internal */
export function isPathOption(v: unknown): v is string {
  return typeof v === 'string' && PATH.test(v);
}

/**
 * Why `mount` cannot hold the transit routes under `apiPrefix` (it would be
 * the prefix itself, or under its `sys` or `auth` paths, whose routes and ACL
 * paths are Vault's: a policy on `sys/*` would then also grant transit), or
 * `undefined` when it can.
 * @internal
 */
export function mountConflict(mount: string, apiPrefix: string): string | undefined {
  if (mount === apiPrefix) return `mount must be below ${apiPrefix}, not ${apiPrefix} itself`;
  for (const reserved of [`${apiPrefix}/sys`, `${apiPrefix}/auth`]) {
    if (mount === reserved || mount.startsWith(`${reserved}/`)) {
      return `mount must not be under ${reserved}`;
    }
  }
  return undefined;
}
