/**
 * ML-DSA key encodings of RFC 9881 (X.509 algorithm identifiers for ML-DSA),
 * through `asn1js`:
 * - algorithm identifiers id-ml-dsa-44/65/87 (2.16.840.1.101.3.4.3.17/18/19),
 *   parameters absent;
 * - SPKI: the `subjectPublicKey` BIT STRING is the encoded `pk`;
 * - PKCS#8: the `privateKey` OCTET STRING holds an `ML-DSA-PrivateKey`
 *   CHOICE: `seed [0] IMPLICIT OCTET STRING (32)`, `expandedKey OCTET STRING`
 *   or `both SEQUENCE { seed, expandedKey }`. We write the seed-only form
 *   (RFC 9881 §6's recommendation) and read all three.
 *
 * @module
 */
import * as asn1js from 'asn1js';
import { invalidRequest } from '../../errors.js';
import { ML_DSA_SEED_BYTES, ML_DSA_SIZES, type MlDsaLevel } from '../ml-dsa.js';
import { bytesOf, octets, parseDer, toDer } from './der.js';

/** RFC 9881 algorithm OIDs, by parameter set. @internal */
export const ML_DSA_OID: Readonly<Record<MlDsaLevel, string>> = {
  44: '2.16.840.1.101.3.4.3.17',
  65: '2.16.840.1.101.3.4.3.18',
  87: '2.16.840.1.101.3.4.3.19',
};

/** The parameter set of an algorithm OID, or `undefined`. @internal */
export function mlDsaLevelOfOid(oid: string | undefined): MlDsaLevel | undefined {
  for (const [level, o] of Object.entries(ML_DSA_OID)) {
    if (o === oid) return Number(level) as MlDsaLevel;
  }
  return undefined;
}

/** A parsed `ML-DSA-PrivateKey`: the seed, the expanded key, or both. @internal */
export interface MlDsaPrivateKeyForms {
  readonly seed?: Uint8Array;
  readonly expanded?: Uint8Array;
}

/** The `privateKey` contents of the seed-only PKCS#8 form: `[0] IMPLICIT OCTET STRING`. @internal */
export function encodeMlDsaSeedInner(seed: Uint8Array): Uint8Array {
  const node = new asn1js.Primitive({
    idBlock: { tagClass: 3, tagNumber: 0 },
    valueHex: seed,
  });
  return toDer(node);
}

function checkSeed(seed: Uint8Array, what: string): Uint8Array {
  if (seed.length !== ML_DSA_SEED_BYTES)
    throw invalidRequest(`${what}: ML-DSA seed must be 32 bytes`);
  return seed;
}

function checkExpanded(level: MlDsaLevel, key: Uint8Array, what: string): Uint8Array {
  if (key.length !== ML_DSA_SIZES[level].secretKey) {
    throw invalidRequest(
      `${what}: ML-DSA-${level} expanded key must be ${ML_DSA_SIZES[level].secretKey} bytes`,
    );
  }
  return key;
}

/**
 * Parse the `privateKey` contents of an ML-DSA PKCS#8 key (any of the three
 * CHOICE forms), checking the sizes of the parameter set.
 * @throws TransitError `invalid_request`.
 * @internal
 */
export function decodeMlDsaPrivateInner(
  level: MlDsaLevel,
  inner: Uint8Array,
  what: string,
): MlDsaPrivateKeyForms {
  const node = parseDer(inner, what);
  const id = node.idBlock;
  if (id.tagClass === 3 && id.tagNumber === 0 && !id.isConstructed) {
    const seed = bytesOf((node as asn1js.Primitive).valueBlock.valueHexView);
    return { seed: checkSeed(seed, what) };
  }
  if (node instanceof asn1js.OctetString) {
    return { expanded: checkExpanded(level, octets(node, what), what) };
  }
  if (node instanceof asn1js.Sequence) {
    const items = node.valueBlock.value;
    if (items.length !== 2) throw invalidRequest(`${what}: unexpected ML-DSA private key form`);
    return {
      seed: checkSeed(octets(items[0], what), what),
      expanded: checkExpanded(level, octets(items[1], what), what),
    };
  }
  throw invalidRequest(`${what}: unexpected ML-DSA private key form`);
}

/**
 * Check an ML-DSA public key's size for its parameter set.
 * @throws TransitError `invalid_request`.
 * @internal
 */
export function checkMlDsaPublic(level: MlDsaLevel, key: Uint8Array, what: string): Uint8Array {
  if (key.length !== ML_DSA_SIZES[level].publicKey) {
    throw invalidRequest(
      `${what}: ML-DSA-${level} public key must be ${ML_DSA_SIZES[level].publicKey} bytes`,
    );
  }
  return key;
}
