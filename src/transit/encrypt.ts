/**
 * Encrypt, decrypt and rewrap with AEAD keys (reference §1–§3) and RSA keys
 * (RSA-OAEP with SHA-256 and an empty label, reference §1): the endpoints —
 * their fields, batches, encrypt's upsert — over `./seal-open.ts`, which
 * seals and opens one item with one key version.
 *
 * Routes: `POST /transit/encrypt/:name`, `POST /transit/decrypt/:name`,
 * `POST /transit/rewrap/:name`.
 * @module
 */
import { toBytes } from '../encoding.js';
import { invalidRequest } from '../errors.js';
import { DEFAULT_KEY_TYPE, keyType } from '../keys/key-types.js';
import { checkKeyName } from '../keys/names.js';
import type { LoadedKey } from '../keys/policy-store.js';
import { asRequest, optBool, optString } from '../request.js';
import { batchErrorCodes } from '../result-meta.js';
import { schemaFor } from '../schema.js';
import { optionKeys, refuseUnknownOptions } from '../util/options.js';
import { optionalBatch, runBatch } from './batch.js';
import { upsertDisabled } from './config.js';
import { againIfChanged, type Engine, requireKey } from './engine.js';
import * as F from './fields.js';
import { buildPolicy } from './keys.js';
import { newVersion } from './material.js';
import { openWith, sealWith } from './seal-open.js';
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
/** Every option of {@link EncryptOptions}. */
const ENCRYPT_OPTIONS = optionKeys<EncryptOptions>({ upsert: true });

function plaintextOf(item: Record<string, unknown>): Uint8Array {
  if (item.plaintext === undefined || item.plaintext === null) {
    throw invalidRequest('missing plaintext to encrypt');
  }
  return toBytes(item.plaintext, 'plaintext', true); // sealed, then dropped
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
  const out = encryptOnce(e, name, req, options);
  // Only a pending answer can have read an archived version the key lost meanwhile.
  return out instanceof Promise
    ? againIfChanged(out, () => encryptOnce(e, name, req, options))
    : out;
}

/** {@link encrypt}, once. */
function encryptOnce(
  e: Engine,
  name: string,
  req: EncryptRequest,
  options: EncryptOptions,
): EncryptResult | Promise<EncryptResult> {
  checkKeyName(name);
  const r = ENCRYPT_FIELDS.request(req);
  const o = asRequest(options, 'options');
  // A library-only options object: a misspelt `upsert` is refused, never true in silence.
  refuseUnknownOptions(o, ENCRYPT_OPTIONS, 'encrypt');
  const upsertAllowed = optBool(o.upsert, 'upsert') ?? true;
  const batch = optionalBatch(r, e.maxBatch);
  if (batch) {
    sameContextShape(batch);
    batch.forEach((item, i) => {
      if (item.plaintext === undefined || item.plaintext === null) {
        throw invalidRequest(
          `failed to parse batch input: '[${i}].plaintext' missing plaintext to encrypt`,
        );
      }
    });
  }
  // No `await` on the common path (a cached key): an await point in this
  // function would cost every call ≈ 0.1–0.2 µs, reached or not.
  const cached = e.store.cached(name);
  return cached
    ? encryptWith(e, cached, r, batch)
    : encryptUncached(e, name, r, batch, upsertAllowed);
}

/** {@link encrypt} with its key: one seal, or one per batch item. */
function encryptWith(
  e: Engine,
  key: LoadedKey,
  r: Record<string, unknown>,
  batch: Record<string, unknown>[] | undefined,
): EncryptResult | Promise<EncryptResult> {
  e.ops('encrypt', key.doc.policy.type, batch);
  if (batch) return encryptBatch(e, key, batch);
  return sealWith(e, key, r, plaintextOf(r));
}

/** One seal per batch item; its own function, so a single call allocates no closure context. */
function encryptBatch(
  e: Engine,
  key: LoadedKey,
  batch: Record<string, unknown>[],
): Promise<BatchResult<CiphertextBatchItem>> {
  return runBatch<CiphertextBatchItem>(
    batch,
    (item) => sealWith(e, key, item, plaintextOf(item)),
    (error) => ({ error }),
  );
}

/** {@link encrypt} when the key is not cached: read it, or create it (upsert). */
async function encryptUncached(
  e: Engine,
  name: string,
  r: Record<string, unknown>,
  batch: Record<string, unknown>[] | undefined,
  upsertAllowed: boolean,
): Promise<EncryptResult> {
  const existing = await e.store.get(name);
  if (existing) return encryptWith(e, existing, r, batch);
  if (!upsertAllowed || (await upsertDisabled(e))) throw invalidRequest(NOT_FOUND);
  const pending = await pendingKey(e, name, r, batch?.[0] ?? r);
  const result = await encryptWith(e, pending, r, batch);
  if (batch && batchErrorCodes(result).length === batch.length) return result;
  const { key, created } = await e.store.create(pending.doc.policy, pending.doc.versions);
  // Another writer created the key first: our output used material that was
  // never stored, so redo the operation with the stored key.
  return created ? result : encryptWith(e, key, r, batch);
}

/**
 * A batch's items all carry `context` or none does (Vault refuses a mix for
 * encrypt, decrypt and rewrap alike).
 * @throws TransitError `invalid_request` otherwise.
 */
function sameContextShape(batch: readonly Record<string, unknown>[]): void {
  const withContext = present(batch[0]?.context);
  for (const item of batch) {
    if (present(item.context) !== withContext) {
      throw invalidRequest('context should be set either in all the request blocks or in none');
    }
  }
}

/** @internal */
export async function decrypt(
  e: Engine,
  name: string,
  req: DecryptRequest,
): Promise<{ plaintext: string } | BatchResult<DecryptBatchItem>> {
  const out = decryptOnce(e, name, req);
  // Only a pending answer can have read an archived version the key lost meanwhile.
  return out instanceof Promise ? againIfChanged(out, () => decryptOnce(e, name, req)) : out;
}

/** {@link decrypt}, once (no `await`: an uncached key continues in `then`). */
function decryptOnce(
  e: Engine,
  name: string,
  req: DecryptRequest,
): DecryptResult | Promise<DecryptResult> {
  checkKeyName(name);
  const r = DECRYPT_FIELDS.request(req);
  const batch = optionalBatch(r, e.maxBatch);
  if (batch) sameContextShape(batch);
  // No `await` here either (see encrypt): an uncached key continues in `then`.
  const found = requireKey(e, name, NOT_FOUND);
  return found instanceof Promise
    ? found.then((key) => decryptWith(e, key, r, batch))
    : decryptWith(e, found, r, batch);
}

type DecryptResult = { plaintext: string } | BatchResult<DecryptBatchItem>;

/** {@link decrypt} with its key: one open, or one per batch item. */
function decryptWith(
  e: Engine,
  key: LoadedKey,
  r: Record<string, unknown>,
  batch: Record<string, unknown>[] | undefined,
): DecryptResult | Promise<DecryptResult> {
  e.ops('decrypt', key.doc.policy.type, batch);
  if (batch) return decryptBatch(e, key, batch);
  const opened = openWith(e, key, r, true);
  return opened instanceof Promise
    ? opened.then((plaintext) => ({ plaintext }))
    : { plaintext: opened };
}

function decryptBatch(
  e: Engine,
  key: LoadedKey,
  batch: Record<string, unknown>[],
): Promise<BatchResult<DecryptBatchItem>> {
  return runBatch<DecryptBatchItem>(
    batch,
    (item) => {
      const opened = openWith(e, key, item, true);
      return opened instanceof Promise
        ? opened.then((plaintext) => ({ plaintext }))
        : { plaintext: opened };
    },
    (error) => ({ plaintext: '', error }),
  );
}

/** @internal */
export function rewrap(
  e: Engine,
  name: string,
  req: RewrapRequest,
): Promise<CiphertextResult | BatchResult<CiphertextBatchItem>> {
  return againIfChanged(rewrapOnce(e, name, req), () => rewrapOnce(e, name, req));
}

/** {@link rewrap}, once. */
async function rewrapOnce(
  e: Engine,
  name: string,
  req: RewrapRequest,
): Promise<CiphertextResult | BatchResult<CiphertextBatchItem>> {
  checkKeyName(name);
  const r = REWRAP_FIELDS.request(req);
  const batch = optionalBatch(r, e.maxBatch);
  if (batch) sameContextShape(batch);
  const key = await requireKey(e, name, NOT_FOUND);
  e.ops('rewrap', key.doc.policy.type, batch);
  // In a batch only each item's own fields count (Vault): a top-level
  // `key_version` does not pin the items' target version.
  const one = async (item: Record<string, unknown>): Promise<CiphertextResult> => {
    const plaintext = await openWith(e, key, item);
    return sealWith(e, key, item, plaintext);
  };
  if (!batch) return one(r);
  return runBatch<CiphertextBatchItem>(batch, one, (error) => ({ error }));
}
