/**
 * The node:crypto {@link AsymmetricBackend}: OpenSSL for every operation it
 * can express; for a caller's digest (Vault `prehashed=true`, `none`) ECDSA
 * falls back to `@noble/curves` and RSA to the shared encodings on OpenSSL's
 * raw RSA (see `./ec.ts` and `./rsa.ts`).
 *
 * @module
 */
import type { AsymmetricBackend } from '../asymmetric-backend.js';
import {
  nodeEcdsaSign,
  nodeEcdsaVerify,
  nodeEd25519PublicKey,
  nodeEd25519Sign,
  nodeEd25519Verify,
  nodeGenerateEc,
  nodeGenerateEd25519,
} from './ec.js';
import {
  nodeGenerateRsa,
  nodeRsaOaepDecrypt,
  nodeRsaOaepEncrypt,
  nodeRsaSignPkcs1,
  nodeRsaSignPss,
  nodeRsaVerifyPkcs1,
  nodeRsaVerifyPss,
} from './rsa.js';

/**
 * The node:crypto asymmetric backend; the default on Node.
 *
 * @example
 * ```ts
 * import { nodeAsymmetric as b } from './node/asymmetric.js';
 * const key = await b.generateRsa(2048);
 * const msg = new TextEncoder().encode('hello');
 * const sig = await b.rsaSignPss(key, 'sha256', { message: msg }, 32);
 * await b.rsaVerifyPss(key, 'sha256', { message: msg }, sig, 'auto'); // true
 * ```
 * @public
 */
export const nodeAsymmetric: AsymmetricBackend = /* @__PURE__ */ Object.freeze({
  name: 'node',
  generateEc: nodeGenerateEc,
  generateEd25519: nodeGenerateEd25519,
  generateRsa: nodeGenerateRsa,
  ed25519PublicKey: nodeEd25519PublicKey,
  ecdsaSign: nodeEcdsaSign,
  ecdsaVerify: nodeEcdsaVerify,
  ed25519Sign: nodeEd25519Sign,
  ed25519Verify: nodeEd25519Verify,
  rsaSignPss: nodeRsaSignPss,
  rsaVerifyPss: nodeRsaVerifyPss,
  rsaSignPkcs1: nodeRsaSignPkcs1,
  rsaVerifyPkcs1: nodeRsaVerifyPkcs1,
  rsaOaepEncrypt: nodeRsaOaepEncrypt,
  rsaOaepDecrypt: nodeRsaOaepDecrypt,
});
