/**
 * The `CryptoBackend` contract: the hot primitives, narrow on purpose
 * (jose v4 `interfaces.d.ts`). Family modules (`aead.ts`, `mac.ts`, …) hold
 * Vault's framing and algorithm tables and call a backend; the backends only
 * compute.
 *
 * Two implementations with identical observable behaviour:
 * - `noble` (`./noble/`): pure JS over `@noble/*`, runs anywhere;
 * - `node` (`./node/`): `node:crypto` (OpenSSL, AES-NI), the default on Node.
 *
 * Both must produce byte-identical output for every deterministic operation and
 * accept each other's output. Every test of a primitive runs on both.
 *
 * @module
 */

import { brandClass } from '../util/brand.js';
import type { AsymmetricBackend } from './asymmetric-backend.js';

/**
 * AEAD ciphers. AES-GCM takes a 16- or 32-byte key (AES-128/256); the nonce is
 * 12 bytes except XChaCha20 (24). The tag is always 16 bytes, appended.
 * @public
 */
export type AeadAlgorithm = 'aes-gcm' | 'chacha20-poly1305' | 'xchacha20-poly1305';

/**
 * Hash functions, named as in node:crypto / OpenSSL.
 * @public
 */
export type HashName =
  | 'sha1'
  | 'sha224'
  | 'sha256'
  | 'sha384'
  | 'sha512'
  | 'sha3-224'
  | 'sha3-256'
  | 'sha3-384'
  | 'sha3-512';

/**
 * The text forms of {@link CryptoBackend.digestText},
 * {@link CryptoBackend.hmacText}, {@link CryptoBackend.aeadOpenText} and
 * {@link CryptoBackend.aeadSealText}:
 * lower-case hex, or standard base64 with padding.
 * @public
 */
export type TextEncodingName = 'hex' | 'base64';

/**
 * A crypto implementation: the symmetric primitives, synchronous for the hot
 * path (both node:crypto and noble are synchronous there), plus the
 * asynchronous {@link AsymmetricBackend} half (ECDSA, Ed25519, RSA), so that
 * one object selects both halves (`new Transit({ crypto })`).
 *
 * Errors: `aeadOpen` throws {@link AeadAuthError} on any authentication
 * failure; other methods throw native `TypeError`/`RangeError` for bad sizes,
 * which the engine maps to `invalid_request`.
 * @public
 */
export interface CryptoBackend extends AsymmetricBackend {
  /** `'node'` or `'noble'` (or a custom name). */
  readonly name: string;
  /** Encrypt: returns `ciphertext ‖ tag(16)`. */
  aeadSeal(
    alg: AeadAlgorithm,
    key: Uint8Array,
    nonce: Uint8Array,
    plaintext: Uint8Array,
    aad?: Uint8Array,
  ): Uint8Array;
  /**
   * Optional: as {@link CryptoBackend.aeadSeal} without associated data,
   * writing `ciphertext ‖ tag` into `out` at `offset` (room for
   * `plaintext.length + 16` bytes); returns the bytes written. Streams seal
   * their chunks straight into one output batch with it; a backend without it
   * costs them one copy per chunk.
   */
  aeadSealInto?(
    alg: AeadAlgorithm,
    key: Uint8Array,
    nonce: Uint8Array,
    plaintext: Uint8Array,
    out: Uint8Array,
    offset: number,
  ): number;
  /**
   * Optional: as {@link CryptoBackend.aeadSeal} without associated data, but
   * `[ciphertext, tag]` as two buffers that the backend made for this call
   * (nothing else holds them). A stream whose reader takes many small pieces
   * cheaply (a Node stream) passes them on as they are, with no copy at all;
   * without it, such a stream passes on `aeadSeal`'s one buffer.
   */
  aeadSealParts?(
    alg: AeadAlgorithm,
    key: Uint8Array,
    nonce: Uint8Array,
    plaintext: Uint8Array,
  ): [ciphertext: Uint8Array, tag: Uint8Array];
  /** Decrypt `ciphertext ‖ tag`; throws {@link AeadAuthError} when authentication fails. */
  aeadOpen(
    alg: AeadAlgorithm,
    key: Uint8Array,
    nonce: Uint8Array,
    sealed: Uint8Array,
    aad?: Uint8Array,
  ): Uint8Array;
  /**
   * Optional: {@link CryptoBackend.aeadOpen} with the plaintext returned as
   * text, as transit's decrypt answers it. The node backend encodes
   * OpenSSL's output buffer directly and then wipes it; without it, callers
   * encode `aeadOpen`'s bytes. Same errors as `aeadOpen`; `RangeError` for
   * another encoding.
   */
  aeadOpenText?(
    alg: AeadAlgorithm,
    key: Uint8Array,
    nonce: Uint8Array,
    sealed: Uint8Array,
    aad: Uint8Array | undefined,
    encoding: TextEncodingName,
  ): string;
  /**
   * Optional: `nonce ‖` {@link CryptoBackend.aeadSeal}'s `ciphertext ‖ tag`
   * as text, the payload of a transit ciphertext (`vault:v1:<base64>`). The
   * node backend joins OpenSSL's output once and encodes it, with no typed
   * array of its own; without it, callers encode `aeadSeal`'s bytes. Same
   * errors as `aeadSeal`; `RangeError` for another encoding.
   */
  aeadSealText?(
    alg: AeadAlgorithm,
    key: Uint8Array,
    nonce: Uint8Array,
    plaintext: Uint8Array,
    aad: Uint8Array | undefined,
    encoding: TextEncodingName,
  ): string;
  /** Message digest. */
  digest(hash: HashName, data: Uint8Array): Uint8Array;
  /**
   * Optional: {@link CryptoBackend.digest} of `parts` one after another (a
   * string part stands for its UTF-8 bytes), as text. For values that leave
   * as text anyway (token ids): the node backend has OpenSSL's call encode
   * them, with no byte buffer in between; without it, callers encode
   * `digest`'s bytes. Same errors as `digest`; `RangeError` for another encoding.
   */
  digestText?(
    hash: HashName,
    parts: readonly (Uint8Array | string)[],
    encoding: TextEncodingName,
  ): string;
  /** HMAC. */
  hmac(hash: HashName, key: Uint8Array, data: Uint8Array): Uint8Array;
  /**
   * Optional: {@link CryptoBackend.hmac} as text, as
   * {@link CryptoBackend.digestText} is `digest` (Vault's `vault:v1:` HMACs,
   * audit hashes).
   */
  hmacText?(
    hash: HashName,
    key: Uint8Array,
    parts: readonly (Uint8Array | string)[],
    encoding: TextEncodingName,
  ): string;
  /** HKDF (RFC 5869) extract-and-expand; an empty `salt` means hashLen zero bytes. */
  hkdf(
    hash: HashName,
    ikm: Uint8Array,
    salt: Uint8Array,
    info: Uint8Array,
    length: number,
  ): Uint8Array;
  /** `n` bytes from the platform CSPRNG. */
  randomBytes(n: number): Uint8Array;
  /** Constant-time equality (false for different lengths). */
  timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean;
}

/**
 * Thrown by {@link CryptoBackend.aeadOpen} when the tag does not verify.
 * Carries no detail on purpose.
 * @public
 */
export class AeadAuthError extends Error {
  static {
    // Recognised from the other build (ESM/CJS) or copy of the package too.
    brandClass(AeadAuthError, 'AeadAuthError');
  }

  constructor() {
    super('message authentication failed');
    this.name = 'AeadAuthError';
  }
}
