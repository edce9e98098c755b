/**
 * The portable {@link AsymmetricBackend}: `@noble/curves` for ECDSA and
 * Ed25519; WebCrypto for RSA where it can express the operation, and the
 * shared RSA encodings on blinded BigInt RSA where it cannot (see `./rsa.ts`
 * for the table). RSA key generation needs WebCrypto (`crypto.subtle`).
 *
 * No `node:` import may appear in this folder.
 *
 * @module
 */
import type { AsymmetricBackend } from '../asymmetric-backend.js';
import { nobleEcdsaSign, nobleEcdsaVerify, nobleGenerateEc } from './ec.js';
import {
  nobleEd25519PublicKey,
  nobleEd25519Sign,
  nobleEd25519Verify,
  nobleGenerateEd25519,
} from './ed25519.js';
import {
  nobleRsaOaepDecrypt,
  nobleRsaOaepEncrypt,
  nobleRsaSignPkcs1,
  nobleRsaSignPss,
  nobleRsaVerifyPkcs1,
  nobleRsaVerifyPss,
} from './rsa.js';
import { webGenerateRsa } from './rsa-webcrypto.js';

/**
 * The pure-JS asymmetric backend (+ WebCrypto for RSA).
 *
 * @example
 * ```ts
 * import { nobleAsymmetric as b } from './noble/asymmetric.js';
 * const key = await b.generateEd25519();
 * const sig = await b.ed25519Sign(key, new Uint8Array([1, 2, 3]));
 * await b.ed25519Verify(await b.ed25519PublicKey(key), new Uint8Array([1, 2, 3]), sig); // true
 * ```
 * @public
 */
export const nobleAsymmetric: AsymmetricBackend = /* @__PURE__ */ Object.freeze({
  name: 'noble',
  generateEc: nobleGenerateEc,
  generateEd25519: nobleGenerateEd25519,
  generateRsa: webGenerateRsa,
  ed25519PublicKey: nobleEd25519PublicKey,
  ecdsaSign: nobleEcdsaSign,
  ecdsaVerify: nobleEcdsaVerify,
  ed25519Sign: nobleEd25519Sign,
  ed25519Verify: nobleEd25519Verify,
  rsaSignPss: nobleRsaSignPss,
  rsaVerifyPss: nobleRsaVerifyPss,
  rsaSignPkcs1: nobleRsaSignPkcs1,
  rsaVerifyPkcs1: nobleRsaVerifyPkcs1,
  rsaOaepEncrypt: nobleRsaOaepEncrypt,
  rsaOaepDecrypt: nobleRsaOaepDecrypt,
});
