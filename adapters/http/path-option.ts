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
 * Why `mount` cannot hold the transit routes under `apiPrefix`, or
 * `undefined` when it can. Its ACL paths are the mount below the prefix (or
 * the whole mount when it is outside it, as route-front.ts builds them): they
 * must not start with `sys` or `auth`, whose routes and ACL paths are
 * Vault's (a policy on `sys/*` would then also grant transit), and the mount
 * must not be the prefix itself.
 * @internal
 */
export function mountConflict(mount: string, apiPrefix: string): string | undefined {
  if (mount === apiPrefix) return `mount must be below ${apiPrefix}, not ${apiPrefix} itself`;
  const below = mount.startsWith(`${apiPrefix}/`) ? mount.slice(apiPrefix.length) : mount;
  const first = below.split('/')[1];
  if (first === 'sys' || first === 'auth') {
    return `mount must not put transit's paths under ${first}/ (${mount})`;
  }
  return undefined;
}
