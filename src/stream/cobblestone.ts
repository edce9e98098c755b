/**
 * The C2SP chunked-encryption scheme (c2sp.org/chunked-encryption), in its
 * two named instantiations: Cobblestone-128 (SHA-512, AES-128-GCM) and
 * Cobblestone-256 (SHA-512, AES-256-GCM). TKS1 envelopes use Cobblestone-256
 * only; Cobblestone-128 is here for the generic layer and its vectors.
 *
 * ```
 * ciphertext = salt (24) ‖ commitment (32) ‖ chunk_0 ‖ … ‖ chunk_n
 * key ‖ base_nonce ‖ commitment = HKDF-Expand(SHA-512, prk = input key,
 *     info = "c2sp.org/chunked-encryption@v1+" ‖ AEAD name ‖ 0x00 ‖ salt ‖ context)
 * chunk_i = AEAD-Seal(key, base_nonce XOR BE(i), plaintext_i, aad = "")
 * ```
 * Every chunk but the last holds exactly 16 KiB of plaintext; the last holds
 * less (possibly nothing), so a chunk's length says whether it is final and
 * truncation at a chunk boundary is detected. The counter is limited to 2^38
 * chunks (4 PiB).
 *
 * Design: this module is pure computation over a {@link CryptoBackend} (its
 * `hmac` and `aeadSeal`/`aeadOpen`), so both backends produce identical bytes.
 * HKDF-Expand is composed from HMAC here (RFC 5869 §2.3) because the scheme
 * expands a PRK shorter than SHA-512's output, which noble's `expand` refuses
 * and node:crypto cannot express (its HKDF always extracts).
 * @module
 */
import { AeadAuthError, type CryptoBackend } from '../crypto/backend.js';
import { utf8 } from '../encoding.js';
import { internal, invalidRequest, TransitError } from '../errors.js';

/** Plaintext bytes per chunk (every chunk but the last). */
export const CHUNK_SIZE = 16_384;
/** AES-GCM tag length. */
export const TAG_SIZE = 16;
/** Ciphertext bytes of a full chunk. */
export const WIRE_CHUNK = CHUNK_SIZE + TAG_SIZE;
/** Salt length. */
export const SALT_SIZE = 24;
/** Key commitment length. */
export const COMMITMENT_SIZE = 32;
/** Salt ‖ commitment. */
export const HEADER_SIZE = SALT_SIZE + COMMITMENT_SIZE;
/** At most 2^38 chunks per message (the counter's range in the scheme). */
export const MAX_CHUNKS = 2 ** 38;

const NONCE_SIZE = 12;
const INFO_PREFIX = /* @__PURE__ */ utf8('c2sp.org/chunked-encryption@v1+');

/** One Cobblestone instantiation: the AEAD's IANA name and key size. @internal */
export interface CobblestoneSuite {
  readonly aeadName: string;
  readonly keySize: 16 | 32;
}

/** Cobblestone-128: SHA-512 and AES-128-GCM. @internal */
export const COBBLESTONE_128: CobblestoneSuite = { aeadName: 'AEAD_AES_128_GCM', keySize: 16 };
/** Cobblestone-256: SHA-512 and AES-256-GCM (the TKS1 envelope's scheme). @internal */
export const COBBLESTONE_256: CobblestoneSuite = { aeadName: 'AEAD_AES_256_GCM', keySize: 32 };

/** The one message of every authentication failure (commitment or chunk tag). @internal */
export const authFailed = (): TransitError =>
  invalidRequest('stream: message authentication failed');
/** The message of a stream that ends before its final chunk (or header). @internal */
export const truncated = (): TransitError =>
  invalidRequest('stream: truncated ciphertext (no final chunk)');

/**
 * HKDF-Expand (RFC 5869 §2.3) over the backend's HMAC: `T(i) = HMAC(prk,
 * T(i-1) ‖ info ‖ i)`, concatenated and cut to `length` (≤ 255 blocks).
 * @internal
 */
export function hkdfExpandSha512(
  backend: CryptoBackend,
  prk: Uint8Array,
  info: Uint8Array,
  length: number,
): Uint8Array {
  const out = new Uint8Array(length);
  let t: Uint8Array = new Uint8Array(0);
  for (let i = 1, off = 0; off < length; i++) {
    const input = new Uint8Array(t.length + info.length + 1);
    input.set(t, 0);
    input.set(info, t.length);
    input[input.length - 1] = i;
    t = backend.hmac('sha512', prk, input);
    out.set(t.subarray(0, Math.min(t.length, length - off)), off);
    off += t.length;
  }
  return out;
}

/** The per-message AEAD key, base nonce and expected commitment. @internal */
export interface DerivedKeys {
  readonly key: Uint8Array;
  readonly baseNonce: Uint8Array;
  readonly commitment: Uint8Array;
}

/**
 * The key schedule: chunk key ‖ base nonce ‖ commitment from the input key,
 * the salt and the context.
 * @internal
 */
export function deriveKeys(
  backend: CryptoBackend,
  suite: CobblestoneSuite,
  inputKey: Uint8Array,
  salt: Uint8Array,
  context: Uint8Array,
): DerivedKeys {
  const name = utf8(suite.aeadName);
  const info = new Uint8Array(INFO_PREFIX.length + name.length + 1 + salt.length + context.length);
  info.set(INFO_PREFIX, 0);
  info.set(name, INFO_PREFIX.length);
  info.set(salt, INFO_PREFIX.length + name.length + 1);
  info.set(context, INFO_PREFIX.length + name.length + 1 + salt.length);
  const okm = hkdfExpandSha512(
    backend,
    inputKey,
    info,
    suite.keySize + NONCE_SIZE + COMMITMENT_SIZE,
  );
  return {
    key: okm.slice(0, suite.keySize),
    baseNonce: okm.slice(suite.keySize, suite.keySize + NONCE_SIZE),
    commitment: okm.slice(suite.keySize + NONCE_SIZE),
  };
}

/**
 * Seals and opens the chunks of one message: the derived key and the nonce
 * sequence. Chunk numbers are explicit so random access can open any chunk.
 * @internal
 */
export class ChunkCipher {
  readonly #backend: CryptoBackend;
  readonly #key: Uint8Array;

  readonly #base0: number;
  readonly #base1: number;
  readonly #base2: number;
  readonly #scratchBytes = new Uint8Array(NONCE_SIZE);
  readonly #scratch = new DataView(this.#scratchBytes.buffer);

  constructor(backend: CryptoBackend, keys: DerivedKeys) {
    this.#backend = backend;
    this.#key = keys.key;
    const base = new DataView(keys.baseNonce.buffer, keys.baseNonce.byteOffset, NONCE_SIZE);
    this.#base0 = base.getUint32(0);
    this.#base1 = base.getUint32(4);
    this.#base2 = base.getUint32(8);
  }

  /**
   * `base_nonce XOR BE96(index)`, in one scratch buffer reused per chunk (the
   * backend contract is synchronous: a call has consumed the nonce before it
   * returns). The index is below 2^38, so two 32-bit words suffice.
   */
  #nonce(index: number): Uint8Array {
    if (!Number.isSafeInteger(index) || index < 0 || index >= MAX_CHUNKS) {
      throw invalidRequest('stream: too many chunks (the limit is 2^38)');
    }
    this.#scratch.setUint32(0, this.#base0);
    this.#scratch.setUint32(4, this.#base1 ^ Math.floor(index / 2 ** 32));
    this.#scratch.setUint32(8, (this.#base2 ^ index) >>> 0);
    return this.#scratchBytes;
  }

  /** Zero the derived key: nothing seals or opens under it any more. */
  wipe(): void {
    this.#key.fill(0);
  }

  /** `ciphertext ‖ tag` of chunk `index`. */
  seal(index: number, plaintext: Uint8Array): Uint8Array {
    return this.#backend.aeadSeal('aes-gcm', this.#key, this.#nonce(index), plaintext);
  }

  /**
   * Seal chunk `index` into `out` at `offset` (`plaintext.length + 16`
   * bytes); or, when `out` is a function, hand it the chunk as the backend
   * made it: ciphertext and tag as two pieces (`aeadSealParts`), else one.
   */
  sealInto(
    index: number,
    plaintext: Uint8Array,
    out: Uint8Array | ((piece: Uint8Array) => void),
    offset: number,
  ): void {
    const b = this.#backend;
    const nonce = this.#nonce(index);
    if (typeof out === 'function') {
      for (const piece of b.aeadSealParts?.('aes-gcm', this.#key, nonce, plaintext) ?? [
        b.aeadSeal('aes-gcm', this.#key, nonce, plaintext),
      ]) {
        out(piece);
      }
    } else if (b.aeadSealInto) {
      b.aeadSealInto('aes-gcm', this.#key, nonce, plaintext, out, offset);
    } else {
      out.set(b.aeadSeal('aes-gcm', this.#key, nonce, plaintext), offset);
    }
  }

  /**
   * The plaintext of chunk `index`, only once its tag verifies.
   * @throws TransitError `invalid_request` (`stream: message authentication failed`).
   */
  open(index: number, sealed: Uint8Array): Uint8Array {
    if (sealed.length < TAG_SIZE) throw authFailed();
    try {
      return this.#backend.aeadOpen('aes-gcm', this.#key, this.#nonce(index), sealed);
    } catch (e) {
      if (e instanceof AeadAuthError) throw authFailed();
      throw e;
    }
  }
}

/**
 * Refuse an input key whose size does not match the suite's AEAD key.
 * @throws TransitError `invalid_request`.
 * @internal
 */
export function checkInputKey(suite: CobblestoneSuite, inputKey: Uint8Array): void {
  if (!(inputKey instanceof Uint8Array) || inputKey.length !== suite.keySize) {
    throw invalidRequest(`stream: the input key must be ${suite.keySize} bytes`);
  }
}

/**
 * Start a message: a fresh random salt, the derived cipher and the 56-byte
 * header (salt ‖ commitment) to write before the chunks.
 * @throws TransitError `invalid_request` for an input key of the wrong size.
 * @internal
 */
export function startMessage(
  backend: CryptoBackend,
  suite: CobblestoneSuite,
  inputKey: Uint8Array,
  context: Uint8Array,
): { header: Uint8Array; cipher: ChunkCipher } {
  checkInputKey(suite, inputKey);
  const salt = backend.randomBytes(SALT_SIZE);
  const keys = deriveKeys(backend, suite, inputKey, salt, context);
  const header = new Uint8Array(HEADER_SIZE);
  header.set(salt, 0);
  header.set(keys.commitment, SALT_SIZE);
  return { header, cipher: new ChunkCipher(backend, keys) };
}

/**
 * Open a message from its 56-byte header: derive the keys and check the
 * commitment (constant time) before any chunk is touched.
 * @throws TransitError `invalid_request`: wrong key size, or authentication
 *   failure (wrong key, wrong context or a modified header).
 * @internal
 */
export function openMessage(
  backend: CryptoBackend,
  suite: CobblestoneSuite,
  inputKey: Uint8Array,
  context: Uint8Array,
  header: Uint8Array,
): ChunkCipher {
  checkInputKey(suite, inputKey);
  if (header.length !== HEADER_SIZE) throw truncated();
  const keys = deriveKeys(backend, suite, inputKey, header.subarray(0, SALT_SIZE), context);
  if (!backend.timingSafeEqual(keys.commitment, header.subarray(SALT_SIZE))) throw authFailed();
  return new ChunkCipher(backend, keys);
}

/** Ciphertext length of a message of `plaintextSize` bytes (header included). @internal */
export function ciphertextSize(plaintextSize: number): number {
  const full = Math.floor(plaintextSize / CHUNK_SIZE);
  return HEADER_SIZE + full * WIRE_CHUNK + (plaintextSize - full * CHUNK_SIZE) + TAG_SIZE;
}

/**
 * A stream failure as a TransitError: TransitErrors pass through; anything
 * else (an I/O error of the source, a bug) becomes `internal`, its cause kept.
 * @internal
 */
export function asStreamError(e: unknown): TransitError {
  if (e instanceof TransitError) return e;
  return internal('stream: unexpected failure', e);
}
