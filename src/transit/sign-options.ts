/**
 * Request options shared by sign and signature verification (reference §5),
 * parsed in Vault's order and with its messages, before the key is loaded:
 * `hash_algorithm` (path or body; `algorithm` is the deprecated alias;
 * default `sha2-256`; `none` is a signing-only pseudo-hash), then
 * `marshaling_algorithm` (`asn1` | `jws`), `prehashed`, `salt_length`
 * (`auto` | `hash` | an integer ≥ −1, Go's numbering), and
 * `signature_algorithm` (`pss` | `pkcs1v15`); for ML-DSA keys also
 * `signature_context` (FIPS 204 context string) and `deterministic`.
 *
 * Also the signature value format: `<prefix>:v<N>:` + standard base64
 * (`asn1`) or URL-safe base64 without padding (`jws`), for every key type.
 * @module
 */
import { vaultHash } from '../crypto/hash.js';
import {
  encodeBase64,
  encodeBase64Url,
  toBytes,
  tryDecodeBase64,
  tryDecodeBase64Url,
} from '../encoding.js';
import { invalidRequest } from '../errors.js';
import type { SignOptions } from '../keys/asymmetric/family.js';
import { parseVersioned } from '../keys/ciphertext.js';
import { type KeyPolicy, oldestVersion } from '../keys/policy.js';
import { optBool, optString } from '../request.js';
import { verifyHashName } from './hmac.js';

const TOO_OLD = 'ciphertext or signature version is disallowed by policy (too old)';

/** Go's `getSaltLength`: `auto` = 0, `hash` = −1, else an integer ≥ −1. */
function saltLength(value: unknown): number {
  if (value === undefined || value === null || value === '') return 0;
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) {
      throw invalidRequest(`salt length neither 'auto', 'hash', nor an int: ${value}`);
    }
    if (value < -1) throw invalidRequest(`salt length is invalid: ${value}`);
    return value;
  }
  if (typeof value !== 'string') throw invalidRequest("'salt_length' must be a string");
  const lower = value.toLowerCase();
  if (lower === 'auto') return 0;
  if (lower === 'hash') return -1;
  if (!/^[+-]?[0-9]{1,9}$/.test(lower)) {
    throw invalidRequest(`salt length neither 'auto', 'hash', nor an int: ${value}`);
  }
  const n = Number(lower);
  if (n < -1) throw invalidRequest(`salt length is invalid: ${n}`);
  return n;
}

/**
 * Parse the signing options of a sign or verify request.
 * @throws TransitError `invalid_request` with Vault's texts.
 * @internal
 */
export function signOptions(r: Record<string, unknown>): SignOptions {
  const hashName = verifyHashName(r);
  const hash = hashName === 'none' ? 'none' : vaultHash(hashName).name;
  const marshaling = optString(r.marshaling_algorithm, 'marshaling_algorithm') ?? 'asn1';
  if (marshaling !== 'asn1' && marshaling !== 'jws') {
    throw invalidRequest(`invalid marshaling type ${JSON.stringify(marshaling)}`);
  }
  const prehashed = optBool(r.prehashed, 'prehashed') ?? false;
  const salt = saltLength(r.salt_length);
  const sigAlg = optString(r.signature_algorithm, 'signature_algorithm') ?? 'pss';
  if (sigAlg !== 'pss' && sigAlg !== 'pkcs1v15') {
    throw invalidRequest(`unsupported rsa signature algorithm ${sigAlg}`);
  }
  const ml = mlDsaOptions(r);
  const o: SignOptions = {
    hash,
    prehashed,
    signatureAlgorithm: sigAlg,
    saltLength: salt,
    marshaling,
  };
  // Without ML-DSA options (every other family), one record and no spread.
  return ml === NO_ML_DSA ? o : { ...o, ...ml };
}

/** {@link mlDsaOptions} of a request or item that sets neither. */
const NO_ML_DSA: Pick<SignOptions, 'mlDsaContext' | 'deterministic'> = Object.freeze({});

/**
 * The options of one batch item: the request's, with the item's own
 * `signature_context` and `deterministic` when it has them (Vault's single
 * mode puts the request's context in its one item: a batch item carries its
 * own). Never drops a context the item asks for.
 * @throws TransitError `invalid_request` for a bad item value.
 * @internal
 */
export function itemSignOptions(o: SignOptions, item: Record<string, unknown>): SignOptions {
  const own = mlDsaOptions(item);
  return own === NO_ML_DSA ? o : { ...o, ...own };
}

/**
 * The ML-DSA options (`signature_context`: the FIPS 204 context string,
 * base64, at most 255 bytes; `deterministic`), absent when not given; the
 * signing key's family refuses them unless it takes them.
 * @throws TransitError `invalid_request`.
 */
function mlDsaOptions(
  r: Record<string, unknown>,
): Pick<SignOptions, 'mlDsaContext' | 'deterministic'> {
  const out: { mlDsaContext?: Uint8Array; deterministic?: boolean } = {};
  const ctx = r.signature_context;
  if (ctx !== undefined && ctx !== null && ctx !== '') {
    out.mlDsaContext = toBytes(ctx, 'signature_context');
    if (out.mlDsaContext.length > 255) {
      throw invalidRequest('signature_context must be at most 255 bytes');
    }
  }
  if (optBool(r.deterministic, 'deterministic')) out.deterministic = true;
  return out.mlDsaContext || out.deterministic ? out : NO_ML_DSA;
}

/**
 * Vault's rule for `hash_algorithm=none`, checked once the key is known to
 * sign (whatever its type).
 * @throws TransitError `invalid_request`.
 * @internal
 */
export function checkHashNone(o: SignOptions): void {
  if (o.hash === 'none' && (!o.prehashed || o.signatureAlgorithm !== 'pkcs1v15')) {
    throw invalidRequest(
      'hash_algorithm=none requires both prehashed=true and signature_algorithm=pkcs1v15',
    );
  }
}

/** `<prefix>:v<N>:<signature>` in the marshaling's base64 alphabet. @internal */
export function formatSignature(
  prefix: string,
  version: number,
  signature: Uint8Array,
  marshaling: SignOptions['marshaling'],
): string {
  const body = marshaling === 'jws' ? encodeBase64Url(signature) : encodeBase64(signature);
  return `${prefix}:v${version}:${body}`;
}

/**
 * Split a signature value and check its version against the key (Vault's
 * `VerifySignatureWithOptions`: too new, or below `min_decryption_version`
 * — `v0` included — is refused).
 * @throws TransitError `invalid_request`.
 * @internal
 */
export function parseSignature(
  value: unknown,
  prefix: string,
  p: KeyPolicy,
  marshaling: SignOptions['marshaling'],
): { version: number; signature: Uint8Array } {
  const parsed = parseVersioned(value, prefix, 'signature');
  const v = parsed.version;
  if (v > p.latest_version) throw invalidRequest('invalid signature: version is too new');
  if (v < p.min_decryption_version || v < oldestVersion(p)) throw invalidRequest(TOO_OLD);
  const signature =
    marshaling === 'jws' ? tryDecodeBase64Url(parsed.body) : tryDecodeBase64(parsed.body);
  if (!signature) throw invalidRequest('invalid base64 signature value');
  return { version: v, signature };
}

/**
 * The version to sign with (`key_version`; 0 = latest), Vault's messages.
 * @throws TransitError `invalid_request`.
 * @internal
 */
export function signingVersion(p: KeyPolicy, requested: number | undefined): number {
  const v = requested ?? 0;
  if (v === 0) return p.latest_version;
  if (v < 0) throw invalidRequest('requested version for signing is negative');
  if (v > p.latest_version) {
    throw invalidRequest('requested version for signing is higher than the latest key version');
  }
  if (p.min_encryption_version > 0 && v < p.min_encryption_version) {
    throw invalidRequest(
      'requested version for signing is less than the minimum encryption key version',
    );
  }
  if (v < p.min_decryption_version || v < oldestVersion(p)) {
    throw invalidRequest('no such key version');
  }
  return v;
}
