/**
 * The portable `noble` {@link CryptoBackend}: pure JS over `@noble/ciphers`
 * and `@noble/hashes`, runs on any runtime with `crypto.getRandomValues`; the
 * asymmetric half is `nobleAsymmetric` (`./asymmetric.ts`: `@noble/curves`,
 * WebCrypto for RSA), spread in behind dynamic imports (`./asymmetric-lazy.ts`),
 * so it loads on the first key-pair operation.
 *
 * No `node:` import may appear in this folder (the browser bundle check and
 * Biome's `noNodejsModules` enforce it).
 *
 * @module
 */
import { randomBytes as nobleRandomBytes } from '@noble/hashes/utils.js';
import { constantTimeEqual } from '../../util/constant-time.js';
import type { CryptoBackend } from '../backend.js';
import { nobleAeadOpen, nobleAeadSeal, nobleAeadSealInto } from './aead.js';
import { lazyNobleAsymmetric } from './asymmetric-lazy.js';
import { nobleDigest, nobleHkdf, nobleHmac } from './hash.js';
import { assertBytes, checkCount } from './params.js';

/** WebCrypto's `getRandomValues` quota per call (noble enforces it). */
const RANDOM_CHUNK = 65_536;

/** `n` CSPRNG bytes; chunked because `getRandomValues` caps one call at 64 KiB. */
function randomBytes(n: number): Uint8Array {
  checkCount(n, 'randomBytes: n');
  if (n <= RANDOM_CHUNK) return nobleRandomBytes(n);
  const out = new Uint8Array(n);
  for (let off = 0; off < n; off += RANDOM_CHUNK) {
    out.set(nobleRandomBytes(Math.min(RANDOM_CHUNK, n - off)), off);
  }
  return out;
}

/** Constant-time for equal lengths (XOR accumulation); false for different lengths. */
function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  assertBytes(a, 'timingSafeEqual: a');
  assertBytes(b, 'timingSafeEqual: b');
  return constantTimeEqual(a, b);
}

/**
 * The pure-JS crypto backend (`@noble/*`); the default off Node.
 *
 * @example
 * ```ts
 * import { nobleBackend } from './crypto/noble/index.js';
 * const key = nobleBackend.randomBytes(32);
 * const nonce = nobleBackend.randomBytes(12);
 * const sealed = nobleBackend.aeadSeal('aes-gcm', key, nonce, new Uint8Array([1, 2, 3]));
 * nobleBackend.aeadOpen('aes-gcm', key, nonce, sealed); // Uint8Array [1, 2, 3]
 * ```
 * @public
 */
export const nobleBackend: CryptoBackend = /* @__PURE__ */ Object.freeze({
  ...lazyNobleAsymmetric,
  name: 'noble',
  aeadSeal: nobleAeadSeal,
  aeadSealInto: nobleAeadSealInto,
  aeadOpen: nobleAeadOpen,
  digest: nobleDigest,
  hmac: nobleHmac,
  hkdf: nobleHkdf,
  randomBytes,
  timingSafeEqual,
});

/** The backend `#default-backend` resolves to outside Node. @internal */
export { nobleBackend as defaultBackend };
