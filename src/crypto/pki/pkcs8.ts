/**
 * PKCS#8 `PrivateKeyInfo` (RFC 5208/5958) for RSA, EC, Ed25519 and ML-DSA
 * (RFC 9881, `./ml-dsa.ts`) through
 * `pkijs`/`asn1js`. Encoding matches Go's `x509.MarshalPKCS8PrivateKey` (what
 * Vault BYOK-wraps and OpenBao exports as `der`/`pem`) and OpenSSL byte for
 * byte.
 *
 * Parsing is Go's `x509.ParsePKCS8PrivateKey` plus the two fallbacks of
 * Vault's `sdk/helper/keysutil/util.go` (reference §7):
 * - Ed25519 written by NSS: algorithm id-ecPublicKey with curve OID
 *   1.3.6.1.4.1.11591.15.1 (or 1.3.101.110), in the parameters or in the inner
 *   `ECPrivateKey`'s `[0]`; the 32-byte `privateKey` is the Ed25519 seed and the
 *   embedded public key (really an X25519 key) is ignored, as Vault does;
 * - RSA under the id-RSASSA-PSS algorithm OID (parameters ignored).
 *
 * @module
 */
import * as asn1js from 'asn1js';
import { AlgorithmIdentifier, PrivateKeyInfo } from 'pkijs';
import { invalidRequest } from '../../errors.js';
import type { EcPrivateKey, Ed25519PrivateKey, RsaPrivateKey } from '../asymmetric-backend.js';
import { type MlDsaPrivateKey, mlDsaExpandedMatches } from '../ml-dsa.js';
import {
  CURVE_OID,
  curveFromOid,
  OID,
  octets,
  oidOf,
  parseDer,
  parseWithSchema,
  readSmallInt,
  toDer,
} from './der.js';
import { decodeSec1PrivateKey, encodeSec1PrivateKey, readEcPrivateKey } from './ec.js';
import {
  decodeMlDsaPrivateInner,
  encodeMlDsaSeedInner,
  ML_DSA_OID,
  mlDsaLevelOfOid,
} from './ml-dsa.js';
import { decodePkcs1PrivateKey, encodePkcs1PrivateKey } from './rsa.js';

/** A private key of any asymmetric type, tagged. @public */
export type PrivateKeyMaterial =
  | { readonly type: 'rsa'; readonly key: RsaPrivateKey }
  | { readonly type: 'ec'; readonly key: EcPrivateKey }
  | { readonly type: 'ed25519'; readonly key: Ed25519PrivateKey }
  | { readonly type: 'ml-dsa'; readonly key: MlDsaPrivateKey };

const ED25519_SIZE = 32;

/** `AlgorithmIdentifier` with optional parameters (absent when `undefined`). @internal */
export function algorithm(oid: string, params?: asn1js.AsnType): AlgorithmIdentifier {
  return new AlgorithmIdentifier(
    params === undefined ? { algorithmId: oid } : { algorithmId: oid, algorithmParams: params },
  );
}

/**
 * PKCS#8 `PrivateKeyInfo` DER (PEM label `PRIVATE KEY`), as Go's
 * `MarshalPKCS8PrivateKey`: version 0, no attributes; RSA with NULL
 * parameters; EC with the curve OID and an inner SEC 1 key without `[0]`;
 * Ed25519 (RFC 8410) as `OCTET STRING { seed }`.
 * @public
 */
export function encodePkcs8PrivateKey(material: PrivateKeyMaterial): Uint8Array {
  let alg: AlgorithmIdentifier;
  let inner: Uint8Array;
  switch (material.type) {
    case 'rsa':
      alg = algorithm(OID.rsaEncryption, new asn1js.Null());
      inner = encodePkcs1PrivateKey(material.key);
      break;
    case 'ec':
      alg = algorithm(
        OID.ecPublicKey,
        new asn1js.ObjectIdentifier({ value: CURVE_OID[material.key.curve] }),
      );
      inner = encodeSec1PrivateKey(material.key, { includeCurve: false });
      break;
    case 'ed25519':
      alg = algorithm(OID.ed25519);
      inner = toDer(new asn1js.OctetString({ valueHex: material.key.seed }));
      break;
    case 'ml-dsa':
      alg = algorithm(ML_DSA_OID[material.key.level]);
      inner = encodeMlDsaSeedInner(material.key.seed);
      break;
  }
  const info = new PrivateKeyInfo({
    version: 0,
    privateKeyAlgorithm: alg,
    privateKey: new asn1js.OctetString({ valueHex: inner }),
  });
  return toDer(info.toSchema());
}

/** Vault's NSS fallback: the inner `ECPrivateKey` holds a 32-byte Ed25519 seed. */
function decodeNssEd25519(
  inner: Uint8Array,
  outerCurveOid: string | undefined,
  what: string,
): PrivateKeyMaterial {
  const raw = readEcPrivateKey(inner, what);
  if (raw.version !== 1) throw invalidRequest(`${what}: unknown EC private key version`);
  const oid = outerCurveOid ?? raw.curveOid;
  if (oid !== OID.nssCurve25519 && oid !== OID.x25519)
    throw invalidRequest(`${what}: unsupported curve`);
  if (raw.scalar.length !== ED25519_SIZE)
    throw invalidRequest(`${what}: Ed25519 seed must be 32 bytes`);
  return { type: 'ed25519', key: { seed: raw.scalar } };
}

/** id-ecPublicKey: a NIST curve, or Vault's NSS Ed25519 fallback. */
function decodeEcPkcs8(
  params: asn1js.AsnType | undefined,
  inner: Uint8Array,
  what: string,
): PrivateKeyMaterial {
  const outerOid = oidOf(params);
  const outerCurve = outerOid === undefined ? undefined : curveFromOid(outerOid);
  if (outerCurve !== undefined) return { type: 'ec', key: decodeSec1PrivateKey(inner, outerCurve) };
  if (outerOid !== undefined) return decodeNssEd25519(inner, outerOid, what);
  // No curve in the parameters: Go falls back to the inner [0] field.
  const innerOid = readEcPrivateKey(inner, what).curveOid;
  if (innerOid !== undefined && curveFromOid(innerOid) !== undefined) {
    return { type: 'ec', key: decodeSec1PrivateKey(inner) };
  }
  return decodeNssEd25519(inner, undefined, what);
}

/**
 * RFC 5958 `OneAsymmetricKey` (PKCS#8 v1 and v2): version, algorithm, the
 * key, then optional `[0]` attributes and `[1]` public key, either without
 * the other (BouncyCastle and ring write `[1]` alone; pkijs' PrivateKeyInfo
 * schema knows only `[0]`). Neither is read: as Go's
 * `x509.ParsePKCS8PrivateKey`, the key is taken from the private part.
 */
function oneAsymmetricKeySchema(): asn1js.Sequence {
  return new asn1js.Sequence({
    value: [
      new asn1js.Integer({ name: 'version' }),
      AlgorithmIdentifier.schema({
        names: { algorithmIdentifier: 'alg', algorithmParams: 'params' },
      }),
      new asn1js.OctetString({ name: 'key' }),
      new asn1js.Any({ name: 'attributesOrPublicKey', optional: true }),
      new asn1js.Any({ name: 'publicKey', optional: true }),
    ],
  });
}

/**
 * Parse a PKCS#8 `PrivateKeyInfo` (RSA, RSA under the PSS OID, EC P-256/384/521,
 * Ed25519, and NSS-format Ed25519), validating the key.
 * @throws TransitError `invalid_request` for malformed input or an unsupported algorithm.
 * @public
 */
export function decodePkcs8PrivateKey(der: Uint8Array): PrivateKeyMaterial {
  const what = 'PKCS#8 private key';
  const r = parseWithSchema(der, oneAsymmetricKeySchema(), what);
  const version = readSmallInt(r.version, what);
  if (version !== 0 && version !== 1) throw invalidRequest(`${what}: unknown version`);
  const inner = octets(r.key, what);
  const params = r.params;
  switch (oidOf(r.alg)) {
    case OID.rsaEncryption:
    case OID.rsassaPss:
      return { type: 'rsa', key: decodePkcs1PrivateKey(inner) };
    case OID.ecPublicKey:
      return decodeEcPkcs8(params, inner, what);
    case OID.ed25519: {
      if (params !== undefined)
        throw invalidRequest(`${what}: Ed25519 must not have algorithm parameters`);
      const seed = octets(parseDer(inner, what), what);
      if (seed.length !== ED25519_SIZE)
        throw invalidRequest(`${what}: Ed25519 seed must be 32 bytes`);
      return { type: 'ed25519', key: { seed } };
    }
    default:
      return decodeMlDsaPkcs8(oidOf(r.alg), params, inner, what);
  }
}

/**
 * RFC 9881 ML-DSA: the seed form, or the `both` form whose expanded key must
 * be the seed's. The expanded-only form is refused: the seed is the private
 * key transit stores and exports, and it cannot be recovered from the
 * expanded key.
 */
function decodeMlDsaPkcs8(
  oid: string | undefined,
  params: asn1js.AsnType | undefined,
  inner: Uint8Array,
  what: string,
): PrivateKeyMaterial {
  const level = mlDsaLevelOfOid(oid);
  if (level === undefined) throw invalidRequest(`${what}: unsupported key algorithm`);
  if (params !== undefined)
    throw invalidRequest(`${what}: ML-DSA must not have algorithm parameters`);
  const forms = decodeMlDsaPrivateInner(level, inner, what);
  if (!forms.seed) {
    throw invalidRequest(
      `${what}: ML-DSA expanded-only private keys are not supported (the 32-byte seed is the private key; use the seed or both form)`,
    );
  }
  const key: MlDsaPrivateKey = { level, seed: forms.seed };
  if (forms.expanded && !mlDsaExpandedMatches(key, forms.expanded)) {
    throw invalidRequest(`${what}: ML-DSA seed and expanded key do not match`);
  }
  return { type: 'ml-dsa', key };
}
