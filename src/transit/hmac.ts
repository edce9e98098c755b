/**
 * HMAC generation and HMAC verification (reference §4).
 *
 * Routes: `POST /transit/hmac/:name(/:algorithm)`, and the `hmac` form of
 * `POST /transit/verify/:name(/:hash_algorithm)` (dispatched by `./sign.ts`,
 * which owns the verify route).
 *
 * Every key version has its own HMAC secret (`hmac_key`; the key itself for
 * type `hmac`). Output is always `vault:v<N>:base64` — Vault hard-codes the
 * `vault:v` prefix for HMACs, whatever the ciphertext prefix. Verification is
 * constant-time and honours `hash_algorithm` (OpenBao's fix of Vault's bug).
 * @module
 */
import type { HashName } from '../crypto/backend.js';
import { vaultHash } from '../crypto/hash.js';
import { hmacText } from '../crypto/text.js';
import { base64ErrorPosition, tryDecodeBase64Scratch } from '../encoding.js';
import { invalidRequest } from '../errors.js';
import { formatVersioned, parseVersioned } from '../keys/ciphertext.js';
import { checkKeyName } from '../keys/names.js';
import {
  assertNotSoftDeleted,
  type KeyPolicy,
  type KeyVersion,
  oldestVersion,
  typeInfo,
} from '../keys/policy.js';
import type { LoadedKey } from '../keys/policy-store.js';
import { optInt, optString } from '../request.js';
import { schemaFor } from '../schema.js';
import { optionalBatch, runBatch } from './batch.js';
import { againIfChanged, type Engine, requireKey } from './engine.js';
import * as F from './fields.js';
import { withVersion } from './seal-open.js';
import type { BatchResult, HmacBatchItem, HmacRequest, VerifyBatchItem } from './types.js';

/** Fields of `POST /transit/hmac/:name(/:algorithm)`. @public */
export const HMAC_FIELDS = schemaFor<HmacRequest>()({
  input: F.INPUT,
  algorithm: { ...F.HASH_ALGORITHM, description: 'The HMAC hash; default sha2-256.' },
  key_version: F.KEY_VERSION,
  reference: F.REFERENCE,
  batch_input: F.BATCH_INPUT,
});

const HMAC_PREFIX = 'vault';

/**
 * Decode an HMAC/sign/hash input with Go's error texts: bytes for this call
 * only (handed to the backend, never kept or returned).
 * @internal
 */
export function inputBytes(value: unknown, missing: string): Uint8Array {
  if (value === undefined || value === null) throw invalidRequest(missing);
  if (value instanceof Uint8Array) return value;
  if (typeof value !== 'string') throw invalidRequest("'input' must be a base64 string");
  const out = tryDecodeBase64Scratch(value);
  if (!out) {
    throw invalidRequest(
      `unable to decode input as base64: illegal base64 data at input byte ${base64ErrorPosition(value)}`,
    );
  }
  return out;
}

function hmacVersion(p: LoadedKey['doc']['policy'], requested: number | undefined): number {
  const v = requested ?? 0;
  if (v < 0) throw invalidRequest('key version does not exist (cannot be negative)');
  if (v === 0) return p.latest_version;
  if (v > p.latest_version) {
    throw invalidRequest(`key version does not exist; latest key version is ${p.latest_version}`);
  }
  if (p.min_encryption_version > 0 && v < p.min_encryption_version) {
    throw invalidRequest('cannot generate HMAC: version is too old (disallowed by policy)');
  }
  if (v < p.min_decryption_version || v < oldestVersion(p))
    throw invalidRequest('no such key version');
  return v;
}

/**
 * Refuse HMAC with a key whose type does not allow it (ML-DSA).
 * @throws TransitError `invalid_request`.
 * @internal
 */
export function refuseHmac(p: KeyPolicy): void {
  if (!typeInfo(p).supportsHmac)
    throw invalidRequest(`HMAC is not supported for keys of type ${p.type}`);
}

type HmacResult = { hmac: string; key_version: number } | BatchResult<HmacBatchItem>;

/**
 * `POST /transit/hmac/:name(/:algorithm)`. The function holds no `await`:
 * an await point anywhere in an async function costs the common call (a
 * cached key and version, one input) ≈ 0.1–0.2 µs even when it is not
 * reached, so a key or version still to be read from storage continues
 * in `then`.
 * @internal
 */
export async function hmac(e: Engine, name: string, req: HmacRequest): Promise<HmacResult> {
  const out = hmacOnce(e, name, req);
  // Only a pending answer can have read an archived version the key lost meanwhile.
  return out instanceof Promise ? againIfChanged(out, () => hmacOnce(e, name, req)) : out;
}

/** {@link hmac}, once. */
function hmacOnce(e: Engine, name: string, req: HmacRequest): HmacResult | Promise<HmacResult> {
  checkKeyName(name);
  const r = HMAC_FIELDS.request(req);
  const hash = vaultHash(optString(r.algorithm, 'algorithm') ?? 'sha2-256').name;
  const batch = optionalBatch(r, e.maxBatch);
  // A single input is checked before the key is looked up (Vault's order), and
  // decoded once; a missing one is the empty message (Vault's pathHMACWrite).
  const single = batch ? undefined : inputBytes(r.input ?? '', 'missing input for HMAC');
  const found = requireKey(e, name, 'encryption key not found');
  return found instanceof Promise
    ? found.then((key) => hmacWith(e, key, r, hash, batch, single))
    : hmacWith(e, found, r, hash, batch, single);
}

/** {@link hmac} once the key is at hand: the policy's rules, then the MACs. */
function hmacWith(
  e: Engine,
  key: LoadedKey,
  r: { key_version?: unknown },
  hash: HashName,
  batch: Record<string, unknown>[] | undefined,
  single: Uint8Array | undefined,
): HmacResult | Promise<HmacResult> {
  const p = key.doc.policy;
  e.ops('hmac', p.type, batch);
  assertNotSoftDeleted(p);
  refuseHmac(p);
  const ver = hmacVersion(p, optInt(r.key_version, 'key_version'));
  // The hot path: one input and its version at hand, answered with no call record.
  const at = batch ? undefined : e.store.cachedVersion(key, ver);
  if (at) return singleMac(e, hash, ver, at, single as Uint8Array);
  return withVersion(e, key, ver, macsOf, { e, hash, ver, batch, single });
}

/** What {@link hmacWith} settled, for {@link macsOf}. */
interface MacCall {
  readonly e: Engine;
  readonly hash: HashName;
  readonly ver: number;
  readonly batch: Record<string, unknown>[] | undefined;
  readonly single: Uint8Array | undefined;
}

/**
 * The reply with version `version`'s secret: one MAC, or one per batch item
 * (each item's input checked on its own). The batch's closure lives in its
 * own function, so the single call allocates no context for it.
 */
function macsOf(version: KeyVersion, call: MacCall): HmacResult | Promise<HmacResult> {
  const { e, hash, ver, batch, single } = call;
  if (batch) return batchMacs(call, secretOf(version), batch);
  return singleMac(e, hash, ver, version, single as Uint8Array);
}

/** The reply to one input, with version `version` (number `ver`). */
const singleMac = (
  e: Engine,
  hash: HashName,
  ver: number,
  version: KeyVersion,
  input: Uint8Array,
): { hmac: string; key_version: number } => ({
  hmac: macText(e, hash, ver, secretOf(version), input),
  key_version: ver,
});

/**
 * A version's HMAC secret. A version restored from an old Vault backup can
 * have none (Vault back-fills only the latest); as Vault's `HMACKey`, it is
 * refused rather than used empty, which anyone could compute.
 */
function secretOf(version: KeyVersion): Uint8Array {
  const secret = version.hmac_key;
  if (secret.length === 0) throw invalidRequest('no HMAC key exists for that key version');
  return secret;
}

function batchMacs(
  { e, hash, ver }: MacCall,
  secret: Uint8Array,
  batch: Record<string, unknown>[],
): Promise<BatchResult<HmacBatchItem>> {
  return runBatch<HmacBatchItem>(
    batch,
    (item) => ({
      hmac: macText(e, hash, ver, secret, inputBytes(item.input, 'missing input for HMAC')),
    }),
    (error) => ({ error }),
  );
}

/** `vault:v<ver>:` and the base64 HMAC of `input`. */
const macText = (e: Engine, hash: HashName, ver: number, secret: Uint8Array, input: Uint8Array) =>
  formatVersioned(HMAC_PREFIX, ver, hmacText(e.backend, hash, secret, [input], 'base64'));

/** Verify one HMAC value against `input`. @internal */
export async function verifyHmacValue(
  e: Engine,
  key: LoadedKey,
  hashName: string,
  value: unknown,
  input: unknown,
): Promise<boolean> {
  const p = key.doc.policy;
  refuseHmac(p);
  const hash = vaultHash(hashName);
  const parsed = parseVersioned(value, HMAC_PREFIX, 'HMAC');
  // Vault's order (path_hmac.go): the base64 before the version's checks.
  const given = tryDecodeBase64Scratch(parsed.body);
  if (!given) {
    throw invalidRequest(
      `unable to decode verification HMAC as base64: illegal base64 data at input byte ${base64ErrorPosition(parsed.body)}`,
    );
  }
  // As Vault's pathHMACVerify: v0 is no alias of v1 here (only decrypt reads it
  // so); below every minimum, it is too old.
  const ver = parsed.version;
  if (ver > p.latest_version) throw invalidRequest('invalid HMAC: version is too new');
  if (ver < Math.max(1, p.min_decryption_version) || ver < oldestVersion(p)) {
    throw invalidRequest('cannot verify HMAC: version is too old (disallowed by policy)');
  }
  const secret = secretOf(e.store.cachedVersion(key, ver) ?? (await e.store.version(key, ver)));
  const expected = e.backend.hmac(hash.name, secret, inputBytes(input, 'missing input to verify'));
  return e.backend.timingSafeEqual(expected, given);
}

/**
 * Verify every item of an HMAC verify batch. As Vault (`valid` is `omitempty`
 * in its `batchResponseHMACItem`), an item that fails carries `error` and no
 * `valid`; a well-formed HMAC that does not match keeps `valid: false`.
 * @internal
 */
export function verifyHmacBatch(
  e: Engine,
  key: LoadedKey,
  hashName: string,
  batch: Record<string, unknown>[],
): Promise<BatchResult<VerifyBatchItem>> {
  return runBatch<VerifyBatchItem>(
    batch,
    async (item) => ({ valid: await verifyHmacValue(e, key, hashName, item.hmac, item.input) }),
    (error) => ({ error }),
  );
}

/** The hash a verify request names: path/`hash_algorithm` → `algorithm` → sha2-256. @internal */
export function verifyHashName(r: Record<string, unknown>): string {
  for (const v of [r.hash_algorithm, r.algorithm]) {
    if (typeof v === 'string' && v !== '') return v;
    if (v !== undefined && v !== null && v !== '')
      throw invalidRequest("'hash_algorithm' must be a string");
  }
  return 'sha2-256';
}

/** The kind of proof a verify request carries, checked Vault's way. @internal */
export function verifyKind(
  r: Record<string, unknown>,
  batch: Record<string, unknown>[] | undefined,
): 'hmac' | 'signature' {
  const has = (o: Record<string, unknown>, f: string) =>
    o[f] !== undefined && o[f] !== null && o[f] !== '';
  // In a batch, Vault tests whether an item has the field, not whether it is
  // empty (`_, ok := item["signature"]`): `signature: ""` is a signature.
  const inItem = (o: Record<string, unknown>, f: string) => o[f] !== undefined;
  if (!batch) {
    if (has(r, 'hmac') && has(r, 'signature'))
      throw invalidRequest("provide one of 'signature' or 'hmac'");
    if (has(r, 'hmac')) return 'hmac';
    if (has(r, 'signature')) return 'signature';
    throw invalidRequest("neither a 'signature' nor an 'hmac' were given to verify");
  }
  // Vault's order (pathVerifyWrite): an item with a signature is a signature
  // item, its hmac unread; so one with both beside an hmac-only one is a mix.
  const kinds = new Set(
    batch.map((i) => (inItem(i, 'signature') ? 'signature' : inItem(i, 'hmac') ? 'hmac' : 'none')),
  );
  if (kinds.has('hmac') && kinds.has('signature')) {
    throw invalidRequest(
      "elements of batch_input must all provide 'signature' or all provide 'hmac'",
    );
  }
  if (kinds.has('none') && kinds.size === 1) {
    throw invalidRequest("no batch_input elements have 'signature' or 'hmac'");
  }
  if (kinds.has('none')) {
    throw invalidRequest(
      kinds.has('hmac')
        ? "some elements of batch_input are missing 'hmac'"
        : "some elements of batch_input are missing 'signature'",
    );
  }
  return kinds.has('hmac') ? 'hmac' : 'signature';
}
