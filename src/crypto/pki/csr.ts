/**
 * PKCS#10 certificate signing requests (RFC 2986) signed by a transit key:
 * the pure half of Vault's `POST keys/:name/csr` (keysutil `CreateCSR`, which
 * is Go's `x509.CreateCertificateRequest` over a parsed template).
 *
 * Everything is built through `pkijs`/`asn1js`; the signature is made by an
 * {@link AsymmetricBackend} over the DER `CertificationRequestInfo` (the TBS).
 * Algorithms are the ones Go picks for the key: ECDSA with SHA-256 / SHA-384 /
 * SHA-512 for P-256 / P-384 / P-521 (DER signature, no parameters), RSA
 * PKCS#1 v1.5 with SHA-256 (NULL parameters) for every modulus size, pure
 * Ed25519, and pure ML-DSA-44/65/87 (RFC 9881 OIDs, empty context; not in
 * Go's x509, so Vault cannot do it).
 *
 * Template handling (where it differs from Go, we are the more faithful one):
 * - the subject is copied byte for byte (Go uses `RawSubject`);
 * - every attribute, the extension request included, is copied verbatim and
 *   in order. Go drops attributes whose value is not a SET of
 *   AttributeTypeAndValue sequences (challengePassword, unstructuredName) and
 *   garbles critical extensions when it re-encodes the extension request;
 * - the public key is replaced by the key's own, the version is forced to 0
 *   and the template's signature is neither checked nor kept (Go does not
 *   check it either).
 *
 * @module
 */
import * as asn1js from 'asn1js';
import {
  type AlgorithmIdentifier,
  type Attribute,
  CertificationRequest,
  Extensions,
  PublicKeyInfo,
  RelativeDistinguishedNames,
} from 'pkijs';
import { invalidRequest, isTransitError } from '../../errors.js';
import type { AsymmetricBackend, EcCurve } from '../asymmetric-backend.js';
import type { HashName } from '../backend.js';
import { mlDsaPublicKey, mlDsaSign } from '../ml-dsa.js';
import { bufferOf, matchSchema, OID, parseDer, toDer } from './der.js';
import { ML_DSA_OID } from './ml-dsa.js';
import { pemArmor, pemDecode } from './pem.js';
import { algorithm, type PrivateKeyMaterial } from './pkcs8.js';
import { encodeSpki, type PublicKeyMaterial } from './spki.js';

/** Options of {@link signCsr}. @public */
export interface SignCsrOptions {
  /** The transit key version's private key (ECDSA P-256/384/521, Ed25519 or RSA). */
  readonly key: PrivateKeyMaterial;
  /** The backend that signs (its `ecdsaSign`, `rsaSignPkcs1` or `ed25519Sign`). */
  readonly backend: AsymmetricBackend;
  /**
   * PEM `CERTIFICATE REQUEST` template (Vault's `csr` field). `undefined` or
   * `''` signs an empty CSR (empty subject, no attributes), as Vault does.
   */
  readonly templatePem?: string | undefined;
}

/** PEM labels accepted for the template (`NEW …` is the old Netscape/Microsoft one). */
const CSR_LABELS = ['CERTIFICATE REQUEST', 'NEW CERTIFICATE REQUEST'] as const;

/** PKCS#9 extensionRequest (RFC 2985 §5.4.2). */
const EXTENSION_REQUEST = '1.2.840.113549.1.9.14';

/** Go `signingParamsForKey`: the ECDSA hash and signature OID per curve. */
const ECDSA_PARAMS: Readonly<Record<EcCurve, { hash: HashName; oid: string }>> = {
  p256: { hash: 'sha256', oid: '1.2.840.10045.4.3.2' }, // ecdsa-with-SHA256
  p384: { hash: 'sha384', oid: '1.2.840.10045.4.3.3' }, // ecdsa-with-SHA384
  p521: { hash: 'sha512', oid: '1.2.840.10045.4.3.4' }, // ecdsa-with-SHA512
};

/** sha256WithRSAEncryption (RFC 8017 A.2.4). */
const SHA256_WITH_RSA = '1.2.840.113549.1.1.11';

/** What a template contributes to the new request. */
interface Template {
  readonly subject: RelativeDistinguishedNames;
  readonly attributes: Attribute[];
}

/**
 * Sign a PKCS#10 CSR with a transit key and return it as PEM (label
 * `CERTIFICATE REQUEST`, trailing `\n`, like Go's `pem.EncodeToMemory`; this
 * is Vault's `data.csr`).
 *
 * The caller (the engine) is responsible for the key-level rules: the key
 * type must support signing, must not be derived, and the version must exist.
 *
 * @example
 * ```ts
 * const ec = await nodeAsymmetric.generateEc('p256');
 * const pem = await signCsr({ key: { type: 'ec', key: ec }, backend: nodeAsymmetric });
 * // "-----BEGIN CERTIFICATE REQUEST-----\nMIG…\n-----END CERTIFICATE REQUEST-----\n"
 * ```
 * @throws TransitError `invalid_request` when the template is not a PEM
 * `CERTIFICATE REQUEST` or its DER does not parse as a CSR.
 * @throws TypeError for an unknown key type.
 * @public
 */
export async function signCsr(options: SignCsrOptions): Promise<string> {
  const { key, backend, templatePem } = options;
  const template: Template =
    templatePem === undefined || templatePem === ''
      ? { subject: emptyName(), attributes: [] }
      : parseCsrTemplate(templatePem);
  const spki = await publicKeySpki(key, backend);
  const csr = new CertificationRequest({
    version: 0,
    subject: template.subject,
    subjectPublicKeyInfo: new PublicKeyInfo({ schema: parseDer(spki, 'public key') }),
    // Always present: RFC 2986 `attributes [0]` is not OPTIONAL (Go writes `A0 00`).
    attributes: template.attributes,
  });
  // `toSchema(true)` re-encodes the CertificationRequestInfo from the fields
  // (pkijs's `encodeTBS`, protected in its typings); its first element is the TBS.
  const tbsSchema = (csr.toSchema(true) as asn1js.Sequence).valueBlock.value[0];
  if (tbsSchema === undefined) throw new Error('pkijs produced no CertificationRequestInfo');
  const tbs = toDer(tbsSchema);
  const { signatureAlgorithm, signature } = await signTbs(key, backend, tbs);
  csr.tbsView = tbs as Uint8Array<ArrayBuffer>;
  csr.signatureAlgorithm = signatureAlgorithm;
  csr.signatureValue = new asn1js.BitString({ valueHex: signature });
  const der = toDer(csr.toSchema(false));
  return `${pemArmor(der, 'CERTIFICATE REQUEST')}\n`;
}

/**
 * An empty `Name` that encodes as an empty SEQUENCE (`30 00`, as Go writes an
 * empty subject). A bare `new RelativeDistinguishedNames()` would encode as
 * `SEQUENCE { SET {} }`, an RDN with no attribute, which X.501 forbids.
 */
function emptyName(): RelativeDistinguishedNames {
  return new RelativeDistinguishedNames({
    valueBeforeDecode: bufferOf(toDer(new asn1js.Sequence())),
  });
}

/**
 * The DER `SubjectPublicKeyInfo` of a private key (what {@link signCsr} puts
 * in the request and what `checkLeafMatches` compares a certificate against).
 * @throws TypeError for an unknown key type.
 * @public
 */
export async function publicKeySpki(
  key: PrivateKeyMaterial,
  backend: AsymmetricBackend,
): Promise<Uint8Array> {
  let material: PublicKeyMaterial;
  switch (key.type) {
    case 'ec':
      material = { type: 'ec', key: { curve: key.key.curve, x: key.key.x, y: key.key.y } };
      break;
    case 'rsa':
      material = { type: 'rsa', key: { n: key.key.n, e: key.key.e } };
      break;
    case 'ed25519':
      material = { type: 'ed25519', key: await backend.ed25519PublicKey(key.key) };
      break;
    case 'ml-dsa':
      material = { type: 'ml-dsa', key: mlDsaPublicKey(key.key) };
      break;
    default:
      throw new TypeError('unsupported key type for a certificate request');
  }
  return encodeSpki(material);
}

/** Sign the TBS bytes with the algorithm Go's `CreateCertificateRequest` would pick. */
async function signTbs(
  key: PrivateKeyMaterial,
  backend: AsymmetricBackend,
  tbs: Uint8Array,
): Promise<{ signatureAlgorithm: AlgorithmIdentifier; signature: Uint8Array }> {
  switch (key.type) {
    case 'ec': {
      const params = ECDSA_PARAMS[key.key.curve];
      if (params === undefined) throw new TypeError('unsupported EC curve');
      return {
        signatureAlgorithm: algorithm(params.oid),
        signature: await backend.ecdsaSign(key.key, params.hash, { message: tbs }, 'der'),
      };
    }
    case 'rsa':
      return {
        signatureAlgorithm: algorithm(SHA256_WITH_RSA, new asn1js.Null()),
        signature: await backend.rsaSignPkcs1(key.key, 'sha256', { message: tbs }),
      };
    case 'ed25519':
      return {
        signatureAlgorithm: algorithm(OID.ed25519),
        signature: await backend.ed25519Sign(key.key, tbs),
      };
    case 'ml-dsa':
      // RFC 9881 §3: pure ML-DSA, empty context; hedged as every transit signature.
      return {
        signatureAlgorithm: algorithm(ML_DSA_OID[key.key.level]),
        signature: mlDsaSign(key.key, tbs),
      };
    default:
      throw new TypeError('unsupported key type for a certificate request');
  }
}

/**
 * Parse a PEM CSR template: the first PEM block must be a certificate
 * request whose DER parses as a PKCS#10 `CertificationRequest` and whose
 * extension request, if any, is a well-formed `Extensions` sequence.
 * @throws TransitError `invalid_request`.
 */
function parseCsrTemplate(pem: string): Template {
  if (typeof pem !== 'string') throw invalidRequest('csr template must be a PEM string');
  if (pem.trim() === '') throw invalidRequest('empty csr template');
  let der: Uint8Array;
  try {
    der = pemDecode(pem, CSR_LABELS).der;
  } catch (e) {
    if (!isTransitError(e)) throw e;
    throw invalidRequest(`could not decode PEM certificate request: ${e.message}`);
  }
  const what = 'could not parse certificate request';
  const node = parseDer(der, what);
  let csr: CertificationRequest;
  try {
    csr = new CertificationRequest({ schema: node });
  } catch (e) {
    throw invalidRequest(`${what}: unexpected ASN.1 structure`, e);
  }
  const attributes = csr.attributes ?? [];
  for (const attribute of attributes) {
    if (attribute.type !== EXTENSION_REQUEST) continue;
    // pkijs leaves `values` undefined for an empty SET.
    if (!attribute.values?.length) throw invalidRequest(`${what}: empty extension request`);
    for (const value of attribute.values)
      matchSchema(value, Extensions.schema(), `${what}: extension request`);
  }
  return { subject: csr.subject, attributes };
}
