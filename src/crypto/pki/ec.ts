/**
 * SEC 1 (RFC 5915) `ECPrivateKey` through `pkijs`, and SEC 1 point
 * validation through `@noble/curves`, for P-256/384/521.
 *
 * Encoding matches Go's `x509.MarshalECPrivateKey` (and OpenSSL): version 1,
 * the scalar left-padded to ⌈orderBits/8⌉ bytes, `[0]` named curve, `[1]`
 * uncompressed public point. Inside PKCS#8 Go omits `[0]` (the curve is in the
 * AlgorithmIdentifier); `includeCurve: false` does the same.
 *
 * Parsing follows Go's `parseECPrivateKey`: the public point is recomputed
 * from the scalar and an embedded `[1]` point is ignored; the scalar must be
 * in 1..n−1; a longer-than-needed scalar with leading zeros is accepted.
 *
 * @module
 */
import { p256, p384, p521 } from '@noble/curves/nist.js';
import * as asn1js from 'asn1js';
import { ECPrivateKey, ECPublicKey } from 'pkijs';
import { invalidRequest } from '../../errors.js';
import type { EcCurve, EcPrivateKey, EcPublicKey } from '../asymmetric-backend.js';
import { CURVE_BYTES, toBigInt, toBytes } from '../asymmetric-checks.js';
import {
  bufferOf,
  CURVE_OID,
  curveFromOid,
  octets,
  oidOf,
  parseWithSchema,
  readSmallInt,
  toDer,
} from './der.js';

/** The noble curve object of each curve name. */
const NOBLE_CURVES = { p256, p384, p521 } as const;

/**
 * The public point of scalar `d`, after checking `1 ≤ d < n`.
 * @throws TransitError `invalid_request` when `d` is out of range.
 * @internal
 */
export function ecPublicFromScalar(curve: EcCurve, d: bigint, what: string): EcPublicKey {
  const c = NOBLE_CURVES[curve];
  if (d <= 0n || d >= c.Point.Fn.ORDER)
    throw invalidRequest(`${what}: private scalar out of range`);
  const pt = c.Point.BASE.multiply(d).toAffine();
  return { curve, x: pt.x, y: pt.y };
}

/**
 * Decode and validate an uncompressed SEC 1 point (`04 ‖ x ‖ y`, on the curve,
 * not infinity). Compressed points are refused, as Go's x509 does.
 * @throws TransitError `invalid_request`.
 * @internal
 */
export function decodeEcPoint(curve: EcCurve, bytes: Uint8Array, what: string): EcPublicKey {
  const len = CURVE_BYTES[curve];
  if (bytes.length !== 1 + 2 * len || bytes[0] !== 4) {
    throw invalidRequest(`${what}: expected an uncompressed ${curve.toUpperCase()} point`);
  }
  try {
    const pt = NOBLE_CURVES[curve].Point.fromBytes(bytes);
    pt.assertValidity();
    const a = pt.toAffine();
    return { curve, x: a.x, y: a.y };
  } catch {
    throw invalidRequest(`${what}: point is not on the curve`);
  }
}

/** Options of {@link encodeSec1PrivateKey}. @public */
export interface Sec1EncodeOptions {
  /** Write the `[0]` named-curve field (default true; false inside PKCS#8, as Go). */
  readonly includeCurve?: boolean;
}

/**
 * SEC 1 `ECPrivateKey` DER (PEM label `EC PRIVATE KEY`).
 *
 * @example
 * ```ts
 * const pem = pemEncode(encodeSec1PrivateKey(key), 'EC PRIVATE KEY');
 * ```
 * @public
 */
export function encodeSec1PrivateKey(
  key: EcPrivateKey,
  options: Sec1EncodeOptions = {},
): Uint8Array {
  const len = CURVE_BYTES[key.curve];
  const sec1 = new ECPrivateKey({
    version: 1,
    privateKey: new asn1js.OctetString({ valueHex: toBytes(key.d, len) }),
    publicKey: new ECPublicKey({
      namedCurve: CURVE_OID[key.curve],
      x: bufferOf(toBytes(key.x, len)),
      y: bufferOf(toBytes(key.y, len)),
    }),
  });
  if (options.includeCurve !== false) sec1.namedCurve = CURVE_OID[key.curve];
  return toDer(sec1.toSchema());
}

/** The raw fields of an `ECPrivateKey`, before curve resolution. @internal */
export interface RawEcPrivateKey {
  /** `version` (1 for RFC 5915 keys). */
  readonly version: number;
  /** The `privateKey` octets. */
  readonly scalar: Uint8Array;
  /** The `[0]` curve OID, when present. */
  readonly curveOid: string | undefined;
}

/**
 * Read the fields of an `ECPrivateKey` without interpreting them (the NSS
 * Ed25519 fallback reuses this with a non-NIST curve OID).
 * @throws TransitError `invalid_request` for malformed input.
 * @internal
 */
export function readEcPrivateKey(der: Uint8Array, what: string): RawEcPrivateKey {
  const r = parseWithSchema(
    der,
    ECPrivateKey.schema({
      names: { version: 'version', privateKey: 'scalar', namedCurve: 'curve', publicKey: 'pub' },
    }),
    what,
  );
  return {
    version: readSmallInt(r.version, what),
    scalar: octets(r.scalar, what),
    curveOid: r.curve === undefined ? undefined : oidOf(r.curve),
  };
}

/**
 * Parse a SEC 1 `ECPrivateKey`. `curve` is the curve from an enclosing
 * PKCS#8 AlgorithmIdentifier, if any; it wins over the inner `[0]` field, and
 * one of the two is required.
 * @throws TransitError `invalid_request` for malformed input, an unknown curve
 * or an out-of-range scalar.
 * @public
 */
export function decodeSec1PrivateKey(der: Uint8Array, curve?: EcCurve): EcPrivateKey {
  const what = 'EC private key';
  const raw = readEcPrivateKey(der, what);
  if (raw.version !== 1) throw invalidRequest(`${what}: unknown version`);
  const resolved = curve ?? (raw.curveOid === undefined ? undefined : curveFromOid(raw.curveOid));
  if (resolved === undefined) throw invalidRequest(`${what}: missing or unsupported named curve`);
  const len = CURVE_BYTES[resolved];
  let scalar = raw.scalar;
  // Go: some encoders strip or add leading zero bytes; accept both.
  while (scalar.length > len && scalar[0] === 0) scalar = scalar.subarray(1);
  if (scalar.length > len) throw invalidRequest(`${what}: private scalar too long`);
  const d = toBigInt(scalar);
  return { ...ecPublicFromScalar(resolved, d, what), d };
}
