/**
 * The versioned value format `<prefix>:v<N>:<base64>` (reference §1), shared
 * by ciphertexts, signatures and HMACs. Parsing follows Vault's order of
 * checks and messages, so clients that match on them keep working.
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
  if (version < 0) throw invalidRequest(`invalid ${what}: version number could not be decoded`);
  return { version, body: value.slice(sep + 1) };
}
