/**
 * ECDSA over P-256/384/521 with `@noble/curves`, for the noble backend, and
 * for the node backend's prehashed path (node:crypto always hashes the input
 * itself, so it cannot sign or verify a caller's digest).
 *
 * Behaviour chosen to match Go's `crypto/ecdsa` (what Vault runs):
 * - signing is hedged (RFC 6979 k mixed with CSPRNG bytes, `extraEntropy`),
 *   and high-S is not normalised (`lowS: false`);
 * - verification accepts high-S (`lowS: false`);
 * - the digest is used as given (`prehash: false`), truncated to the order's
 *   bit length (`bits2int`, same as Go's `hashToInt`).
 *
 * No `node:` import.
 *
 * @module
 */
import { p256, p384, p521 } from '@noble/curves/nist.js';
import type {
  EcCurve,
  EcdsaSignatureFormat,
  EcPrivateKey,
  EcPublicKey,
  SignatureHash,
  SignedData,
} from '../asymmetric-backend.js';
import {
  assertBytes,
  CURVE_BYTES,
  checkCurve,
  ecPointBytes,
  hashOf,
  resolveData,
  toBigInt,
  toBytes,
} from '../asymmetric-checks.js';

const CURVES = { p256, p384, p521 } as const;

/** noble's name for each signature format. */
const FORMAT = { der: 'der', p1363: 'compact' } as const;

/** @throws RangeError for an unknown format. */
function checkFormat(format: unknown): asserts format is EcdsaSignatureFormat {
  if (format !== 'der' && format !== 'p1363')
    throw new RangeError('ECDSA format must be "der" or "p1363"');
}

/** The digest to sign: the caller's, or the hash of the message. */
function digestOf(hash: SignatureHash, data: SignedData): Uint8Array {
  const d = resolveData(hash, data, true, false);
  return d.kind === 'digest' || hash === 'none' ? d.bytes : hashOf(hash, d.bytes);
}

/**
 * Sign a digest (any length; truncated to the order's bits).
 * @internal
 */
export function nobleEcdsaSignDigest(
  key: EcPrivateKey,
  digest: Uint8Array,
  format: EcdsaSignatureFormat,
): Uint8Array {
  checkCurve(key.curve);
  checkFormat(format);
  assertBytes(digest, 'digest');
  const secret = toBytes(key.d, CURVE_BYTES[key.curve]);
  return CURVES[key.curve].sign(digest, secret, {
    prehash: false,
    lowS: false,
    format: FORMAT[format],
    extraEntropy: true,
  });
}

/**
 * Verify a signature over a digest; false for any malformed signature or key.
 * @internal
 */
export function nobleEcdsaVerifyDigest(
  key: EcPublicKey,
  digest: Uint8Array,
  signature: Uint8Array,
  format: EcdsaSignatureFormat,
): boolean {
  checkCurve(key.curve);
  checkFormat(format);
  assertBytes(digest, 'digest');
  assertBytes(signature, 'signature');
  try {
    return CURVES[key.curve].verify(signature, digest, ecPointBytes(key), {
      prehash: false,
      lowS: false,
      format: FORMAT[format],
    });
  } catch {
    return false;
  }
}

/** ECDSA sign for the noble backend (hashes a message with `@noble/hashes`). @internal */
export async function nobleEcdsaSign(
  key: EcPrivateKey,
  hash: SignatureHash,
  data: SignedData,
  format: EcdsaSignatureFormat,
): Promise<Uint8Array> {
  return nobleEcdsaSignDigest(key, digestOf(hash, data), format);
}

/** ECDSA verify for the noble backend. @internal */
export async function nobleEcdsaVerify(
  key: EcPublicKey,
  hash: SignatureHash,
  data: SignedData,
  signature: Uint8Array,
  format: EcdsaSignatureFormat,
): Promise<boolean> {
  return nobleEcdsaVerifyDigest(key, digestOf(hash, data), signature, format);
}

/** A new EC key from the CSPRNG (`crypto.getRandomValues`). @internal */
export async function nobleGenerateEc(curve: EcCurve): Promise<EcPrivateKey> {
  checkCurve(curve);
  const c = CURVES[curve];
  const secret = c.utils.randomSecretKey();
  const d = toBigInt(secret);
  const pt = c.Point.BASE.multiply(d).toAffine();
  return { curve, d, x: pt.x, y: pt.y };
}
