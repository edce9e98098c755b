/**
 * Signing and verification with asymmetric keys (reference §5). The verify
 * route's dispatch between signatures and HMACs is `./verify.ts`, which loads
 * this module on the first signature verification.
 *
 * Routes: `POST /transit/sign/:name(/:hash_algorithm)`,
 * `POST /transit/verify/:name(/:hash_algorithm)`.
 *
 * Request-level problems (a bad option, a missing key, a key that cannot
 * sign, `hash_algorithm=none` without its requirements) fail the call; in a
 * batch, everything about one item (its input, context, version, signature)
 * fails only that item, and the batch itself succeeds, as in Vault. The
 * family of the key (`../keys/asymmetric/`) does the type-specific work; the
 * crypto backends' `RangeError`/`TypeError` (a prehashed input of the wrong
 * length, input too long for the modulus) become `invalid_request`.
 * @module
 */

import { toBytes } from '../encoding.js';
import { invalidRequest, isTransitError } from '../errors.js';
import { type AsymmetricFamily, familyOf, type SignOptions } from '../keys/asymmetric/family.js';
import { type AsymmetricMaterial, requireMaterial } from '../keys/asymmetric/material.js';
import { checkKeyName } from '../keys/names.js';
import { assertNotSoftDeleted, type KeyVersion, typeInfo } from '../keys/policy.js';
import type { LoadedKey } from '../keys/policy-store.js';
import { optInt } from '../request.js';
import { schemaFor } from '../schema.js';
import { optionalBatch, runBatch } from './batch.js';
import { againIfChanged, type Engine, requireKey } from './engine.js';
import * as F from './fields.js';
import { inputBytes } from './hmac.js';
import { withVersion } from './seal-open.js';
import {
  checkHashNone,
  formatSignature,
  itemSignOptions,
  parseSignature,
  signingVersion,
  signOptions,
} from './sign-options.js';
import type {
  BatchResult,
  SignBatchItem,
  SignRequest,
  SignResult,
  VerifyBatchItem,
} from './types.js';
import { SIGNATURE_FIELDS } from './verify.js';

// The verify route's fields and dispatch live in ./verify.ts (loaded eagerly: HMAC
// verification needs no key-pair code); re-exported here for the route table.
export { VERIFY_FIELDS, verify } from './verify.js';

/** Fields of `POST /transit/sign/:name(/:hash_algorithm)`. @public */
export const SIGN_FIELDS = schemaFor<SignRequest>()({
  ...SIGNATURE_FIELDS,
  key_version: F.KEY_VERSION,
});

/** A backend's argument error is the caller's mistake; anything else passes unchanged. */
function callerError(err: unknown): never {
  if (isTransitError(err)) throw err;
  if (err instanceof RangeError || err instanceof TypeError) {
    throw invalidRequest(`invalid signing input: ${err.message}`, err);
  }
  throw err;
}

/**
 * Run a crypto call; the backends' argument errors, thrown or rejected, are
 * the caller's mistakes.
 */
function cryptoCall<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return fn().then(undefined, callerError);
  } catch (err) {
    return Promise.reject(err).then(undefined, callerError);
  }
}

/**
 * The signing key of a request, checked for type, soft delete and `none`;
 * a cached key is answered without a promise.
 */
function signingKey(
  e: Engine,
  name: string,
  missing: string,
  refused: string,
  o: SignOptions,
):
  | { key: LoadedKey; family: AsymmetricFamily }
  | Promise<{ key: LoadedKey; family: AsymmetricFamily }> {
  const found = requireKey(e, name, missing);
  return found instanceof Promise
    ? found.then((key) => checkedSigningKey(key, refused, o))
    : checkedSigningKey(found, refused, o);
}

/** {@link signingKey}'s checks on the loaded key, in Vault's order. */
function checkedSigningKey(
  key: LoadedKey,
  refused: string,
  o: SignOptions,
): { key: LoadedKey; family: AsymmetricFamily } {
  const p = key.doc.policy;
  assertNotSoftDeleted(p);
  const info = typeInfo(p);
  if (!info.supportsSigning) throw invalidRequest(`key type ${p.type} ${refused}`);
  checkHashNone(o);
  const family = familyOf(info);
  checkMlDsaOptions(family, p.type, o);
  return { key, family };
}

/** Refuse the ML-DSA options for a family that does not take them. */
function checkMlDsaOptions(family: AsymmetricFamily, type: string, o: SignOptions): void {
  if ((o.mlDsaContext !== undefined || o.deterministic) && !family.signatureContext) {
    throw invalidRequest(
      `signature_context and deterministic are not supported for keys of type ${type}`,
    );
  }
}

/** The options of a batch item (its own ML-DSA options win), checked against the family. */
function batchItemOptions(
  o: SignOptions,
  item: Record<string, unknown>,
  family: AsymmetricFamily,
  type: string,
): SignOptions {
  const io = itemSignOptions(o, item);
  if (io !== o) checkMlDsaOptions(family, type, io);
  return io;
}

/** What signs or verifies one item, and whether it is a derived key's (its public key is returned). */
interface ItemMaterial {
  material: AsymmetricMaterial;
  derived: boolean;
}

/** Where {@link materialFor} finds one item's material. */
interface MaterialSource {
  readonly e: Engine;
  readonly key: LoadedKey;
  readonly family: AsymmetricFamily;
  /** The item's `context`, decoded whatever the key (Vault refuses a bad one on any key). */
  readonly context: Uint8Array;
}

/**
 * The material to use for `item` at `version`: the version's (no promise),
 * or the per-context key of a derived key.
 */
function materialFor(
  version: KeyVersion,
  { e, key, family, context }: MaterialSource,
): ItemMaterial | Promise<ItemMaterial> {
  const p = key.doc.policy;
  if (!p.derived || !family.derive) {
    return { material: requireMaterial(version.asymmetric), derived: false };
  }
  return family
    .derive(e.backend, p, version.key, context)
    .then((material) => ({ material, derived: true }));
}

/**
 * The single item of a sign or verify request: as Vault (`path_sign_verify.go`:
 * "use empty string if input is missing - not an error"), a missing `input`
 * is the empty message. A batch item without one is still refused.
 */
const singleItem = (r: Record<string, unknown>): Record<string, unknown> =>
  r.input === undefined || r.input === null ? { ...r, input: '' } : r;

type SignReply = SignResult | BatchResult<SignBatchItem>;

/** One item's answer: a single reply, or a batch item without its `reference`. */
type ItemReply = Pick<SignResult, 'signature' | 'key_version' | 'public_key'> &
  Pick<SignBatchItem, 'publickey'>;

/**
 * `POST /transit/sign/:name`. Never throws: every error is a rejection.
 * @throws TransitError `invalid_request` (bad options, missing or non-signing key,
 * soft-deleted key, `none` without its requirements; single mode: bad item).
 * @internal
 */
export function sign(e: Engine, name: string, req: SignRequest): Promise<SignReply> {
  try {
    return signOnce(e, name, req, () => signOnce(e, name, req));
  } catch (err) {
    return Promise.reject(err);
  }
}

/**
 * {@link sign}, once. With `again`, a step that reads storage is retried by
 * {@link againIfChanged} (the key may change under an archived read); the
 * common call, its key and version at hand, reads nothing and is not wrapped.
 * Request-level errors are thrown.
 */
function signOnce(
  e: Engine,
  name: string,
  req: SignRequest,
  again?: () => Promise<SignReply>,
): Promise<SignReply> {
  checkKeyName(name);
  const r = SIGN_FIELDS.request(req);
  const o = signOptions(r);
  const batch = optionalBatch(r, e.maxBatch);
  const signer = signingKey(e, name, 'signing key not found', 'does not support signing', o);
  if (signer instanceof Promise) {
    const read = signer.then(({ key, family }) => signWith(e, key, family, r, o, batch));
    return again ? againIfChanged(read, again) : read;
  }
  return signWith(e, signer.key, signer.family, r, o, batch, again);
}

/** {@link signOnce} once the key is at hand: one item, or each of a batch. */
function signWith(
  e: Engine,
  key: LoadedKey,
  family: AsymmetricFamily,
  r: Record<string, unknown>,
  o: SignOptions,
  batch: Record<string, unknown>[] | undefined,
  again?: () => Promise<SignReply>,
): Promise<SignReply> {
  const p = key.doc.policy;
  e.ops('sign', p.type, batch);
  const requested = optInt(r.key_version, 'key_version');
  if (!batch) return signItem(e, key, family, singleItem(r), requested, o, false, again);
  const signed = runBatch<SignBatchItem>(
    batch,
    (item) =>
      signItem(e, key, family, item, requested, batchItemOptions(o, item, family, p.type), true),
    (error) => ({ key_version: 0, error }),
  );
  return again ? againIfChanged(signed, again) : signed;
}

/**
 * One item: its input, context and version checked in Vault's order, then
 * signed. A version at hand of a key without derivation goes straight to the
 * family: no record, no closure, one promise reaction on the signature, and no
 * retry wrapper (nothing read can change under it). Otherwise the version is
 * read (with `again`, retried if the key changed under the read) or the key
 * derived, and a derived key's public key is returned as `public_key`
 * (`publickey` in a batch, as Vault).
 */
function signItem(
  e: Engine,
  key: LoadedKey,
  family: AsymmetricFamily,
  item: Record<string, unknown>,
  requested: number | undefined,
  o: SignOptions,
  inBatch: boolean,
  again?: () => Promise<SignReply>,
): Promise<ItemReply> {
  const p = key.doc.policy;
  const input = inputBytes(item.input, 'missing input');
  const context = toBytes(item.context, 'context');
  const ver = signingVersion(p, requested);
  const at = p.derived && family.derive ? undefined : e.store.cachedVersion(key, ver);
  if (at) return signedReply(e, family, requireMaterial(at.asymmetric), input, o, ver);
  const go = ({ material, derived }: ItemMaterial) => {
    const reply = signedReply(e, family, material, input, o, ver);
    if (!derived) return reply;
    const pk = family.readPublicKey(material);
    return reply.then((x) => (inBatch ? { ...x, publickey: pk } : { ...x, public_key: pk }));
  };
  const m = withVersion(e, key, ver, materialFor, { e, key, family, context });
  const read = m instanceof Promise ? m.then(go) : go(m);
  // Only a single item gets `again`: the call run again answers one item too.
  return again ? (againIfChanged<SignReply>(read, again) as Promise<ItemReply>) : read;
}

/**
 * The reply to one input signed with version `ver`'s `material`; the
 * backend's argument errors, thrown or rejected, are the caller's mistakes.
 * {@link cryptoCall}'s rule, written out: the hot path takes no closure and
 * settles in one reaction (the signature and its mapping together).
 */
function signedReply(
  e: Engine,
  family: AsymmetricFamily,
  material: AsymmetricMaterial,
  input: Uint8Array,
  o: SignOptions,
  ver: number,
): Promise<ItemReply> {
  let sig: Promise<Uint8Array>;
  try {
    sig = family.sign(e.backend, material, input, o);
  } catch (err) {
    callerError(err);
  }
  return sig.then(
    (s) => ({ signature: formatSignature(e.prefix, ver, s, o.marshaling), key_version: ver }),
    callerError,
  );
}

/**
 * Signature verification (the `signature` form of the verify route, which
 * `./verify.ts` dispatches).
 * @internal
 */
export async function verifySignatures(
  e: Engine,
  name: string,
  r: Record<string, unknown>,
  batch: Record<string, unknown>[] | undefined,
): Promise<{ valid: boolean } | BatchResult<VerifyBatchItem>> {
  const o = signOptions(r);
  const verifier = signingKey(
    e,
    name,
    'signature verification key not found',
    'does not support verification',
    o,
  );
  const { key, family } = verifier instanceof Promise ? await verifier : verifier;
  e.ops('verify', key.doc.policy.type, batch);
  const one = async (item: Record<string, unknown>, io: SignOptions): Promise<boolean> => {
    const input = inputBytes(item.input, 'missing input');
    const context = toBytes(item.context, 'context');
    const { version, signature } = parseSignature(
      item.signature,
      e.prefix,
      key.doc.policy,
      o.marshaling,
    );
    const m = withVersion(e, key, version, materialFor, { e, key, family, context });
    const { material } = m instanceof Promise ? await m : m;
    return cryptoCall(() => family.verify(e.backend, material, input, signature, io));
  };
  if (!batch) return { valid: await one(singleItem(r), o) };
  const type = key.doc.policy.type;
  return runBatch<VerifyBatchItem>(
    batch,
    async (item) => ({ valid: await one(item, batchItemOptions(o, item, family, type)) }),
    (error) => ({ valid: false, error }),
  );
}
