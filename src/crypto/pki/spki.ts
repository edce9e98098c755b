/**
 * X.509 `SubjectPublicKeyInfo` (RFC 5280 §4.1, RFC 5480, RFC 8410, RFC 9881)
 * for RSA, EC, Ed25519 and ML-DSA through `pkijs`/`asn1js`. Encoding matches Go's
 * `x509.MarshalPKIXPublicKey` (Vault's `PUBLIC KEY` exports) and OpenSSL byte
 * for byte. Parsing accepts rsaEncryption (and the id-RSASSA-PSS OID),
 * uncompressed P-256/384/521 points validated on the curve, and Ed25519.
 *
 * @module
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import * as asn1js from 'asn1js';
import { type AlgorithmIdentifier, PublicKeyInfo } from 'pkijs';
import { invalidRequest } from '../../errors.js';
import type { EcPublicKey, RsaPublicKey } from '../asymmetric-backend.js';
import { ecPointBytes } from '../asymmetric-checks.js';
import type { MlDsaPublicKey } from '../ml-dsa.js';
import {
  bitStringBytes,
  CURVE_OID,
  curveFromOid,
  OID,
  oidOf,
  parseWithSchema,
  toDer,
} from './der.js';
import { decodeEcPoint } from './ec.js';
import { checkMlDsaPublic, ML_DSA_OID, mlDsaLevelOfOid } from './ml-dsa.js';
import { algorithm } from './pkcs8.js';
import { decodePkcs1PublicKey, encodePkcs1PublicKey } from './rsa.js';

/** A public key of any asymmetric type, tagged (Ed25519: the 32 raw bytes). @public */
export type PublicKeyMaterial =
  | { readonly type: 'rsa'; readonly key: RsaPublicKey }
  | { readonly type: 'ec'; readonly key: EcPublicKey }
  | { readonly type: 'ed25519'; readonly key: Uint8Array }
  | { readonly type: 'ml-dsa'; readonly key: MlDsaPublicKey };

const ED25519_SIZE = 32;

/**
 * X.509 `SubjectPublicKeyInfo` DER (PEM label `PUBLIC KEY`), as Go's
 * `MarshalPKIXPublicKey`.
 * @public
 */
export function encodeSpki(material: PublicKeyMaterial): Uint8Array {
  let alg: AlgorithmIdentifier;
  let bits: Uint8Array;
  switch (material.type) {
    case 'rsa':
      alg = algorithm(OID.rsaEncryption, new asn1js.Null());
      bits = encodePkcs1PublicKey(material.key);
      break;
    case 'ec':
      alg = algorithm(
        OID.ecPublicKey,
        new asn1js.ObjectIdentifier({ value: CURVE_OID[material.key.curve] }),
      );
      bits = ecPointBytes(material.key);
      break;
    case 'ed25519':
      if (material.key.length !== ED25519_SIZE)
        throw new RangeError('Ed25519 public key must be 32 bytes');
      alg = algorithm(OID.ed25519);
      bits = material.key;
      break;
    case 'ml-dsa':
      alg = algorithm(ML_DSA_OID[material.key.level]);
      bits = checkMlDsaPublicBits(material.key);
      break;
  }
  const spki = new PublicKeyInfo({
    algorithm: alg,
    subjectPublicKey: new asn1js.BitString({ valueHex: bits }),
  });
  return toDer(spki.toSchema());
}

/**
 * Parse a `SubjectPublicKeyInfo` (RSA — also under the PSS OID —, EC
 * P-256/384/521 uncompressed and validated on the curve, Ed25519).
 * @throws TransitError `invalid_request` for malformed input or an unsupported algorithm.
 * @public
 */
export function decodeSpki(der: Uint8Array): PublicKeyMaterial {
  const what = 'public key';
  const r = parseWithSchema(
    der,
    PublicKeyInfo.schema({
      names: {
        algorithm: { names: { algorithmIdentifier: 'alg', algorithmParams: 'params' } },
        subjectPublicKey: 'bits',
      },
    }),
    what,
  );
  const bits = bitStringBytes(r.bits, what);
  switch (oidOf(r.alg)) {
    case OID.rsaEncryption:
    case OID.rsassaPss:
      return { type: 'rsa', key: decodePkcs1PublicKey(bits) };
    case OID.ecPublicKey: {
      const oid = oidOf(r.params);
      const curve = oid === undefined ? undefined : curveFromOid(oid);
      if (curve === undefined) throw invalidRequest(`${what}: missing or unsupported named curve`);
      return { type: 'ec', key: decodeEcPoint(curve, bits, what) };
    }
    case OID.ed25519:
      if (r.params !== undefined)
        throw invalidRequest(`${what}: Ed25519 must not have algorithm parameters`);
      if (bits.length !== ED25519_SIZE)
        throw invalidRequest(`${what}: Ed25519 public key must be 32 bytes`);
      refuseSmallOrder(bits, what);
      return { type: 'ed25519', key: bits };
    default: {
      const level = mlDsaLevelOfOid(oidOf(r.alg));
      if (level === undefined) throw invalidRequest(`${what}: unsupported key algorithm`);
      if (r.params !== undefined)
        throw invalidRequest(`${what}: ML-DSA must not have algorithm parameters`);
      return { type: 'ml-dsa', key: { level, key: checkMlDsaPublic(level, bits, what) } };
    }
  }
}

/** An ML-DSA public key's bytes, size-checked (a `RangeError`: our own key). */
function checkMlDsaPublicBits(k: MlDsaPublicKey): Uint8Array {
  try {
    return checkMlDsaPublic(k.level, k.key, 'ML-DSA public key');
  } catch {
    throw new RangeError(`ML-DSA-${k.level} public key has the wrong size`);
  }
}

/**
 * Refuse an Ed25519 public key of small order (the identity and the other
 * seven torsion points), in any encoding OpenSSL reads, the non-canonical
 * ones (y ≥ p, a sign bit on x = 0) included: decoded as ZIP 215 does. Such
 * a key has no private key, and OpenSSL's cofactorless check (the node
 * backend) accepted the signature R = identity, S = 0 under it for every
 * message, where noble's refuses it: no backend may accept a forgery. (Go,
 * so Vault, imports it.) A key that is no point at all verifies nothing on
 * either backend and is left to them.
 */
export function refuseSmallOrder(bits: Uint8Array, what: string): void {
  let small: boolean;
  try {
    small = ed25519.Point.fromBytes(bits, true).isSmallOrder();
  } catch {
    return;
  }
  if (small) throw invalidRequest(`${what}: Ed25519 public key of small order`);
}
