/**
 * The `transit/random(/:source)(/:bytes)` route's reading of its URL, as
 * Vault's `helper/random/random_api.go` reads it.
 * @module
 */
import { invalidRequest } from '../../src/errors.js';
import { isRandomSource } from '../../src/transit/hash-random.js';

/**
 * Vault's reading of `random/<segment>` (`HandleRandomAPI`): one segment that
 * is no source is the byte count, parsed as Go's `strconv.Atoi` (a bad one is
 * `error parsing url-set byte count: …`); `random/<source>/<bytes>` keeps both.
 * @internal
 */
export function randomUrl(
  path: Readonly<Record<string, string>>,
  body: Record<string, unknown>,
): Record<string, unknown> {
  const segment = path.source;
  if (segment === undefined || path.bytes !== undefined || isRandomSource(segment)) return body;
  const { source: _, ...rest } = body;
  return { ...rest, bytes: goAtoi(segment) };
}

/**
 * Go's `strconv.Atoi`, with its error text. (A segment of digits, signed or
 * not, never gets here: the router gives it to `:bytes`, an int field.)
 */
function goAtoi(s: string): number {
  if (!/^[+-]?[0-9]+$/.test(s)) {
    throw invalidRequest(
      `error parsing url-set byte count: strconv.Atoi: parsing ${JSON.stringify(s)}: invalid syntax`,
    );
  }
  return Number(s);
}
