/**
 * Certificate chains for transit keys: the pure half of Vault's
 * `POST keys/:name/set-certificate` (`parseCertificateChain` in
 * `path_certificates.go`, `ValidateLeafCertKeyMatch` and
 * `ValidateAndPersistCertificateChain` in keysutil) and of the
 * `certificate_chain` field of the read body.
 *
 * Flow for the engine: `parseCertificateChain(pem)` → DER list (store it, as
 * Vault stores `[][]byte`) → `checkLeafMatches(ders, spkiOfTheVersion)` →
 * persist; on read, `chainToPem(ders)`.
 *
 * Decisions (all parsing through `pkijs`/`asn1js`/`@peculiar/x509`):
 * - **Signatures between certificates are not verified**, as in Vault. The
 *   chain is material handed back to clients, who validate paths against
 *   their own trust anchors; checking would refuse chains Vault accepts
 *   (partial or cross-signed chains, issuers using algorithms transit does
 *   not implement) and anchors nothing, since no root of trust is known here.
 * - Vault's structural checks are kept: the first certificate must not be a
 *   CA (basicConstraints `cA` true), and no later one may be an explicit leaf
 *   (basicConstraints present with `cA` false).
 * - Stricter than Vault: PEM blocks other than `CERTIFICATE` (Vault ignores
 *   them), malformed PEM blocks and PEM headers are refused, so a private key
 *   pasted into a chain is never silently accepted. Explanatory text between
 *   blocks (RFC 7468 §2, e.g. `openssl x509 -text` output) is allowed.
 * - The leaf's key is compared by value (modulus/exponent, curve and point,
 *   Ed25519 bytes), like Go's `PublicKey.Equal`, not by SPKI bytes.
 *
 * @module
 */
import { BasicConstraints, Certificate } from 'pkijs';
import { invalidRequest } from '../../errors.js';
import { bytesOf, OID, parseDer, toDer } from './der.js';
import { type PemBlock, readPem } from './pem.js';
import { decodeSpki, type PublicKeyMaterial } from './spki.js';

// The read form needs no parser: it lives with the PEM armour (no pkijs on the read path).
export { chainToPem } from './pem.js';

/** basicConstraints (RFC 5280 §4.2.1.9). */
const BASIC_CONSTRAINTS = '2.5.29.19';

/**
 * Parse a PEM certificate chain (end-entity first, as Vault's
 * `certificate_chain`) into the DER of each certificate, in order, and apply
 * Vault's position checks.
 *
 * @example
 * ```ts
 * const ders = parseCertificateChain(leafPem + caPem); // [leafDer, caDer]
 * ```
 * @throws TransitError `invalid_request` for empty input, no PEM block, a
 * malformed or non-`CERTIFICATE` block, a certificate that does not parse, a
 * CA certificate in the first position, or an explicit leaf after it.
 * @public
 */
export function parseCertificateChain(pem: string): Uint8Array[] {
  if (typeof pem !== 'string') throw invalidRequest('certificate chain must be a PEM string');
  if (pem.trim() === '') throw invalidRequest('certificate chain is empty');
  let blocks: PemBlock[];
  let after: string;
  try {
    ({ blocks, after } = readPem(pem));
  } catch {
    throw invalidRequest('could not decode PEM block in certificate chain');
  }
  // The decoder skips what it cannot match; a BEGIN line it did not turn into
  // a block means a malformed block (bad base64, missing END line, …).
  const begins = pem.match(/-----BEGIN [^\n]*?-----/g)?.length ?? 0;
  if (blocks.length === 0 && begins === 0)
    throw invalidRequest('certificate chain contains no PEM certificate');
  // Text before and between blocks is skipped, but not after the last, as
  // Vault's `pem.Decode` loop (a remainder without a block is an error there).
  if (begins !== blocks.length || after.trim() !== '')
    throw invalidRequest('could not decode PEM block in certificate chain');
  const ders = blocks.map((block, i) => {
    const n = i + 1;
    if (block.label !== 'CERTIFICATE') {
      throw invalidRequest(
        `certificate chain: PEM block ${n} is "${block.label.slice(0, 40)}", expected CERTIFICATE`,
      );
    }
    if (block.hasHeaders) throw invalidRequest(`certificate chain: PEM block ${n} has headers`);
    const der = block.der;
    const ca = isCa(parseCertificate(der, n), n);
    if (n === 1 && ca === true)
      throw invalidRequest('certificate in the first position is not a leaf certificate');
    if (n > 1 && ca === false)
      throw invalidRequest('provided certificate chain contains more than one leaf certificate');
    return der;
  });
  return ders;
}

/**
 * Check that the chain's first certificate carries the given public key (the
 * key version's `SubjectPublicKeyInfo` DER, e.g. from `publicKeySpki` or
 * `encodeSpki`). Keys are compared by value.
 *
 * @throws TransitError `invalid_request` when the chain is empty, the leaf
 * does not parse, its key algorithm differs from the key's, or its key
 * differs.
 * @public
 */
export function checkLeafMatches(
  chainDer: readonly Uint8Array[],
  publicKeySpkiDer: Uint8Array,
): void {
  const leafDer = chainDer[0];
  if (leafDer === undefined)
    throw invalidRequest('expected at least one certificate in the certificate chain');
  const expected = decodeSpki(publicKeySpkiDer);
  const leaf = parseCertificate(leafDer, 1);
  let actual: PublicKeyMaterial | undefined;
  try {
    // A key marked RSASSA-PSS only is not the key of an rsa-* transit key, which
    // signs PKCS#1 v1.5 too (Go's x509 reads that algorithm as unknown, as Vault).
    const spki = leaf.subjectPublicKeyInfo;
    if (spki.algorithm.algorithmId !== OID.rsassaPss) actual = decodeSpki(toDer(spki.toSchema()));
  } catch {
    actual = undefined; // an algorithm transit does not have
  }
  const actualKind = actual === undefined ? 'unsupported' : kindOf(actual);
  if (actual === undefined || actualKind !== kindOf(expected)) {
    throw invalidRequest(
      `leaf certificate public key type '${actualKind}' does not match the key type '${kindOf(expected)}'`,
    );
  }
  if (!sameKey(actual, expected)) {
    throw invalidRequest("leaf certificate public key does not match the key version's public key");
  }
}

/** Parse one certificate's DER (certificate `n` of the chain, 1-based). */
function parseCertificate(der: Uint8Array, n: number): Certificate {
  const what = `failed to parse certificate ${n} in certificate chain`;
  const node = parseDer(der, what);
  try {
    return new Certificate({ schema: node });
  } catch (e) {
    throw invalidRequest(`${what}: unexpected ASN.1 structure`, e);
  }
}

/**
 * The basicConstraints `cA` flag, or `undefined` without the extension (Go's
 * `BasicConstraintsValid` false).
 */
function isCa(cert: Certificate, n: number): boolean | undefined {
  const ext = cert.extensions?.find((e) => e.extnID === BASIC_CONSTRAINTS);
  if (ext === undefined) return undefined;
  const what = `failed to parse certificate ${n} in certificate chain: basicConstraints`;
  const node = parseDer(bytesOf(ext.extnValue.valueBlock.valueHexView), what);
  try {
    return new BasicConstraints({ schema: node }).cA;
  } catch (e) {
    throw invalidRequest(`${what}: unexpected ASN.1 structure`, e);
  }
}

/** Vault-style name of a key's kind: `rsa-2048`, `ecdsa-p256`, `ed25519`. */
function kindOf(m: PublicKeyMaterial): string {
  switch (m.type) {
    case 'rsa':
      return `rsa-${m.key.n.toString(2).length}`;
    case 'ec':
      return `ecdsa-${m.key.curve}`;
    case 'ed25519':
      return 'ed25519';
    case 'ml-dsa':
      return `mldsa-${m.key.level}`;
  }
}

/** Same public key value. */
function sameKey(a: PublicKeyMaterial, b: PublicKeyMaterial): boolean {
  if (a.type === 'rsa' && b.type === 'rsa') return a.key.n === b.key.n && a.key.e === b.key.e;
  if (a.type === 'ec' && b.type === 'ec')
    return a.key.curve === b.key.curve && a.key.x === b.key.x && a.key.y === b.key.y;
  if (a.type === 'ed25519' && b.type === 'ed25519')
    return a.key.length === b.key.length && a.key.every((v, i) => v === b.key[i]);
  if (a.type === 'ml-dsa' && b.type === 'ml-dsa')
    return (
      a.key.level === b.key.level &&
      a.key.key.length === b.key.key.length &&
      a.key.key.every((v, i) => v === b.key.key[i])
    );
  return false;
}
