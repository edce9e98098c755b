/**
 * The `AsymmetricBackend` contract: ECDSA (P-256/384/521), Ed25519 and RSA
 * (PSS, PKCS#1 v1.5 signatures, OAEP), plus the neutral key types the engine
 * stores. It is meant to be merged into `CryptoBackend`; it is async because
 * WebCrypto is.
 *
 * Two implementations with identical observable behaviour:
 * - `node` (`./node/asymmetric.ts`): node:crypto (OpenSSL);
 * - `noble` (`./noble/asymmetric.ts`): `@noble/curves` for EC and Ed25519,
 *   WebCrypto for RSA where it can express the operation, and the blinded
 *   BigInt path (`./rsa-raw.ts`) where it cannot.
 *
 * Design decisions:
 * - **Keys are plain numbers.** Vault's storage keeps exactly these values
 *   (`ec_x`/`ec_y`/`ec_d`, Go's `rsa.PrivateKey` N/E/D/Primes/Dp/Dq/Qinv, the
 *   Ed25519 seed), so a policy round-trips losslessly. Backends derive and
 *   cache their native handles (KeyObject, CryptoKey) keyed by the key object
 *   itself: treat key objects as immutable and reuse them.
 * - **What gets signed is explicit: `{ message }` or `{ digest }`.** Vault
 *   hashes the input unless `prehashed=true`. Passing the message lets a
 *   backend use its one-pass native path (node `crypto.sign`, WebCrypto);
 *   passing a digest is Vault's `prehashed=true` (and `hash_algorithm=none`),
 *   which OpenSSL/WebCrypto cannot always express (see each method). Both
 *   give the same signature bytes for the same key; the engine should pass
 *   `{ message }` whenever the caller did not prehash.
 * - **Errors.** Wrong types → `TypeError`; wrong sizes or out-of-range
 *   parameters (salt length, plaintext too long, digest length ≠ hash size,
 *   `'none'` with a message) → `RangeError`; the engine maps both to
 *   `invalid_request`. A signature that does not verify, for any reason
 *   (garbage, wrong length, wrong key), gives `false`, never a throw.
 *   Decryption failure throws {@link RsaDecryptionError}, one message for
 *   every cause (no padding oracle). No message contains key material.
 *
 * @module
 */

import { brandClass } from '../util/brand.js';
import type { HashName } from './backend.js';

/** NIST curves supported for ECDSA (Vault `ecdsa-p256/p384/p521`). @public */
export type EcCurve = 'p256' | 'p384' | 'p521';

/**
 * An EC public point, affine coordinates. Invariant: on `curve`, not infinity.
 * @public
 */
export interface EcPublicKey {
  /** The curve. */
  readonly curve: EcCurve;
  /** Affine x, `0 ≤ x < p`. */
  readonly x: bigint;
  /** Affine y, `0 ≤ y < p`. */
  readonly y: bigint;
}

/**
 * An EC private key with its public point (Vault `ec_d`, `ec_x`, `ec_y`).
 * Invariant: `1 ≤ d < n` and `(x, y) = d·G`.
 * @public
 */
export interface EcPrivateKey extends EcPublicKey {
  /** The private scalar. */
  readonly d: bigint;
}

/**
 * An Ed25519 private key: the 32-byte RFC 8032 seed (Vault stores `seed ‖ pub`;
 * the public half is derivable with {@link AsymmetricBackend.ed25519PublicKey}).
 * @public
 */
export interface Ed25519PrivateKey {
  /** 32-byte seed. */
  readonly seed: Uint8Array;
}

/** An RSA public key (Go `rsa.PublicKey` `{N, E}`). @public */
export interface RsaPublicKey {
  /** Modulus. */
  readonly n: bigint;
  /** Public exponent. */
  readonly e: bigint;
}

/**
 * A two-prime RSA private key with its CRT values (Go `rsa.PrivateKey`:
 * `D`, `Primes[0..1]`, `Precomputed.Dp/Dq/Qinv`).
 * @public
 */
export interface RsaPrivateKey extends RsaPublicKey {
  /** Private exponent. */
  readonly d: bigint;
  /** First prime. */
  readonly p: bigint;
  /** Second prime. */
  readonly q: bigint;
  /** `d mod (p−1)`. */
  readonly dp: bigint;
  /** `d mod (q−1)`. */
  readonly dq: bigint;
  /** `q⁻¹ mod p`. */
  readonly qi: bigint;
}

/** RSA modulus sizes transit generates. @public */
export type RsaModulusBits = 2048 | 3072 | 4096;

/**
 * ECDSA signature encodings: `der` = `SEQUENCE { r INTEGER, s INTEGER }`
 * (Vault `marshaling_algorithm=asn1`); `p1363` = `r ‖ s`, each left-padded to
 * ⌈bits/8⌉ bytes, i.e. 32/48/66 (Vault `jws`).
 * @public
 */
export type EcdsaSignatureFormat = 'der' | 'p1363';

/**
 * The data a signature covers: a message the backend hashes with the given
 * hash (the fast native path), or a digest computed by the caller (Vault
 * `prehashed=true`; with hash `'none'`, the raw bytes to sign).
 * @public
 */
export type SignedData =
  | { readonly message: Uint8Array; readonly digest?: undefined }
  | { readonly digest: Uint8Array; readonly message?: undefined };

/** A signature hash, or `'none'` (only with `{ digest }`: sign the raw input). @public */
export type SignatureHash = HashName | 'none';

/** Hashes accepted for RSA-OAEP (MGF1 uses the same hash; the label is empty). @public */
export type OaepHash = 'sha1' | 'sha224' | 'sha256' | 'sha384' | 'sha512';

/**
 * Thrown by {@link AsymmetricBackend.rsaOaepDecrypt} for any ciphertext that
 * does not decrypt (wrong length, out of range, bad padding, wrong key).
 * Carries no detail on purpose: distinguishable failures are a padding oracle.
 * @public
 */
export class RsaDecryptionError extends Error {
  static {
    // Recognised from the other build (ESM/CJS) or copy of the package too.
    brandClass(RsaDecryptionError, 'RsaDecryptionError');
  }

  constructor() {
    super('failed to RSA decrypt the ciphertext');
    this.name = 'RsaDecryptionError';
  }
}

/**
 * Asymmetric primitives. All methods are async; none keeps state other than
 * per-key caches of native handles.
 *
 * @example
 * ```ts
 * import { nodeAsymmetric as b } from './node/asymmetric.js';
 * const key = await b.generateEc('p256');
 * const msg = new TextEncoder().encode('the quick brown fox');
 * const sig = await b.ecdsaSign(key, 'sha256', { message: msg }, 'der');
 * await b.ecdsaVerify(key, 'sha256', { message: msg }, sig, 'der'); // true
 * ```
 * @public
 */
export interface AsymmetricBackend {
  /** `'node'` or `'noble'`. */
  readonly name: string;

  /** A new EC key pair from the platform CSPRNG. */
  generateEc(curve: EcCurve): Promise<EcPrivateKey>;
  /** A new Ed25519 seed from the platform CSPRNG. */
  generateEd25519(): Promise<Ed25519PrivateKey>;
  /**
   * A new RSA key, e = 65537. Never blocks the event loop: prime search runs
   * off-thread (node `generateKeyPair`, WebCrypto `generateKey`).
   * @throws RangeError for a size other than 2048/3072/4096.
   */
  generateRsa(bits: RsaModulusBits): Promise<RsaPrivateKey>;
  /** The 32-byte Ed25519 public key of a seed. */
  ed25519PublicKey(key: Ed25519PrivateKey): Promise<Uint8Array>;

  /**
   * ECDSA, randomized (hedged) like Go's `ecdsa.Sign`; high-S is not
   * normalised (Go does not). With `{ digest }` the hash is ignored and the
   * digest, of any length, is truncated to the order's bit length (FIPS 186).
   * @throws RangeError for `'none'` with `{ message }`.
   */
  ecdsaSign(
    key: EcPrivateKey,
    hash: SignatureHash,
    data: SignedData,
    format: EcdsaSignatureFormat,
  ): Promise<Uint8Array>;
  /** ECDSA verification; accepts high-S signatures (as Go and OpenSSL do). DER must be strict DER. */
  ecdsaVerify(
    key: EcPublicKey,
    hash: SignatureHash,
    data: SignedData,
    signature: Uint8Array,
    format: EcdsaSignatureFormat,
  ): Promise<boolean>;

  /** Pure Ed25519 (RFC 8032) over the raw message; deterministic. */
  ed25519Sign(key: Ed25519PrivateKey, message: Uint8Array): Promise<Uint8Array>;
  /** Ed25519 verification (RFC 8032: canonical S and encodings). */
  ed25519Verify(
    publicKey: Uint8Array,
    message: Uint8Array,
    signature: Uint8Array,
  ): Promise<boolean>;

  /**
   * RSASSA-PSS, MGF1 with the same hash. `saltLength` is a byte count in
   * `0 ‖ … ‖ max` where max = ⌈(bits−1)/8⌉ − 2 − hashLen (Vault's `auto` on
   * sign = max, `hash` = hashLen; note Vault's "0" means auto, not 0).
   * @throws RangeError when the salt length is out of range or a digest has
   * the wrong length.
   */
  rsaSignPss(
    key: RsaPrivateKey,
    hash: HashName,
    data: SignedData,
    saltLength: number,
  ): Promise<Uint8Array>;
  /** RSASSA-PSS verification with an exact salt length, or `'auto'` (detect, as Go and OpenSSL). */
  rsaVerifyPss(
    key: RsaPublicKey,
    hash: HashName,
    data: SignedData,
    signature: Uint8Array,
    saltLength: number | 'auto',
  ): Promise<boolean>;
  /**
   * RSASSA-PKCS1-v1_5 with a DER DigestInfo; with `'none'` the raw digest bytes
   * are padded without DigestInfo (Go `SignPKCS1v15(…, 0, …)`). Deterministic.
   * @throws RangeError for `'none'` with `{ message }`, a digest of the wrong
   * length, or input longer than the modulus allows (k − 11).
   */
  rsaSignPkcs1(key: RsaPrivateKey, hash: SignatureHash, data: SignedData): Promise<Uint8Array>;
  /** RSASSA-PKCS1-v1_5 verification by encode-and-compare (strict, like Go). */
  rsaVerifyPkcs1(
    key: RsaPublicKey,
    hash: SignatureHash,
    data: SignedData,
    signature: Uint8Array,
  ): Promise<boolean>;

  /**
   * RSAES-OAEP, MGF1 with the same hash, empty label.
   * @throws RangeError when the plaintext is longer than k − 2·hashLen − 2.
   */
  rsaOaepEncrypt(key: RsaPublicKey, hash: OaepHash, plaintext: Uint8Array): Promise<Uint8Array>;
  /**
   * RSAES-OAEP decryption.
   * @throws {@link RsaDecryptionError} for any ciphertext that does not decrypt.
   */
  rsaOaepDecrypt(key: RsaPrivateKey, hash: OaepHash, ciphertext: Uint8Array): Promise<Uint8Array>;
}
