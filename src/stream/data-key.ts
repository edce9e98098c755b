/**
 * The data key of a stream, wrapped and unwrapped by a named transit key
 * through the very code paths of `transit/datakey` and `transit/decrypt`
 * (`sealWith`/`openWith`): the same key-type rules, soft-delete refusal,
 * version bounds (`key_version`, `min_encryption_version`,
 * `min_decryption_version`), derived-key `context`, convergent nonces.
 *
 * Convergent keys: the wrapped value is a convergent encryption of a fresh
 * random 32-byte key, so its nonce (derived from that key and the context)
 * never repeats, and the stream itself still uses a fresh key and salt: equal
 * plaintexts give unrelated envelopes. Legacy convergent v1 keys need a
 * caller nonce and are refused, as `datakey` refuses them without one.
 * @module
 */
import type { BinaryInput } from '../encoding.js';
import { invalidRequest, notFound } from '../errors.js';
import { checkKeyName } from '../keys/names.js';
import type { LoadedKey } from '../keys/policy-store.js';
import { asRequest } from '../request.js';
import type { Engine } from '../transit/engine.js';
import { openWith, sealWith } from '../transit/seal-open.js';

/** Data key size: Cobblestone-256 takes a 32-byte input key. */
export const DATA_KEY_SIZE = 32;

/**
 * Options of {@link Transit.encryptStream}.
 * @public
 */
export interface StreamEncryptOptions {
  /** Key derivation context (base64 or bytes), required by derived keys, as for `datakey`. */
  context?: BinaryInput;
  /** The key version that wraps the data key; omitted or 0 means the latest. */
  keyVersion?: number;
}

/**
 * Options of {@link Transit.decryptStream} and {@link Transit.openEncrypted}.
 * @public
 */
export interface StreamDecryptOptions {
  /** The context the stream was encrypted with (derived keys). */
  context?: BinaryInput;
}

/** The options object, with no field outside `known` (a typo is refused, not ignored). */
function optionsOf(options: unknown, known: readonly string[]): Record<string, unknown> {
  const o = asRequest(options, 'options');
  for (const k of Object.keys(o)) {
    if (!known.includes(k)) throw invalidRequest(`unknown stream option '${k}'`);
  }
  return o;
}

/**
 * Check decrypt options up front (the decrypt stream does it before any input).
 * @throws TransitError `invalid_request` for a non-object or an unknown field.
 * @internal
 */
export function checkDecryptOptions(options: unknown): void {
  optionsOf(options, ['context']);
}

async function loadKey(e: Engine, name: string): Promise<LoadedKey> {
  checkKeyName(name);
  const key = await e.store.get(name);
  if (!key) throw notFound('encryption key not found');
  return key;
}

/**
 * A fresh data key and its transit ciphertext under `name` (`vault:v<N>:…`).
 * @throws TransitError `not_found` for a missing key; `invalid_request` for a
 *   key that cannot encrypt, a missing or bad context, or a bad version.
 * @internal
 */
export async function wrapDataKey(
  e: Engine,
  name: string,
  options: StreamEncryptOptions = {},
): Promise<{ dataKey: Uint8Array; wrapped: string }> {
  const o = optionsOf(options, ['context', 'keyVersion']);
  const key = await loadKey(e, name);
  // Counted as the transit operation it is (metrics): a data key wrapped.
  e.ops('datakey', key.doc.policy.type, undefined);
  const dataKey = e.backend.randomBytes(DATA_KEY_SIZE);
  const { ciphertext } = await sealWith(
    e,
    key,
    { context: o.context, key_version: o.keyVersion },
    dataKey,
  );
  return { dataKey, wrapped: ciphertext };
}

/**
 * The data key inside `wrapped`, decrypted with `name` as `transit/decrypt` would.
 * @throws TransitError `not_found` for a missing key; `invalid_request` when
 *   the value does not decrypt (wrong key or context, version below
 *   `min_decryption_version`, soft-deleted key) or is not a 32-byte key.
 * @internal
 */
export async function unwrapDataKey(
  e: Engine,
  name: string,
  wrapped: string,
  options: StreamDecryptOptions = {},
): Promise<Uint8Array> {
  const o = optionsOf(options, ['context']);
  const key = await loadKey(e, name);
  e.ops('decrypt', key.doc.policy.type, undefined);
  const dataKey = await openWith(e, key, { ciphertext: wrapped, context: o.context });
  if (dataKey.length !== DATA_KEY_SIZE) {
    throw invalidRequest('stream: the wrapped data key is not a 32-byte key');
  }
  return dataKey;
}
