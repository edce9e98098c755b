/**
 * Shared plumbing for the PKI codecs: BER/DER parsing through `asn1js` with
 * full-consumption and schema checks, bigint ↔ ASN.1 INTEGER, and the OID
 * tables (RFC 8017, RFC 5480, RFC 8410, and the NSS curve OID Vault accepts).
 *
 * Nothing here writes DER by hand: every structure is built and read through
 * `asn1js` objects or `pkijs` schemas. Parse failures become
 * `invalidRequest` errors whose text names the structure, never its bytes.
 *
 * @module
 */
import * as asn1js from 'asn1js';
import { invalidRequest } from '../../errors.js';
import type { EcCurve } from '../asymmetric-backend.js';

/** Object identifiers used by the key codecs. @internal */
export const OID = {
  /** rsaEncryption (RFC 8017 A.1). */
  rsaEncryption: '1.2.840.113549.1.1.1',
  /** id-RSASSA-PSS (RFC 8017 A.2.3); Vault accepts it on PKCS#8 import. */
  rsassaPss: '1.2.840.113549.1.1.10',
  /** id-ecPublicKey (RFC 5480). */
  ecPublicKey: '1.2.840.10045.2.1',
  /** id-Ed25519 (RFC 8410). */
  ed25519: '1.3.101.112',
  /** id-X25519 (RFC 8410); Vault's util.go treats it as Ed25519 in the NSS fallback. */
  x25519: '1.3.101.110',
  /** NSS / draft-josefsson curve25519 OID, used by NSS-format Ed25519 keys. */
  nssCurve25519: '1.3.6.1.4.1.11591.15.1',
} as const;

/** Named-curve OIDs (RFC 5480 §2.1.1.1). @internal */
export const CURVE_OID: Readonly<Record<EcCurve, string>> = {
  p256: '1.2.840.10045.3.1.7',
  p384: '1.3.132.0.34',
  p521: '1.3.132.0.35',
};

/** The curve of a named-curve OID, or `undefined`. @internal */
export function curveFromOid(oid: string): EcCurve | undefined {
  for (const [curve, o] of Object.entries(CURVE_OID)) if (o === oid) return curve as EcCurve;
  return undefined;
}

/** A view of an ArrayBuffer-backed byte range as a fresh Uint8Array. @internal */
export function bytesOf(buf: ArrayBuffer | Uint8Array): Uint8Array {
  return buf instanceof Uint8Array ? new Uint8Array(buf) : new Uint8Array(buf.slice(0));
}

/** A standalone ArrayBuffer holding exactly `bytes` (pkijs fields take ArrayBuffers). @internal */
export function bufferOf(bytes: Uint8Array): ArrayBuffer {
  const out = new ArrayBuffer(bytes.length);
  new Uint8Array(out).set(bytes);
  return out;
}

/** Serialise an asn1js/pkijs object to DER bytes. @internal */
export function toDer(obj: { toBER(sizeOnly?: boolean): ArrayBuffer }): Uint8Array {
  return new Uint8Array(obj.toBER(false));
}

/**
 * Parse one BER/DER element that spans all of `der` (trailing bytes are an
 * error, as in Go's `asn1.Unmarshal` callers).
 * @throws TransitError `invalid_request` naming `what`.
 * @internal
 */
export function parseDer(der: Uint8Array, what: string): asn1js.AsnType {
  if (!(der instanceof Uint8Array) || der.length === 0)
    throw invalidRequest(`${what}: empty or non-binary input`);
  let parsed: ReturnType<typeof asn1js.fromBER>;
  try {
    parsed = asn1js.fromBER(der);
  } catch (e) {
    // asn1js throws plain Errors on some malformed values (a GeneralizedTime
    // or UTCTime that is not a date, say): a caller's mistake, not a bug.
    throw invalidRequest(`${what}: malformed ASN.1`, e);
  }
  const { offset, result } = parsed;
  if (offset === -1 || result.error !== '') throw invalidRequest(`${what}: malformed ASN.1`);
  if (offset !== der.length) throw invalidRequest(`${what}: trailing data after ASN.1 structure`);
  return result;
}

/**
 * Match `node` against an asn1js schema (typically a pkijs `X.schema({ names })`)
 * and return the named components.
 * @throws TransitError `invalid_request` naming `what`.
 * @internal
 */
export function matchSchema(
  node: asn1js.AsnType,
  schema: asn1js.AsnSchemaType,
  what: string,
): Record<string, asn1js.AsnType> {
  let res: ReturnType<typeof asn1js.compareSchema>;
  try {
    res = asn1js.compareSchema(node, node, schema);
  } catch (e) {
    throw invalidRequest(`${what}: unexpected ASN.1 structure`, e);
  }
  if (!res.verified) throw invalidRequest(`${what}: unexpected ASN.1 structure`);
  return res.result as unknown as Record<string, asn1js.AsnType>;
}

/** Parse + match in one step. @internal */
export function parseWithSchema(
  der: Uint8Array,
  schema: asn1js.AsnSchemaType,
  what: string,
): Record<string, asn1js.AsnType> {
  return matchSchema(parseDer(der, what), schema, what);
}

/**
 * A non-negative INTEGER as bigint.
 * @throws TransitError `invalid_request` when not an INTEGER or negative.
 * @internal
 */
export function readUnsigned(node: asn1js.AsnType | undefined, what: string): bigint {
  if (!(node instanceof asn1js.Integer)) throw invalidRequest(`${what}: expected INTEGER`);
  const v = node.toBigInt();
  if (v < 0n) throw invalidRequest(`${what}: negative INTEGER`);
  return v;
}

/** A small INTEGER (version fields) as a number. @internal */
export function readSmallInt(node: asn1js.AsnType | undefined, what: string): number {
  const v = readUnsigned(node, what);
  if (v > 1000n) throw invalidRequest(`${what}: unexpected version`);
  return Number(v);
}

/** An INTEGER element for a non-negative bigint (minimal DER). @internal */
export function integer(x: bigint): asn1js.Integer {
  return asn1js.Integer.fromBigInt(x);
}

/** The OID string of an OBJECT IDENTIFIER node, or `undefined` for anything else. @internal */
export function oidOf(node: unknown): string | undefined {
  return node instanceof asn1js.ObjectIdentifier ? node.valueBlock.toString() : undefined;
}

/** The bytes of an OCTET STRING node. @throws TransitError otherwise. @internal */
export function octets(node: asn1js.AsnType | undefined, what: string): Uint8Array {
  if (!(node instanceof asn1js.OctetString)) throw invalidRequest(`${what}: expected OCTET STRING`);
  return bytesOf(node.valueBlock.valueHexView);
}

/** The bytes of a BIT STRING with no unused bits. @throws TransitError otherwise. @internal */
export function bitStringBytes(node: asn1js.AsnType | undefined, what: string): Uint8Array {
  if (!(node instanceof asn1js.BitString) || node.valueBlock.unusedBits !== 0) {
    throw invalidRequest(`${what}: expected BIT STRING of whole bytes`);
  }
  return bytesOf(node.valueBlock.valueHexView);
}
