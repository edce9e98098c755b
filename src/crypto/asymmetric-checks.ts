/**
 * Argument checks and size rules shared by both asymmetric backends, so that
 * `node` and `noble` reject exactly the same inputs with the same native error
 * class and message (the contract in `./asymmetric-backend.ts`). Messages name
 * the parameter and its length or value range, never key or input bytes.
 *
 * Also the digest of the raw paths, through `noble/hash.ts`'s table.
 *
 * Runtime-neutral: no `node:` import.
 *
 * @module
 */
import { bytesToNumberBE, numberToBytesBE } from '@noble/curves/utils.js';
import type {
  EcCurve,
  EcPublicKey,
  Ed25519PrivateKey,
  OaepHash,
  RsaModulusBits,
  SignatureHash,
  SignedData,
} from './asymmetric-backend.js';
import type { HashName } from './backend.js';
import { NOBLE_HASHES } from './noble/hash.js';
import { HASH_OUTPUT_LENGTH } from './noble/params.js';

/** Output size in bytes of each {@link HashName} (one table, in `noble/params.ts`). @internal */
export const HASH_SIZE: Readonly<Record<HashName, number>> = HASH_OUTPUT_LENGTH;

/** Digest of `data` with `@noble/hashes` (raw paths, and ECDSA messages in noble). @internal */
export function hashOf(hash: HashName, data: Uint8Array): Uint8Array {
  return NOBLE_HASHES[hash](data);
}

/** Field/order size in bytes of each curve: ⌈bits/8⌉ (P-521 → 66). @internal */
export const CURVE_BYTES: Readonly<Record<EcCurve, number>> = { p256: 32, p384: 48, p521: 66 };

const OAEP_HASHES: ReadonlySet<string> = new Set<OaepHash>([
  'sha1',
  'sha224',
  'sha256',
  'sha384',
  'sha512',
]);
const RSA_BITS: ReadonlySet<number> = new Set<RsaModulusBits>([2048, 3072, 4096]);

/** @throws TypeError unless `v` is a Uint8Array. @internal */
export function assertBytes(v: unknown, name: string): asserts v is Uint8Array {
  if (!(v instanceof Uint8Array))
    throw new TypeError(`"${name}" expected Uint8Array, got ${typeof v}`);
}

/** @throws RangeError for an unknown curve. @internal */
export function checkCurve(curve: unknown): asserts curve is EcCurve {
  if (typeof curve !== 'string' || !Object.hasOwn(CURVE_BYTES, curve)) {
    throw new RangeError(`unsupported curve: expected p256, p384 or p521`);
  }
}

/** @throws RangeError for an unknown hash (`'none'` allowed when `allowNone`). @internal */
export function checkHash(hash: unknown, allowNone: boolean): asserts hash is SignatureHash {
  if (allowNone && hash === 'none') return;
  if (typeof hash !== 'string' || !Object.hasOwn(HASH_SIZE, hash)) {
    throw new RangeError(`unsupported hash algorithm`);
  }
}

/** @throws RangeError unless `hash` is one of the OAEP hashes (SHA-1/SHA-2). @internal */
export function checkOaepHash(hash: unknown): asserts hash is OaepHash {
  if (typeof hash !== 'string' || !OAEP_HASHES.has(hash)) {
    throw new RangeError('unsupported OAEP hash: expected sha1, sha224, sha256, sha384 or sha512');
  }
}

/** @throws RangeError unless `bits` is 2048, 3072 or 4096. @internal */
export function checkRsaBits(bits: unknown): asserts bits is RsaModulusBits {
  if (typeof bits !== 'number' || !RSA_BITS.has(bits)) {
    throw new RangeError('unsupported RSA modulus size: expected 2048, 3072 or 4096');
  }
}

/** {@link SignedData}, validated: which variant, and its bytes. @internal */
export type ResolvedData =
  | { readonly kind: 'message'; readonly bytes: Uint8Array }
  | { readonly kind: 'digest'; readonly bytes: Uint8Array };

/**
 * Validates `hash` and `data` together: exactly one of `message`/`digest`;
 * `'none'` only with a digest; with `digestMustMatch`, a digest must be as long
 * as the hash output (PSS, PKCS#1 with DigestInfo).
 * @throws TypeError / RangeError as the contract says.
 * @internal
 */
export function resolveData(
  hash: SignatureHash,
  data: SignedData,
  allowNone: boolean,
  digestMustMatch: boolean,
): ResolvedData {
  checkHash(hash, allowNone);
  if (typeof data !== 'object' || data === null)
    throw new TypeError('"data" expected { message } or { digest }');
  const { message, digest } = data;
  if ((message === undefined) === (digest === undefined)) {
    throw new TypeError('"data" expected exactly one of message or digest');
  }
  if (message !== undefined) {
    assertBytes(message, 'message');
    if (hash === 'none') throw new RangeError('hash "none" requires a digest (prehashed input)');
    return { kind: 'message', bytes: message };
  }
  assertBytes(digest, 'digest');
  if (digestMustMatch && hash !== 'none' && digest.length !== HASH_SIZE[hash]) {
    throw new RangeError(
      `"digest" expected ${HASH_SIZE[hash]} bytes for ${hash}, got length=${digest.length}`,
    );
  }
  return { kind: 'digest', bytes: digest };
}

/** Bit length of a positive bigint. @internal */
export function bitLength(n: bigint): number {
  if (n <= 0n) return 0;
  // Hex, not binary: a quarter of the string (10 % of an RSA verify in the profile).
  const hex = n.toString(16);
  return (hex.length - 1) * 4 + 32 - Math.clz32(Number.parseInt(hex.charAt(0), 16));
}

/** Modulus length in bytes (`k` in RFC 8017). @internal */
export function modulusBytes(n: bigint): number {
  return Math.ceil(bitLength(n) / 8);
}

/**
 * The largest RSA-PSS salt: ⌈(modBits−1)/8⌉ − 2 − hashLen (RFC 8017 §9.1.1,
 * Go's `PSSSaltLengthAuto` on sign, Vault's upper bound).
 * @public
 */
export function pssMaxSaltLength(n: bigint, hash: HashName): number {
  return Math.ceil((bitLength(n) - 1) / 8) - 2 - HASH_SIZE[hash];
}

/** @throws RangeError unless `0 ≤ salt ≤ max`. @internal */
export function checkSignSalt(n: bigint, hash: HashName, salt: unknown): asserts salt is number {
  const max = pssMaxSaltLength(n, hash);
  if (typeof salt !== 'number' || !Number.isSafeInteger(salt) || salt < 0 || salt > max) {
    throw new RangeError(`PSS salt length must be an integer in 0..${max}`);
  }
}

/**
 * Verify-side salt: `'auto'` or a non-negative integer. Returns false when the
 * salt cannot fit the key (such a signature cannot be valid, as in Go).
 * @throws RangeError for a negative or non-integer salt length.
 * @internal
 */
export function verifySaltFits(n: bigint, hash: HashName, salt: unknown): boolean {
  if (salt === 'auto') return true;
  if (typeof salt !== 'number' || !Number.isSafeInteger(salt) || salt < 0) {
    throw new RangeError('PSS salt length must be "auto" or a non-negative integer');
  }
  return salt <= pssMaxSaltLength(n, hash);
}

/** @throws RangeError when `plaintext` exceeds k − 2·hLen − 2 bytes. @internal */
export function checkOaepPlaintext(n: bigint, hash: OaepHash, plaintext: Uint8Array): void {
  const max = modulusBytes(n) - 2 * HASH_SIZE[hash] - 2;
  if (plaintext.length > max) {
    throw new RangeError(
      `OAEP plaintext too long: at most ${max} bytes, got length=${plaintext.length}`,
    );
  }
}

/** Big-endian unsigned bytes of `x`, left-padded to `len`. @internal */
export function toBytes(x: bigint, len: number): Uint8Array {
  return numberToBytesBE(x, len);
}

/** Big-endian unsigned bytes → bigint. @internal */
export function toBigInt(bytes: Uint8Array): bigint {
  return bytes.length === 0 ? 0n : bytesToNumberBE(bytes);
}

/** Minimal big-endian bytes (JWK `n`, `e`, …: no leading zero). @internal */
export function toMinimalBytes(x: bigint): Uint8Array {
  return toBytes(x, Math.max(1, Math.ceil(bitLength(x) / 8)));
}

/** SEC 1 uncompressed point `04 ‖ x ‖ y`. @internal */
export function ecPointBytes(key: EcPublicKey): Uint8Array {
  const len = CURVE_BYTES[key.curve];
  const out = new Uint8Array(1 + 2 * len);
  out[0] = 4;
  out.set(toBytes(key.x, len), 1);
  out.set(toBytes(key.y, len), 1 + len);
  return out;
}

/** Length of an Ed25519 seed. */
const SEED_LENGTH = 32;

/** @throws TypeError/RangeError unless `key.seed` is 32 bytes. @internal */
export function checkSeed(key: Ed25519PrivateKey): Uint8Array {
  if (typeof key !== 'object' || key === null) throw new TypeError('"key" expected { seed }');
  assertBytes(key.seed, 'seed');
  if (key.seed.length !== SEED_LENGTH) {
    throw new RangeError(`"seed" expected 32 bytes, got length=${key.seed.length}`);
  }
  return key.seed;
}
