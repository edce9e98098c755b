/**
 * Where a {@link RedisStorage} puts things in Redis, and how storage keys map
 * to sorted-set members so that Redis' byte order is JavaScript's string order.
 *
 * Every Redis key of one store starts with the hash tag `{<prefix>}`, so in a
 * Redis Cluster they all live in one slot and the multi-key Lua scripts (value +
 * index, lock + holder) are legal. Layout for the default prefix `transitkit:`:
 *
 * - `{transitkit:}v:<key>`: the value of storage key `<key>` (a binary string);
 * - `{transitkit:}index`: a sorted set of every key (score 0), for `list`;
 * - `{transitkit:}lock:<name>`: a held lock (its token, with a PX expiry);
 * - `{transitkit:}holder:<name>`: the token of the last taker, until it releases;
 * - `{transitkit:}ops` and `{transitkit:}ops:due`: a hash of each write's
 *   result by its random id, and when each goes (about two minutes later), so
 *   that a re-sent write does not run twice (scripts.ts);
 * - channel `{transitkit:}changes`: one message (the key) per write or delete.
 *
 * @module
 */
import { Buffer } from 'node:buffer';
import { invalidRequest } from '../../src/errors.js';

/** The key prefix used when none is given. */
export const DEFAULT_PREFIX = 'transitkit:';

/** Redis names of one store. @internal */
export interface KeyLayout {
  /** The prefix as given (without braces). */
  readonly prefix: string;
  /** The sorted set of all storage keys. */
  readonly index: string;
  /** The pub/sub channel of change notifications. */
  readonly channel: string;
  /** The Redis key holding the value of storage key `key`. */
  value(key: string): string;
  /** The Redis key of the lock `name`. */
  lock(name: string): string;
  /** The Redis key remembering the last taker of lock `name`. */
  holder(name: string): string;
  /** The hash of recent writes' outcomes, by write id. */
  readonly ops: string;
  /** The sorted set of when each outcome in {@link KeyLayout.ops} goes (server ms). */
  readonly opsDue: string;
}

const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * Validate `prefix` and build the layout; `scope` ends the change channel's
 * name (the client's database and keyPrefix, {@link channelScope}).
 * @throws `TransitError` `invalid_request` for an empty prefix, braces (they would
 * break the hash tag), NUL, a lone surrogate, or more than 256 characters.
 * @internal
 */
export function layoutFor(prefix: unknown = DEFAULT_PREFIX, scope = ''): KeyLayout {
  if (typeof prefix !== 'string' || prefix.length === 0 || prefix.length > 256) {
    throw invalidRequest('RedisStorage prefix must be a string of 1 to 256 characters');
  }
  if (/[{}\0]/.test(prefix) || LONE_SURROGATE.test(prefix)) {
    throw invalidRequest(
      'RedisStorage prefix must not contain "{", "}" or NUL and must be well-formed Unicode',
    );
  }
  const tag = `{${prefix}}`;
  return {
    prefix,
    index: `${tag}index`,
    // Pub/sub channels are server-wide, not per database nor under a client's
    // keyPrefix: `scope` names both, so stores of one prefix in two databases
    // do not hear (nor learn the keys of) each other's writes.
    channel: `${tag}changes${scope}`,
    value: (key) => `${tag}v:${key}`,
    lock: (name) => `${tag}lock:${name}`,
    holder: (name) => `${tag}holder:${name}`,
    ops: `${tag}ops`,
    opsDue: `${tag}ops:due`,
  };
}

/**
 * The sorted-set member of a storage key: its UTF-16 code units, big-endian.
 * Byte order of UTF-16BE is UTF-16 code-unit order, which is JavaScript's string
 * order (UTF-8 would give code-point order, which differs above U+FFFF), and a
 * string prefix is exactly a byte prefix.
 * @internal
 */
export function encodeMember(key: string): Buffer {
  return Buffer.from(key, 'utf16le').swap16();
}

/** Inverse of {@link encodeMember}. @internal */
export function decodeMember(member: Buffer): string {
  return Buffer.from(member).swap16().toString('utf16le');
}

/**
 * ZRANGEBYLEX bounds for "keys starting with `prefix`, strictly after
 * `prefix + after` when `after` is given".
 * @internal
 */
export function lexRange(prefix: string, after: string | undefined): [Buffer, Buffer] {
  const min =
    after !== undefined
      ? Buffer.concat([Buffer.from('('), encodeMember(prefix + after)])
      : prefix === ''
        ? Buffer.from('-')
        : Buffer.concat([Buffer.from('['), encodeMember(prefix)]);
  const next = successor(encodeMember(prefix));
  const max = next === undefined ? Buffer.from('+') : Buffer.concat([Buffer.from('('), next]);
  return [min, max];
}

/**
 * The smallest byte string greater than every string that starts with `bytes`,
 * or `undefined` when there is none (empty, or all 0xff).
 */
function successor(bytes: Buffer): Buffer | undefined {
  let end = bytes.length;
  while (end > 0 && bytes[end - 1] === 0xff) end--;
  if (end === 0) return undefined;
  const out = Buffer.from(bytes.subarray(0, end));
  out[end - 1] = (out[end - 1] as number) + 1;
  return out;
}

/**
 * What a client's writes are scoped to beyond `prefix`: its database (`:<db>`)
 * and, when set, ioredis' `keyPrefix` (`:<keyPrefix>`). @internal
 */
export function channelScope(options: { db?: number; keyPrefix?: string } | undefined): string {
  const kp = options?.keyPrefix ?? '';
  return `:${options?.db ?? 0}${kp === '' ? '' : `:${kp}`}`;
}
