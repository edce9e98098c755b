/**
 * Entry point of the key codecs, through `pkijs`/`asn1js` (no hand-written
 * DER): PKCS#8 (`./pkcs8.ts`), SPKI (`./spki.ts`), PKCS#1 (`./rsa.ts`),
 * SEC 1 (`./ec.ts`), DigestInfo (`./digest-info.ts`) and PEM (`./pem.ts`),
 * plus PEM-level parsing by label.
 *
 * Every encoding matches Go's `crypto/x509` (hence Vault's exports) and
 * OpenSSL byte for byte; every parse failure is an `invalid_request`
 * `TransitError` that names the structure, never its bytes.
 *
 * @module
 */
import { decodeSec1PrivateKey } from './ec.js';
import { pemDecode } from './pem.js';
import { decodePkcs8PrivateKey, type PrivateKeyMaterial } from './pkcs8.js';
import { decodePkcs1PrivateKey } from './rsa.js';
import { decodeSpki, type PublicKeyMaterial } from './spki.js';

// The codecs, documented where they are defined.
export { encodeDigestInfo } from './digest-info.js';
export type { Sec1EncodeOptions } from './ec.js';
export { decodeSec1PrivateKey, encodeSec1PrivateKey } from './ec.js';
export type { PemLabel } from './pem.js';
export { pemDecode, pemEncode } from './pem.js';
export type { PrivateKeyMaterial } from './pkcs8.js';
export { decodePkcs8PrivateKey, encodePkcs8PrivateKey } from './pkcs8.js';
export {
  completeRsaPrivateKey,
  decodePkcs1PrivateKey,
  decodePkcs1PublicKey,
  encodePkcs1PrivateKey,
  encodePkcs1PublicKey,
} from './rsa.js';
export type { PublicKeyMaterial } from './spki.js';
export { decodeSpki, encodeSpki } from './spki.js';

/**
 * Parse a private key PEM by its label: `RSA PRIVATE KEY` (PKCS#1),
 * `EC PRIVATE KEY` (SEC 1) or `PRIVATE KEY` (PKCS#8).
 * @throws TransitError `invalid_request`.
 * @public
 */
export function decodePrivateKeyPem(pem: string): PrivateKeyMaterial {
  const { label, der } = pemDecode(pem, [
    'PRIVATE KEY',
    'RSA PRIVATE KEY',
    'EC PRIVATE KEY',
  ] as const);
  if (label === 'RSA PRIVATE KEY') return { type: 'rsa', key: decodePkcs1PrivateKey(der) };
  if (label === 'EC PRIVATE KEY') return { type: 'ec', key: decodeSec1PrivateKey(der) };
  return decodePkcs8PrivateKey(der);
}

/**
 * Parse a `PUBLIC KEY` PEM (SPKI).
 * @throws TransitError `invalid_request`.
 * @public
 */
export function decodePublicKeyPem(pem: string): PublicKeyMaterial {
  return decodeSpki(pemDecode(pem, ['PUBLIC KEY'] as const).der);
}
