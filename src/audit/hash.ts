/**
 * Vault's audit hashing: a value becomes `hmac-sha256:<hex>`, the HMAC-SHA256
 * of its UTF-8 bytes under the device's salt (32 random bytes, stored in the
 * barrier with the device). `sys/audit-hash/:path` gives the same value for
 * a known input, so an operator can find a plaintext, token or ciphertext in
 * the log without the log ever holding it.
 *
 * {@link hashStructure} walks a request's or response's data as Vault's
 * `HashStructure` does: every string, at any depth (in objects and lists), is
 * replaced by its hash; numbers, booleans and `null` stay as they are. Bytes
 * (`Uint8Array`) are hashed as their base64 text.
 *
 * Runtime-neutral.
 * @module
 */
import type { CryptoBackend } from '../crypto/backend.js';
import { hmacText } from '../crypto/text.js';
import { encodeBase64 } from '../encoding.js';
import { JsonNumber } from '../util/json-number.js';

/** Vault's prefix of a hashed value. @internal */
export const HMAC_PREFIX = 'hmac-sha256:';

/** A value hasher bound to one salt. @internal */
export type Hasher = (value: string) => string;

/** The hasher of one salt. @internal */
export function saltHasher(backend: CryptoBackend, salt: Uint8Array): Hasher {
  return (value) => HMAC_PREFIX + hmacText(backend, 'sha256', salt, [value], 'hex');
}

/** A token's hashed id and accessor, for one device. @internal */
export interface TokenHashes {
  token: string;
  accessor: string;
}

/** Tokens whose hashes one device keeps (cleared when full). */
const TOKEN_CACHE_MAX = 1024;

/**
 * The hashes of a token for one device, computed once per token: kept by the
 * token's `hash` (the token store's salted SHA-256 of it: the raw token is
 * never a key) when the context carries one, else per context object (a
 * `WeakMap`). A request's two entries, and the requests of one token, then
 * hash it once.
 * @internal
 */
export function tokenHasher(
  hash: Hasher,
): (t: {
  readonly token: string;
  readonly accessor: string;
  readonly hash?: string;
}) => TokenHashes {
  const byContext = new WeakMap<object, TokenHashes>();
  const byDigest = new Map<string, TokenHashes>();
  return (t) => {
    const digest = typeof t.hash === 'string' && t.hash !== '' ? t.hash : undefined;
    let h = digest === undefined ? byContext.get(t) : byDigest.get(digest);
    if (!h) {
      h = { token: hash(t.token), accessor: hash(t.accessor) };
      if (digest === undefined) byContext.set(t, h);
      else {
        if (byDigest.size >= TOKEN_CACHE_MAX) byDigest.clear();
        byDigest.set(digest, h);
      }
    }
    return h;
  };
}

/** `value` with every string (at any depth) hashed; a new value, the input is not changed. @internal */
export function hashStructure(value: unknown, hash: Hasher): unknown {
  if (typeof value === 'string') return hash(value);
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof JsonNumber) return value.toJSON();
  if (value instanceof Uint8Array) return hash(encodeBase64(value));
  if (Array.isArray(value)) return value.map((v) => hashStructure(v, hash));
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[k];
    if (v !== undefined) out[k] = hashStructure(v, hash);
  }
  return out;
}

/** A copy of `value` that JSON can carry (bytes as base64), nothing hashed: for `log_raw`. @internal */
export function rawStructure(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof JsonNumber) return value.toJSON();
  if (value instanceof Uint8Array) return encodeBase64(value);
  if (Array.isArray(value)) return value.map(rawStructure);
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[k];
    if (v !== undefined) out[k] = rawStructure(v);
  }
  return out;
}
