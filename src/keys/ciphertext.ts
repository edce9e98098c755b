/**
 * The versioned value format `<prefix>:v<N>:<base64>` (reference §1), shared
 * by ciphertexts, signatures and HMACs. Parsing follows Vault's order of
 * checks and messages, so clients that match on them keep working; the
 * version is read as Go's `strconv.Atoi` reads it (sign, leading zeros,
 * int64), and the callers' policy checks judge it (`v-1` is too old).
 * @module
 */
import { encodeBase64 } from '../encoding.js';
import { invalidRequest } from '../errors.js';

/** The head `<prefix>:v<N>:` last built: one value's prefix and version repeat call after call. */
let head = { prefix: '', version: -1, text: '' };

/** `<prefix>:v<N>:`, built once while the prefix and version stay the same. @internal */
export function versionedHead(prefix: string, version: number): string {
  const h = head;
  if (h.version === version && h.prefix === prefix) return h.text;
  head = { prefix, version, text: `${prefix}:v${version}:` };
  return head.text;
}

/** Format a versioned value; a string payload is already base64. @internal */
export const formatVersioned = (
  prefix: string,
  version: number,
  payload: Uint8Array | string,
): string =>
  versionedHead(prefix, version) + (typeof payload === 'string' ? payload : encodeBase64(payload));

/**
 * Split `<prefix>:v<N>:<rest>` into version and the encoded rest.
 * `what` names the value in messages (`ciphertext`, `HMAC`, `signature`).
 * @internal
 */
export function parseVersioned(
  value: unknown,
  prefix: string,
  what: string,
): { version: number; body: string } {
  if (typeof value !== 'string' || value === '') throw invalidRequest(`missing ${what}`);
  // `<prefix>:v` is matched piecewise, and the version's digits read in one
  // pass (no sliced copies, no regular expression): Vault's checks, in its order.
  const start = prefix.length + 2;
  if (
    value.length < start ||
    !value.startsWith(prefix) ||
    value.charCodeAt(prefix.length) !== 58 /* : */ ||
    value.charCodeAt(prefix.length + 1) !== 118 /* v */
  ) {
    throw invalidRequest(`invalid ${what}: no prefix`);
  }
  const sep = value.indexOf(':', start);
  if (sep < 0) throw invalidRequest(`invalid ${what}: wrong number of fields`);
  let version = sep > start && sep - start <= 15 ? 0 : -1;
  for (let i = start; i < sep && version >= 0; i++) {
    const d = value.charCodeAt(i) - 48;
    version = d >= 0 && d <= 9 ? version * 10 + d : -1;
  }
  // Not 1-15 plain digits: the rest of Atoi's syntax (sign, long runs of
  // zeros, int64 range), read only here, off the path of a well-formed value.
  if (version < 0) version = atoi(value, start, sep, what);
  return { version, body: value.slice(sep + 1) };
}

/** int64's largest magnitudes, positive and negative, as digits. */
const INT64_MAX = '9223372036854775807';
const INT64_MIN = '9223372036854775808';

/**
 * Go's `strconv.Atoi` over `value[start, end)` (Vault reads the version with
 * it): an optional sign, then ASCII digits, leading zeros allowed, within
 * int64. So `-1` is -1 (the policy then finds it too old), `+1` and `01` are
 * 1, `-0` is 0; a value past int64, an empty text, a lone sign or any other
 * character is Atoi's error. A value beyond 2^53 is the nearest double: it
 * is only compared with key versions. One linear pass (no regular
 * expression: the text may be long).
 * @throws TransitError `invalid_request` `invalid <what>: version number could not be decoded`.
 */
function atoi(value: string, start: number, end: number, what: string): number {
  const sign = value.charCodeAt(start);
  let i = sign === 43 /* + */ || sign === 45 /* - */ ? start + 1 : start;
  while (i < end - 1 && value.charCodeAt(i) === 48 /* 0 */) i++; // keeps one digit
  const limit = sign === 45 ? INT64_MIN : INT64_MAX;
  let ok = i < end && end - i <= limit.length;
  for (let j = i; ok && j < end; j++) {
    const d = value.charCodeAt(j) - 48;
    ok = d >= 0 && d <= 9;
  }
  const digits = ok ? value.slice(i, end) : '';
  if (!ok || (digits.length === limit.length && digits > limit)) {
    throw invalidRequest(`invalid ${what}: version number could not be decoded`);
  }
  const n = Number(digits);
  return sign === 45 && n !== 0 ? -n : n;
}
