/**
 * Parameter checks shared by both backends, so that `noble` and `node` reject
 * exactly the same inputs with the same native error class and message.
 *
 * Runtime-neutral (no `node:` imports): it lives in `noble/` and `node/`
 * imports it, as `node/` already depends on `@noble/*` for XChaCha20.
 *
 * Rules (the `CryptoBackend` contract in `../backend.ts`):
 * - byte inputs must be `Uint8Array`s (Buffer included) → else `TypeError`;
 * - unsupported sizes (key, nonce, sealed input shorter than the tag, HKDF
 *   length over 255·HashLen) and unknown algorithm names → `RangeError`;
 * - messages name the parameter and its *length*, never its bytes.
 *
 * @module
 */
import type { AeadAlgorithm, HashName, TextEncodingName } from '../backend.js';

/** Length of every AEAD tag we produce or accept, in bytes. @internal */
export const TAG_LENGTH = 16;

/** Key and nonce lengths accepted per AEAD algorithm. @internal */
const AEAD_PARAMS: Readonly<
  Record<AeadAlgorithm, { readonly keyLengths: readonly number[]; readonly nonceLength: number }>
> = {
  'aes-gcm': { keyLengths: [16, 32], nonceLength: 12 },
  'chacha20-poly1305': { keyLengths: [32], nonceLength: 12 },
  'xchacha20-poly1305': { keyLengths: [32], nonceLength: 24 },
};

/** {@link AEAD_PARAMS} as a map: a lookup costs less than `Object.hasOwn`. */
const AEAD_BY_NAME: ReadonlyMap<unknown, (typeof AEAD_PARAMS)[AeadAlgorithm]> =
  /* @__PURE__ */ new Map(Object.entries(AEAD_PARAMS));

/** Output size in bytes of each {@link HashName}. @internal */
export const HASH_OUTPUT_LENGTH: Readonly<Record<HashName, number>> = {
  sha1: 20,
  sha224: 28,
  sha256: 32,
  sha384: 48,
  sha512: 64,
  'sha3-224': 28,
  'sha3-256': 32,
  'sha3-384': 48,
  'sha3-512': 64,
};

/** Like noble's `isBytes`: any Uint8Array, including Buffer and other realms. */
function isBytes(value: unknown): value is Uint8Array {
  return (
    value instanceof Uint8Array ||
    (ArrayBuffer.isView(value) && value.constructor.name === 'Uint8Array')
  );
}

/**
 * Asserts `value` is a `Uint8Array`.
 * @param label - names `value` in the message; with `what`, the message names
 *   `<label>: <what>` (built only when thrown: the checks run on every call).
 * @throws TypeError otherwise (the message names the value and the received type only).
 * @internal
 */
export function assertBytes(
  value: unknown,
  label: string,
  what?: string,
): asserts value is Uint8Array {
  if (!isBytes(value)) {
    const name = what === undefined ? label : `${label}: ${what}`;
    throw new TypeError(`${name} must be a Uint8Array, got ${describe(value)}`);
  }
}

/**
 * Check that `out` is bytes with room for `n` bytes at `offset` (the
 * backends' `aeadSealInto`).
 * @throws TypeError / RangeError
 */
export function assertRoom(
  alg: string,
  out: unknown,
  offset: number,
  n: number,
): asserts out is Uint8Array {
  assertBytes(out, alg, 'out');
  if (!Number.isSafeInteger(offset) || offset < 0 || offset + n > out.length) {
    throw new RangeError(`${alg}: out has no room for ${n} bytes at ${offset}`);
  }
}

/** A type description that can never leak the value itself. */
function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value !== 'object') return typeof value;
  return value.constructor?.name ?? 'object';
}

/**
 * Validates the encoding of a backend's text form (`digestText`, `hmacText`,
 * `aeadOpenText`).
 * @throws RangeError for anything but `hex` and `base64`.
 * @internal
 */
export function checkTextEncoding(encoding: TextEncodingName): void {
  if (encoding !== 'hex' && encoding !== 'base64') {
    throw new RangeError(`unsupported encoding ${JSON.stringify(String(encoding))}`);
  }
}

/**
 * Validates the AEAD parameters common to seal and open.
 * @throws RangeError for an unknown algorithm or a wrong key/nonce length;
 *   TypeError for non-byte inputs.
 * @internal
 */
export function checkAead(
  alg: AeadAlgorithm,
  key: Uint8Array,
  nonce: Uint8Array,
  aad: Uint8Array | undefined,
): void {
  const params = AEAD_BY_NAME.get(alg);
  if (!params) {
    throw new RangeError(`unsupported AEAD algorithm ${JSON.stringify(String(alg))}`);
  }
  assertBytes(key, alg, 'key');
  assertBytes(nonce, alg, 'nonce');
  if (aad !== undefined) assertBytes(aad, alg, 'aad');
  const kl = params.keyLengths; // one or two lengths: compared without `includes`
  if (key.length !== kl[0] && (kl.length < 2 || key.length !== kl[1])) {
    const allowed = kl.join(' or ');
    throw new RangeError(`${alg}: key must be ${allowed} bytes, got ${key.length}`);
  }
  if (nonce.length !== params.nonceLength) {
    throw new RangeError(`${alg}: nonce must be ${params.nonceLength} bytes, got ${nonce.length}`);
  }
}

/**
 * Validates a `ciphertext ‖ tag` input of `aeadOpen`.
 * @throws TypeError if not bytes; RangeError if shorter than the tag.
 * @internal
 */
export function checkSealed(alg: AeadAlgorithm, sealed: Uint8Array): void {
  assertBytes(sealed, alg, 'sealed input');
  if (sealed.length < TAG_LENGTH) {
    throw new RangeError(
      `${alg}: sealed input must be at least ${TAG_LENGTH} bytes (the tag), got ${sealed.length}`,
    );
  }
}

/**
 * Validates a hash name and returns its output size.
 * @throws RangeError for a name that is not a `HashName`.
 * @internal
 */
export function hashLength(hash: HashName): number {
  // Call after call names the same hash: answered without the table lookup.
  if (hash === lastHash) return lastHashLength;
  if (typeof hash !== 'string' || !Object.hasOwn(HASH_OUTPUT_LENGTH, hash)) {
    throw new RangeError(`unsupported hash ${JSON.stringify(String(hash))}`);
  }
  lastHashLength = HASH_OUTPUT_LENGTH[hash];
  lastHash = hash;
  return lastHashLength;
}

/** The last name {@link hashLength} accepted (at first an object no caller holds), and its size. */
let lastHash: unknown = {};
let lastHashLength = 0;

/**
 * Validates a byte count: a safe integer ≥ 0 (and ≤ `max` when given).
 * @throws TypeError if not a number; RangeError otherwise.
 * @internal
 */
export function checkCount(n: number, label: string, max?: number): void {
  if (typeof n !== 'number') throw new TypeError(`${label} must be a number, got ${typeof n}`);
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new RangeError(`${label} must be an integer >= 0, got ${n}`);
  }
  if (max !== undefined && n > max) throw new RangeError(`${label} must be <= ${max}, got ${n}`);
}

/**
 * Validates the arguments of `CryptoBackend.hkdf`: RFC 5869 caps the
 * output at 255·HashLen bytes.
 * @throws TypeError / RangeError as above.
 * @internal
 */
export function checkHkdf(
  hash: HashName,
  ikm: Uint8Array,
  salt: Uint8Array,
  info: Uint8Array,
  length: number,
): void {
  const size = hashLength(hash);
  assertBytes(ikm, 'hkdf: ikm');
  assertBytes(salt, 'hkdf: salt');
  assertBytes(info, 'hkdf: info');
  checkCount(length, 'hkdf: length', 255 * size);
}
