/**
 * PKCS#1 v1.5 `DigestInfo` (RFC 8017 §9.2 step 2) through `pkijs`: the
 * `T = DigestInfo(hashAlgorithm, digest)` that EMSA-PKCS1-v1_5 pads. The
 * AlgorithmIdentifier carries explicit NULL parameters, as RFC 8017's table,
 * Go's `hashPrefixes` and OpenSSL do (SHA-3 included, per OpenSSL and
 * Go ≥ 1.24). Verification re-encodes and compares, so a DigestInfo without
 * the NULL (Wycheproof "MissingNull") is rejected, as Go and OpenSSL do.
 *
 * @module
 */
import * as asn1js from 'asn1js';
import { AlgorithmIdentifier, DigestInfo } from 'pkijs';
import type { HashName } from '../backend.js';
import { toDer } from './der.js';

/** Hash algorithm OIDs (RFC 8017 Appendix A.2.4, NIST CSOR). */
const HASH_OID: Readonly<Record<HashName, string>> = {
  sha1: '1.3.14.3.2.26',
  sha224: '2.16.840.1.101.3.4.2.4',
  sha256: '2.16.840.1.101.3.4.2.1',
  sha384: '2.16.840.1.101.3.4.2.2',
  sha512: '2.16.840.1.101.3.4.2.3',
  'sha3-224': '2.16.840.1.101.3.4.2.7',
  'sha3-256': '2.16.840.1.101.3.4.2.8',
  'sha3-384': '2.16.840.1.101.3.4.2.9',
  'sha3-512': '2.16.840.1.101.3.4.2.10',
};

/**
 * DER `DigestInfo` of a digest.
 *
 * @example
 * ```ts
 * encodeDigestInfo('sha256', digest); // 30 31 30 0d 06 09 60 86 48 01 65 03 04 02 01 05 00 04 20 ‖ digest
 * ```
 * @public
 */
export function encodeDigestInfo(hash: HashName, digest: Uint8Array): Uint8Array {
  const info = new DigestInfo({
    digestAlgorithm: new AlgorithmIdentifier({
      algorithmId: HASH_OID[hash],
      algorithmParams: new asn1js.Null(),
    }),
    digest: new asn1js.OctetString({ valueHex: digest }),
  });
  return toDer(info.toSchema());
}
