/**
 * One item through one key version: the sealing and opening that encrypt,
 * decrypt, rewrap, datakey and the stream envelope's data key share.
 *
 * Output is byte-compatible with Vault: `<prefix>:v<N>:base64(nonce ‖ ct ‖ tag)`
 * (convergent v1: no nonce in the payload; RSA: the OAEP ciphertext). A
 * caller `nonce` is accepted only for legacy convergent v1 keys, as Vault
 * after HCSEC-2023-28. `associated_data` on a non-AEAD key is a user error
 * (Vault forgets to flag it as one); an RSA decryption failure has one fixed
 * message.
 *
 * Both directions are synchronous when the version is at hand and the key is
 * symmetric, so a batch item or a single call takes no tick on the hot path.
 * @module
 */
import { type AeadAlgorithm, AeadAuthError } from '../crypto/backend.js';
import { aeadOpenText, aeadSealText, encodeWiped } from '../crypto/text.js';
import { toBytes, tryDecodeBase64Scratch } from '../encoding.js';
import { invalidRequest } from '../errors.js';
import { familyOf } from '../keys/asymmetric/family.js';
import { requireMaterial } from '../keys/asymmetric/material.js';
import { formatVersioned, parseVersioned, versionedHead } from '../keys/ciphertext.js';
import { assertAadBindable, bindsAad, convergentNonce, deriveKey } from '../keys/derive.js';
import type { KeyTypeInfo } from '../keys/key-types.js';
import {
  assertNotSoftDeleted,
  convergentVersionOf,
  decryptionVersion,
  encryptionVersion,
  type KeyPolicy,
  type KeyVersion,
  typeInfo,
} from '../keys/policy.js';
import type { LoadedKey } from '../keys/policy-store.js';
import { optInt } from '../request.js';
import { ITEM_FIELD } from './batch.js';
import type { Engine } from './engine.js';
import type { CiphertextResult } from './types.js';

/**
 * Vault's text for `associated_data` on a non-AEAD key (a user error here),
 * naming the item: `[0]` without a batch, as Vault, and the batch runner
 * puts each item's own index ({@link ITEM_FIELD}).
 */
function refuseAssociatedData(info: KeyTypeInfo, aad: Uint8Array): void {
  if (aad.length > 0 && !info.supportsAssociatedData) {
    throw invalidRequest(
      `${ITEM_FIELD}associated_data' provided for non-AEAD cipher suite ${info.name}`,
    );
  }
}

/**
 * Encrypt `plaintext` with `key` (shared by encrypt, rewrap and datakey).
 * Synchronous when the version is at hand and the key is symmetric (no
 * promise per item of a batch); call it from an async function (its checks
 * throw synchronously).
 * @internal
 */
export function sealWith(
  e: Engine,
  key: LoadedKey,
  item: Record<string, unknown>,
  plaintext: Uint8Array,
): CiphertextResult | Promise<CiphertextResult> {
  const p = key.doc.policy;
  assertNotSoftDeleted(p);
  const info = typeInfo(p);
  if (!info.supportsEncryption) {
    throw invalidRequest(`message encryption not supported for key type ${p.type}`);
  }
  const input: SealInput = {
    e,
    p,
    info,
    plaintext,
    context: toBytes(item.context, 'context'),
    aad: toBytes(item.associated_data, 'associated_data'),
    callerNonce: toBytes(item.nonce, 'nonce'),
    ver: encryptionVersion(p, optInt(item.key_version, 'key_version')),
  };
  return withVersion(e, key, input.ver, sealVersion, input);
}

/**
 * `run(version, arg)` on version `ver` of `key`: at once when the version is
 * at hand (inline or cached: no promise), else once it is read from storage.
 * `run` takes what it needs as `arg`, so a caller passes a module-level
 * function and makes no closure per call.
 * @internal
 */
export function withVersion<A, T>(
  e: Engine,
  key: LoadedKey,
  ver: number,
  run: (version: KeyVersion, arg: A) => T | Promise<T>,
  arg: A,
): T | Promise<T> {
  const at = e.store.cachedVersion(key, ver);
  return at ? run(at, arg) : e.store.version(key, ver).then((version) => run(version, arg));
}

/** What {@link sealWith} checked and decoded of one item, and where it goes. */
interface SealInput {
  readonly e: Engine;
  readonly p: KeyPolicy;
  readonly info: KeyTypeInfo;
  readonly plaintext: Uint8Array;
  readonly context: Uint8Array;
  readonly aad: Uint8Array;
  readonly callerNonce: Uint8Array;
  readonly ver: number;
}

/** The version's convergence, refusing a caller's nonce where it has no use. */
function convergence(p: KeyPolicy, version: KeyVersion, callerNonce: Uint8Array): number {
  const conv = convergentVersionOf(p, version);
  if (callerNonce.length > 0 && conv !== 1) {
    throw invalidRequest('provided nonce not allowed for this key');
  }
  return conv;
}

/** Seal with one version of the key: AEAD (synchronous) or RSA. */
function sealVersion(
  version: KeyVersion,
  input: SealInput,
): CiphertextResult | Promise<CiphertextResult> {
  const alg = input.info.aead;
  return alg ? sealAead(alg, version, input) : sealAsymmetric(version, input);
}

/** Encrypt with an RSA key. */
async function sealAsymmetric(version: KeyVersion, input: SealInput): Promise<CiphertextResult> {
  const { e, p, info } = input;
  convergence(p, version, input.callerNonce);
  refuseAssociatedData(info, input.aad);
  const ct = await familyOf(info).encrypt?.(
    e.backend,
    requireMaterial(version.asymmetric),
    input.plaintext,
  );
  if (!ct) throw invalidRequest(`message encryption not supported for key type ${p.type}`);
  return { ciphertext: formatVersioned(e.prefix, input.ver, ct), key_version: input.ver };
}

/** Encrypt with a symmetric (AEAD) key version. */
function sealAead(alg: AeadAlgorithm, version: KeyVersion, input: SealInput): CiphertextResult {
  const { e, p, info, plaintext, context, aad, callerNonce, ver } = input;
  const conv = convergence(p, version, callerNonce);
  assertAadBindable(conv, aad);
  const derived = deriveKey(
    e.backend,
    p,
    version.key,
    info.keyBytes,
    context,
    conv,
    bindsAad(conv, aad),
  );
  let nonce: Uint8Array;
  if (conv === 1) {
    if (callerNonce.length !== 12) {
      throw invalidRequest(
        'base64-decoded nonce must be 12 bytes long when using convergent encryption with this key',
      );
    }
    nonce = callerNonce;
  } else if (conv > 1) {
    // v3 binds a non-empty AAD into the nonce (keys/derive.ts; README, differences from Vault).
    nonce = convergentNonce(e.backend, conv, derived, context, plaintext, info.nonceBytes, aad);
  } else {
    nonce = e.backend.randomBytes(info.nonceBytes);
  }
  const b = e.backend;
  if (conv === 1) {
    // Legacy convergent v1: the caller keeps the nonce; the payload is the sealed bytes alone.
    const sealed = b.aeadSeal(alg, derived.key, nonce, plaintext, aad);
    return { ciphertext: formatVersioned(e.prefix, ver, sealed), key_version: ver };
  }
  const payload = aeadSealText(b, alg, derived.key, nonce, plaintext, aad, 'base64');
  return { ciphertext: versionedHead(e.prefix, ver) + payload, key_version: ver };
}

/**
 * Decrypt a ciphertext string with `key` (shared by decrypt and rewrap):
 * the plaintext's bytes, or with `asText` its base64 (decrypt's answer,
 * encoded from the backend's own output, which is then wiped).
 * Synchronous when the version is at hand (an AEAD key whose version is
 * inline or cached): no promise on the hot path. Call it from an async
 * function (its checks throw synchronously).
 * @internal
 */
export function openWith(
  e: Engine,
  key: LoadedKey,
  item: Record<string, unknown>,
): Uint8Array | Promise<Uint8Array>;
export function openWith(
  e: Engine,
  key: LoadedKey,
  item: Record<string, unknown>,
  asText: true,
): string | Promise<string>;
export function openWith(
  e: Engine,
  key: LoadedKey,
  item: Record<string, unknown>,
  asText = false,
): Uint8Array | string | Promise<Uint8Array | string> {
  const p = key.doc.policy;
  assertNotSoftDeleted(p);
  const info = typeInfo(p);
  if (!info.supportsDecryption) {
    throw invalidRequest(`message decryption not supported for key type ${p.type}`);
  }
  if (item.ciphertext === undefined || item.ciphertext === '') {
    throw invalidRequest('missing ciphertext to decrypt');
  }
  if (typeof item.ciphertext !== 'string') throw invalidRequest("'ciphertext' must be a string");
  const context = toBytes(item.context, 'context');
  const aad = toBytes(item.associated_data, 'associated_data');
  const callerNonce = toBytes(item.nonce, 'nonce');
  const parsed = parseVersioned(item.ciphertext, e.prefix, 'ciphertext');
  const ver = decryptionVersion(p, parsed.version, 'ciphertext');
  const payload = tryDecodeBase64Scratch(parsed.body); // read by the open, then dropped
  if (!payload) throw invalidRequest('invalid ciphertext: could not decode base64');
  // The hot path: an AEAD version at hand opens at once, with no input record.
  const alg = info.aead;
  const at = alg ? e.store.cachedVersion(key, ver) : undefined;
  if (alg && at) return openAead(alg, at, e, p, info, payload, context, aad, callerNonce, asText);
  const input: OpenInput = { e, p, info, payload, context, aad, callerNonce, asText };
  return withVersion(e, key, ver, openVersion, input);
}

/** What {@link openWith} checked and decoded of one item, and how to answer. */
interface OpenInput {
  readonly e: Engine;
  readonly p: KeyPolicy;
  readonly info: KeyTypeInfo;
  readonly payload: Uint8Array;
  readonly context: Uint8Array;
  readonly aad: Uint8Array;
  readonly callerNonce: Uint8Array;
  /** Answer base64 text (decrypt) rather than bytes (rewrap, datakey). */
  readonly asText: boolean;
}

/** Open with one version of the key: AEAD (synchronous) or RSA. */
function openVersion(
  version: KeyVersion,
  input: OpenInput,
): Uint8Array | string | Promise<Uint8Array | string> {
  const { e, p, info, payload, context, aad, callerNonce, asText } = input;
  const alg = info.aead;
  if (alg) return openAead(alg, version, e, p, info, payload, context, aad, callerNonce, asText);
  const plain = openAsymmetric(version, input);
  return input.asText ? plain.then((bytes) => encodeWiped(bytes, 'base64')) : plain;
}

/** Decrypt with an RSA key. */
async function openAsymmetric(version: KeyVersion, input: OpenInput): Promise<Uint8Array> {
  const { e, p, info } = input;
  refuseAssociatedData(info, input.aad);
  const family = familyOf(info);
  const material = requireMaterial(version.asymmetric);
  const plain = await family.decrypt?.(e.backend, material, input.payload);
  if (!plain) throw invalidRequest(`message decryption not supported for key type ${p.type}`);
  return plain;
}

/** Go's message for a tag that does not verify (crypto/cipher's, or x/crypto's for ChaCha20). */
const authFailed = (alg: AeadAlgorithm) =>
  invalidRequest(
    alg === 'aes-gcm'
      ? 'cipher: message authentication failed'
      : 'chacha20poly1305: message authentication failed',
  );

/**
 * Decrypt with an AEAD key's version (synchronous): bytes, or with `asText`
 * base64. {@link OpenInput}'s fields as arguments: the hot path makes no record.
 */
function openAead(
  alg: AeadAlgorithm,
  version: KeyVersion,
  e: Engine,
  p: KeyPolicy,
  info: KeyTypeInfo,
  payload: Uint8Array,
  context: Uint8Array,
  aad: Uint8Array,
  callerNonce: Uint8Array,
  asText: boolean,
): Uint8Array | string {
  const conv = convergentVersionOf(p, version);
  // A key without derivation opens with the version's own key (no derived record).
  const key = p.derived
    ? deriveKey(e.backend, p, version.key, info.keyBytes, context, conv).key
    : version.key;
  let nonce: Uint8Array;
  let sealed: Uint8Array;
  if (conv === 1) {
    if (callerNonce.length !== 12) throw invalidRequest('invalid convergent nonce supplied');
    nonce = callerNonce;
    sealed = payload;
  } else {
    // As Vault: only a payload shorter than the nonce is a length error; a
    // missing or short tag is an authentication failure.
    if (payload.length < info.nonceBytes) throw invalidRequest('invalid ciphertext length');
    nonce = payload.subarray(0, info.nonceBytes);
    sealed = payload.subarray(info.nonceBytes);
  }
  if (sealed.length < 16) throw authFailed(alg);
  try {
    return asText
      ? aeadOpenText(e.backend, alg, key, nonce, sealed, aad, 'base64')
      : e.backend.aeadOpen(alg, key, nonce, sealed, aad);
  } catch (err) {
    if (err instanceof AeadAuthError) throw authFailed(alg);
    throw invalidRequest('invalid ciphertext', err);
  }
}
