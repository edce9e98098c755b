/**
 * The versioned value format `<prefix>:v<N>:<base64>` (reference §1), shared
 * by ciphertexts, signatures and HMACs. Parsing follows Vault's order of
 * checks and messages, so clients that match on them keep working.
 * @module
 */
import { encodeBase64 } from '../encoding.js';
import { invalidRequest } from '../errors.js';

/** Format a versioned value; a string payload is already base64. @internal */
export const formatVersioned = (
  prefix: string,
  version: number,
  payload: Uint8Array | string,
): string =>
  `${prefix}:v${version}:${typeof payload === 'string' ? payload : encodeBase64(payload)}`;

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
  const head = `${prefix}:v`;
  if (!value.startsWith(head)) throw invalidRequest(`invalid ${what}: no prefix`);
  const rest = value.slice(head.length);
  const sep = rest.indexOf(':');
  if (sep < 0) throw invalidRequest(`invalid ${what}: wrong number of fields`);
  const digits = rest.slice(0, sep);
  if (!/^[0-9]{1,15}$/.test(digits)) {
    throw invalidRequest(`invalid ${what}: version number could not be decoded`);
  }
  return { version: Number(digits), body: rest.slice(sep + 1) };
}
