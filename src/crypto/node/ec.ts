/**
 * ECDSA and Ed25519 on node:crypto (OpenSSL), for the node backend.
 *
 * node's `crypto.sign`/`verify` always hash their input (with algorithm
 * `null`, EC keys get SHA-256 — checked against noble), so a caller's digest
 * (Vault `prehashed=true`, `hash_algorithm=none`) cannot go through OpenSSL;
 * that case uses the same `@noble/curves` code as the noble backend
 * (`../noble/ec.ts`). Messages use OpenSSL's one-pass sign/verify.
 *
 * OpenSSL, like Go, neither produces nor requires low-S signatures, and its
 * DER decoding is strict (it re-encodes and compares).
 *
 * @module
 */
import {
  generateKeyPair,
  type KeyObject,
  type SignKeyObjectInput,
  sign,
  verify,
} from 'node:crypto';
import type {
  EcCurve,
  EcdsaSignatureFormat,
  EcPrivateKey,
  EcPublicKey,
  Ed25519PrivateKey,
  SignatureHash,
  SignedData,
} from '../asymmetric-backend.js';
import { assertBytes, checkCurve, checkSeed, resolveData } from '../asymmetric-checks.js';
import {
  ecFromKeyObject,
  ecPrivateKeyObject,
  ecPublicKeyObject,
  ed25519FromKeyObject,
  ed25519PrivateKeyObject,
  ed25519PublicBytes,
  ed25519PublicKeyObject,
  JWK_CURVE,
} from './asym-keys.js';
import { ownedBytes } from './bytes.js';

/**
 * ECDSA over a caller's digest (`../noble/ec.ts`), loaded on the first such
 * call: OpenSSL signs only messages, and importing the package on Node should
 * not load the curve library for every application.
 */
const nobleEc = (): Promise<typeof import('../noble/ec.js')> => import('../noble/ec.js');

/**
 * The key argument of node's `sign`/`verify` for `format`: DER is node's own
 * default, so the key object goes alone (the options object measured 0.96–0.98
 * of the bare call in a micro-benchmark of P-256 signing; no difference showed
 * in a whole `transit.sign`); IEEE P1363 needs the option.
 */
function keyFor(key: KeyObject, format: EcdsaSignatureFormat): KeyObject | SignKeyObjectInput {
  return format === 'der' ? key : { key, dsaEncoding: 'ieee-p1363' };
}

/** @throws RangeError for an unknown format. */
function checkFormat(format: unknown): asserts format is EcdsaSignatureFormat {
  if (format !== 'der' && format !== 'p1363')
    throw new RangeError('ECDSA format must be "der" or "p1363"');
}

/** Promise wrapper of node's callback `generateKeyPair` (runs in the libuv threadpool). */
function generatePrivate(type: 'ec' | 'ed25519', namedCurve?: string): Promise<KeyObject> {
  return new Promise((resolve, reject) => {
    const done = (err: Error | null, _pub: KeyObject, priv: KeyObject): void =>
      err ? reject(err) : resolve(priv);
    if (type === 'ec') generateKeyPair('ec', { namedCurve: namedCurve ?? '' }, done);
    else generateKeyPair('ed25519', {}, done);
  });
}

/** @internal */
export async function nodeGenerateEc(curve: EcCurve): Promise<EcPrivateKey> {
  checkCurve(curve);
  return ecFromKeyObject(curve, await generatePrivate('ec', JWK_CURVE[curve]));
}

/** @internal */
export async function nodeEcdsaSign(
  key: EcPrivateKey,
  hash: SignatureHash,
  data: SignedData,
  format: EcdsaSignatureFormat,
): Promise<Uint8Array> {
  const d = resolveData(hash, data, true, false);
  checkCurve(key.curve);
  checkFormat(format);
  if (d.kind === 'digest' || hash === 'none') {
    return (await nobleEc()).nobleEcdsaSignDigest(key, d.bytes, format);
  }
  return ownedBytes(sign(hash, d.bytes, keyFor(ecPrivateKeyObject(key), format)));
}

/** @internal */
export async function nodeEcdsaVerify(
  key: EcPublicKey,
  hash: SignatureHash,
  data: SignedData,
  signature: Uint8Array,
  format: EcdsaSignatureFormat,
): Promise<boolean> {
  const d = resolveData(hash, data, true, false);
  checkCurve(key.curve);
  checkFormat(format);
  assertBytes(signature, 'signature');
  if (d.kind === 'digest' || hash === 'none') {
    return (await nobleEc()).nobleEcdsaVerifyDigest(key, d.bytes, signature, format);
  }
  try {
    return verify(hash, d.bytes, keyFor(ecPublicKeyObject(key), format), signature);
  } catch {
    return false;
  }
}

/** @internal */
export async function nodeGenerateEd25519(): Promise<Ed25519PrivateKey> {
  return ed25519FromKeyObject(await generatePrivate('ed25519'));
}

/** @internal */
export async function nodeEd25519PublicKey(key: Ed25519PrivateKey): Promise<Uint8Array> {
  checkSeed(key);
  return ed25519PublicBytes(await ed25519PrivateKeyObject(key));
}

/** @internal */
export async function nodeEd25519Sign(
  key: Ed25519PrivateKey,
  message: Uint8Array,
): Promise<Uint8Array> {
  checkSeed(key);
  assertBytes(message, 'message');
  return ownedBytes(sign(null, message, await ed25519PrivateKeyObject(key)));
}

/** The small-order test, loaded on the first verify (it brings in noble's curve). */
let smallOrder: ((publicKey: Uint8Array) => boolean) | undefined;

/** @internal */
export async function nodeEd25519Verify(
  publicKey: Uint8Array,
  message: Uint8Array,
  signature: Uint8Array,
): Promise<boolean> {
  assertBytes(publicKey, 'publicKey');
  assertBytes(message, 'message');
  assertBytes(signature, 'signature');
  if (publicKey.length !== 32) return false;
  // OpenSSL's cofactorless check accepts R = identity, S = 0 for every message
  // under a key of small order (noble refuses it): such a key verifies nothing.
  smallOrder ??= (await import('../ed25519-small-order.js')).isSmallOrderEncoding;
  if (smallOrder(publicKey)) return false;
  try {
    return verify(null, message, ed25519PublicKeyObject(publicKey), signature);
  } catch {
    return false;
  }
}
