/**
 * The verify route's fields and its dispatch between the two kinds of proof:
 * an HMAC (any key, `./hmac.ts`) or a signature (keys that sign, `./sign.ts`).
 * Split from `./sign.ts` so that HMAC verification does not load the signing
 * code: `./sign.ts` is imported on the first signature verification (issue 22,
 * the edge build).
 *
 * Route: `POST /transit/verify/:name(/:hash_algorithm)`.
 * @module
 */

import { vaultHash } from '../crypto/hash.js';
import { checkKeyName } from '../keys/names.js';
import { assertNotSoftDeleted } from '../keys/policy.js';
import { type FieldSpecs, schemaFor } from '../schema.js';
import { lazy } from '../util/lazy.js';
import { optionalBatch } from './batch.js';
import { againIfChanged, type Engine, requireKey } from './engine.js';
import * as F from './fields.js';
import { verifyHashName, verifyHmacBatch, verifyHmacValue, verifyKind } from './hmac.js';
import type { BatchResult, VerifyBatchItem, VerifyRequest } from './types.js';

/** The signing module, loaded on the first signature verification. */
const signing = /* @__PURE__ */ lazy(() => import('./sign.js'));

/** Signing fields shared by sign and verify. @internal */
export const SIGNATURE_FIELDS = {
  input: F.INPUT,
  hash_algorithm: F.HASH_ALGORITHM,
  algorithm: { ...F.HASH_ALGORITHM, description: 'Deprecated alias of hash_algorithm.' },
  context: F.CONTEXT,
  reference: F.REFERENCE,
  batch_input: F.BATCH_INPUT,
  prehashed: { type: 'bool', description: 'The input is already a digest.' },
  signature_algorithm: { type: 'string', description: 'RSA: pss (default) or pkcs1v15.' },
  marshaling_algorithm: { type: 'string', description: 'ECDSA: asn1 (default) or jws.' },
  salt_length: { type: 'string', description: 'RSA-PSS: auto (default), hash, or a byte count.' },
  signature_context: {
    type: 'string',
    binary: true,
    description: 'ML-DSA: the FIPS 204 context string (base64, at most 255 bytes).',
  },
  deterministic: { type: 'bool', description: 'ML-DSA: deterministic instead of hedged signing.' },
} as const satisfies FieldSpecs;

/** Fields of `POST /transit/verify/:name(/:hash_algorithm)`. @public */
export const VERIFY_FIELDS = schemaFor<VerifyRequest>()({
  ...SIGNATURE_FIELDS,
  signature: { type: 'string', description: 'The signature to verify, `vault:v<N>:…`.' },
  hmac: { type: 'string', description: 'The HMAC to verify, `vault:v<N>:…`.' },
});

/**
 * `POST /transit/verify/:name`: exactly one kind of proof, `signature` (keys
 * that sign) or `hmac` (any key), for the single value or every batch item.
 * @throws TransitError `invalid_request` (bad options or values, missing or
 * unsuitable key; single mode: a malformed signature or HMAC).
 * @internal
 */
export function verify(
  e: Engine,
  name: string,
  req: VerifyRequest,
): Promise<{ valid: boolean } | BatchResult<VerifyBatchItem>> {
  return againIfChanged(verifyOnce(e, name, req), () => verifyOnce(e, name, req));
}

/** {@link verify}, once. */
async function verifyOnce(
  e: Engine,
  name: string,
  req: VerifyRequest,
): Promise<{ valid: boolean } | BatchResult<VerifyBatchItem>> {
  checkKeyName(name);
  const r = VERIFY_FIELDS.request(req);
  const batch = optionalBatch(r, e.maxBatch);
  const kind = verifyKind(r, batch);
  if (kind === 'signature') {
    const { verifySignatures } = await signing();
    return verifySignatures(e, name, r, batch);
  }
  const hashName = verifyHashName(r);
  vaultHash(hashName);
  const key = await requireKey(e, name, 'signature verification key not found');
  e.ops('verify', key.doc.policy.type, batch);
  assertNotSoftDeleted(key.doc.policy);
  // As Vault (`path_hmac.go`): a missing input is the empty message, not an error.
  if (!batch) return { valid: await verifyHmacValue(e, key, hashName, r.hmac, r.input ?? '') };
  return verifyHmacBatch(e, key, hashName, batch);
}
