/**
 * Encrypt, decrypt and rewrap with AEAD keys (reference §1–§3) and RSA keys
 * (RSA-OAEP with SHA-256 and an empty label, reference §1).
 *
 * Routes: `POST /transit/encrypt/:name`, `POST /transit/decrypt/:name`,
 * `POST /transit/rewrap/:name`.
 *
 * Output is byte-compatible with Vault: `<prefix>:v<N>:base64(nonce ‖ ct ‖ tag)`
 * (convergent v1: no nonce in the payload; RSA: the OAEP ciphertext). A
 * caller `nonce` is accepted only for legacy convergent v1 keys, as Vault
 * after HCSEC-2023-28. `associated_data` on a non-AEAD key is a user error
 * (Vault forgets to flag it as one); an RSA decryption failure has one fixed
 * message.
 * @module
 */
import { type AeadAlgorithm, AeadAuthError } from '../crypto/backend.js';
import { concatBytes, encodeBase64, toBytes, tryDecodeBase64 } from '../encoding.js';
import { invalidRequest } from '../errors.js';
import { familyOf } from '../keys/asymmetric/family.js';
import { requireMaterial } from '../keys/asymmetric/material.js';
import { formatVersioned, parseVersioned } from '../keys/ciphertext.js';
import { assertAadBindable, bindsAad, convergentNonce, deriveKey } from '../keys/derive.js';
import { DEFAULT_KEY_TYPE, type KeyTypeInfo, keyType } from '../keys/key-types.js';
import { checkKeyName } from '../keys/names.js';
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
import { asRequest, optBool, optInt, optString } from '../request.js';
import { batchErrorCodes } from '../result-meta.js';
import { schemaFor } from '../schema.js';
import { optionalBatch, runBatch } from './batch.js';
import { type Engine, requireKey } from './engine.js';
import * as F from './fields.js';
import { buildPolicy } from './keys.js';
import { newVersion } from './material.js';
import type {
  BatchResult,
  CiphertextBatchItem,
  CiphertextResult,
  DecryptBatchItem,
  DecryptRequest,
  EncryptOptions,
  EncryptRequest,
  RewrapRequest,
} from './types.js';

/** Fields of `POST /transit/encrypt/:name`. @public */
export const ENCRYPT_FIELDS = schemaFor<EncryptRequest>()({
  plaintext: { type: 'string', binary: true, description: 'Base64 plaintext to encrypt.' },
  context: F.CONTEXT,
  associated_data: F.ASSOCIATED_DATA,
  nonce: F.NONCE,
  reference: F.REFERENCE,
  batch_input: F.BATCH_INPUT,
  key_version: F.KEY_VERSION,
  type: { ...F.KEY_TYPE, description: 'Type of a key created by upsert.' },
  convergent_encryption: {
    ...F.CONVERGENT_ENCRYPTION,
    description: 'Convergent encryption for a key created by upsert (needs a context).',
  },
  partial_failure_response_code: F.PARTIAL_FAILURE_RESPONSE_CODE,
});

/** Fields of `POST /transit/decrypt/:name`. @public */
export const DECRYPT_FIELDS = schemaFor<DecryptRequest>()({
  ciphertext: { type: 'string', description: 'The ciphertext, `vault:v<N>:…`.' },
  context: F.CONTEXT,
  associated_data: F.ASSOCIATED_DATA,
  nonce: F.NONCE,
  reference: F.REFERENCE,
  batch_input: F.BATCH_INPUT,
  partial_failure_response_code: F.PARTIAL_FAILURE_RESPONSE_CODE,
});

/**
 * Fields of `POST /transit/rewrap/:name`. The library type also declares
 * `partial_failure_response_code`, which Vault's rewrap route does not take.
 * @public
 */
export const REWRAP_FIELDS = schemaFor<Omit<RewrapRequest, 'partial_failure_response_code'>>()({
  ciphertext: { type: 'string', description: 'The ciphertext to re-encrypt, `vault:v<N>:…`.' },
  context: F.CONTEXT,
  associated_data: F.ASSOCIATED_DATA,
  nonce: F.NONCE,
  reference: F.REFERENCE,
  batch_input: F.BATCH_INPUT,
  key_version: { ...F.KEY_VERSION, description: 'The key version to re-encrypt with; 0 = latest.' },
});

const NOT_FOUND = 'encryption key not found';

/** Vault's text for `associated_data` on a non-AEAD key (a user error here). */
function refuseAssociatedData(info: KeyTypeInfo, aad: Uint8Array): void {
  if (aad.length > 0 && !info.supportsAssociatedData) {
    throw invalidRequest(`'associated_data' provided for non-AEAD cipher suite ${info.name}`);
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
    plaintext,
    context: toBytes(item.context, 'context'),
    aad: toBytes(item.associated_data, 'associated_data'),
    callerNonce: toBytes(item.nonce, 'nonce'),
    ver: encryptionVersion(p, optInt(item.key_version, 'key_version')),
  };
  return withVersion(e, key, input.ver, (version) =>
    info.aead
      ? sealAead(e, p, info, info.aead, version, input)
      : sealAsymmetric(e, p, info, version, input),
  );
}

/**
 * `run` on version `ver` of `key`: at once when the version is at hand
 * (inline or cached: no promise), else once it is read from storage.
 */
function withVersion<T>(
  e: Engine,
  key: LoadedKey,
  ver: number,
  run: (version: KeyVersion) => T | Promise<T>,
): T | Promise<T> {
  const at = e.store.cachedVersion(key, ver);
  return at ? run(at) : e.store.version(key, ver).then(run);
}

/** What {@link sealWith} checked and decoded of one item. */
interface SealInput {
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

/** Encrypt with an RSA key. */
async function sealAsymmetric(
  e: Engine,
  p: KeyPolicy,
  info: KeyTypeInfo,
  version: KeyVersion,
  input: SealInput,
): Promise<CiphertextResult> {
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
function sealAead(
  e: Engine,
  p: KeyPolicy,
  info: KeyTypeInfo,
  alg: AeadAlgorithm,
  version: KeyVersion,
  input: SealInput,
): CiphertextResult {
  const { plaintext, context, aad, callerNonce, ver } = input;
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
  const sealed = e.backend.aeadSeal(alg, derived.key, nonce, plaintext, aad);
  if (conv === 1) return { ciphertext: formatVersioned(e.prefix, ver, sealed), key_version: ver };
  // base64(nonce ‖ sealed) is base64(nonce) + base64(sealed) when the nonce is
  // whole 3-byte groups (12 and 24 bytes are): no copy of the sealed bytes.
  const ciphertext =
    nonce.length % 3 === 0
      ? `${e.prefix}:v${ver}:${encodeBase64(nonce)}${encodeBase64(sealed)}`
      : formatVersioned(e.prefix, ver, concatBytes(nonce, sealed));
  return { ciphertext, key_version: ver };
}

/**
 * Decrypt a ciphertext string with `key` (shared by decrypt and rewrap).
 * Synchronous when the version is at hand (an AEAD key whose version is
 * inline or cached): no promise on the hot path. Call it from an async
 * function (its checks throw synchronously).
 * @internal
 */
export function openWith(
  e: Engine,
  key: LoadedKey,
  item: Record<string, unknown>,
): Uint8Array | Promise<Uint8Array> {
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
  const payload = tryDecodeBase64(parsed.body);
  if (!payload) throw invalidRequest('invalid ciphertext: could not decode base64');
  const input = { payload, context, aad, callerNonce };
  return withVersion(e, key, ver, (version) =>
    info.aead
      ? openAead(e, p, info, info.aead, version, input)
      : openAsymmetric(e, p, info, version, payload, aad),
  );
}

/** Decrypt with an RSA key. */
async function openAsymmetric(
  e: Engine,
  p: KeyPolicy,
  info: KeyTypeInfo,
  version: KeyVersion,
  payload: Uint8Array,
  aad: Uint8Array,
): Promise<Uint8Array> {
  refuseAssociatedData(info, aad);
  const family = familyOf(info);
  const material = requireMaterial(version.asymmetric);
  const plain = await family.decrypt?.(e.backend, material, payload);
  if (!plain) throw invalidRequest(`message decryption not supported for key type ${p.type}`);
  return plain;
}

/** Decrypt with an AEAD key's version (synchronous). */
function openAead(
  e: Engine,
  p: KeyPolicy,
  info: KeyTypeInfo,
  alg: AeadAlgorithm,
  version: KeyVersion,
  input: { payload: Uint8Array; context: Uint8Array; aad: Uint8Array; callerNonce: Uint8Array },
): Uint8Array {
  const { payload, context, aad, callerNonce } = input;
  const conv = convergentVersionOf(p, version);
  const derived = deriveKey(e.backend, p, version.key, info.keyBytes, context, conv);
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
  const authFailed = () =>
    invalidRequest(
      alg === 'aes-gcm'
        ? 'cipher: message authentication failed'
        : 'chacha20poly1305: message authentication failed',
    );
  if (sealed.length < 16) throw authFailed();
  try {
    return e.backend.aeadOpen(alg, derived.key, nonce, sealed, aad);
  } catch (err) {
    if (err instanceof AeadAuthError) throw authFailed();
    throw invalidRequest('invalid ciphertext', err);
  }
}

function plaintextOf(item: Record<string, unknown>): Uint8Array {
  if (item.plaintext === undefined || item.plaintext === null) {
    throw invalidRequest('missing plaintext to encrypt');
  }
  return toBytes(item.plaintext, 'plaintext');
}

/** A binary field is present (a non-empty string or byte array), before decoding. */
const present = (v: unknown): boolean =>
  (typeof v === 'string' && v !== '') || (v instanceof Uint8Array && v.length > 0);

/**
 * The key an encrypt upsert would create, built in memory only: it is stored
 * after the operation succeeds, so a rejected request never creates a key.
 */
async function pendingKey(
  e: Engine,
  name: string,
  r: Record<string, unknown>,
  first: Record<string, unknown>,
): Promise<LoadedKey> {
  const typeName = optString(r.type, 'type') ?? DEFAULT_KEY_TYPE;
  const info = keyType(typeName);
  if (info.upsert === 'unknown') throw invalidRequest(`unknown key type ${typeName}`);
  if (info.upsert === 'unsupported') {
    throw invalidRequest(`key type ${info.name} not supported for this operation`);
  }
  const derived = present(first.context);
  const convergent = optBool(r.convergent_encryption, 'convergent_encryption') ?? false;
  if (convergent && !derived) {
    throw invalidRequest(
      'convergent encryption requires derivation to be enabled, so context is required',
    );
  }
  const policy = buildPolicy(name, { type: info.name, derived, convergent_encryption: convergent });
  const versions = new Map([[1, await newVersion(e, policy, info)]]);
  return { doc: { uid: '', policy, versions }, raw: new Uint8Array(0) };
}

type EncryptResult = CiphertextResult | BatchResult<CiphertextBatchItem>;

/** @internal */
export async function encrypt(
  e: Engine,
  name: string,
  req: EncryptRequest,
  options: EncryptOptions = {},
): Promise<EncryptResult> {
  checkKeyName(name);
  const r = ENCRYPT_FIELDS.request(req);
  const upsertAllowed = optBool(asRequest(options, 'options').upsert, 'upsert') ?? true;
  const batch = optionalBatch(r, e.maxBatch);
  if (batch) {
    const withContext = present(batch[0]?.context);
    batch.forEach((item, i) => {
      if (present(item.context) !== withContext) {
        throw invalidRequest('context should be set either in all the request blocks or in none');
      }
      if (item.plaintext === undefined || item.plaintext === null) {
        throw invalidRequest(
          `failed to parse batch input: '[${i}].plaintext' missing plaintext to encrypt`,
        );
      }
    });
  }
  const run = async (key: LoadedKey): Promise<EncryptResult> => {
    e.ops('encrypt', key.doc.policy.type, batch);
    if (!batch) return sealWith(e, key, r, plaintextOf(r));
    return runBatch<CiphertextBatchItem>(
      batch,
      (item) => sealWith(e, key, item, plaintextOf(item)),
      (error) => ({ error }),
    );
  };
  const existing = e.store.cached(name) ?? (await e.store.get(name));
  if (existing) return run(existing);
  if (!upsertAllowed || e.settings.disable_upsert) throw invalidRequest(NOT_FOUND);
  const pending = await pendingKey(e, name, r, batch?.[0] ?? r);
  const result = await run(pending);
  if (batch && batchErrorCodes(result).length === batch.length) return result;
  const { key, created } = await e.store.create(pending.doc.policy, pending.doc.versions);
  // Another writer created the key first: our output used material that was
  // never stored, so redo the operation with the stored key.
  return created ? result : run(key);
}

/** @internal */
export async function decrypt(
  e: Engine,
  name: string,
  req: DecryptRequest,
): Promise<{ plaintext: string } | BatchResult<DecryptBatchItem>> {
  checkKeyName(name);
  const r = DECRYPT_FIELDS.request(req);
  const batch = optionalBatch(r, e.maxBatch);
  const found = requireKey(e, name, NOT_FOUND);
  const key = found instanceof Promise ? await found : found; // no tick when cached
  e.ops('decrypt', key.doc.policy.type, batch);
  if (!batch) {
    const opened = openWith(e, key, r);
    return { plaintext: encodeBase64(opened instanceof Promise ? await opened : opened) };
  }
  return runBatch<DecryptBatchItem>(
    batch,
    (item) => {
      const opened = openWith(e, key, item);
      return opened instanceof Promise
        ? opened.then((bytes) => ({ plaintext: encodeBase64(bytes) }))
        : { plaintext: encodeBase64(opened) };
    },
    (error) => ({ plaintext: '', error }),
  );
}

/** @internal */
export async function rewrap(
  e: Engine,
  name: string,
  req: RewrapRequest,
): Promise<CiphertextResult | BatchResult<CiphertextBatchItem>> {
  checkKeyName(name);
  const r = REWRAP_FIELDS.request(req);
  const batch = optionalBatch(r, e.maxBatch);
  const key = await requireKey(e, name, NOT_FOUND);
  e.ops('rewrap', key.doc.policy.type, batch);
  const one = async (item: Record<string, unknown>): Promise<CiphertextResult> => {
    const plaintext = await openWith(e, key, item);
    return sealWith(e, key, { ...item, key_version: item.key_version ?? r.key_version }, plaintext);
  };
  if (!batch) return one(r);
  return runBatch<CiphertextBatchItem>(batch, one, (error) => ({ error }));
}
