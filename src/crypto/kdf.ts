/**
 * Vault's two key-derivation functions for `derived: true` keys
 * (reference/vault-transit.md §2), over any {@link CryptoBackend}:
 *
 * - `kdf: 1` — {@link hkdfSha256}: HKDF-SHA256 (RFC 5869), salt empty (nil in
 *   Go, i.e. HashLen zero bytes), info = context. Prefix-stable in `length`.
 * - `kdf: 0` — {@link counterKdfSha256}: NIST SP 800-108 counter mode with
 *   HMAC-SHA256, as Vault's `sdk/helper/kdf` (counter starts at 0, `bits` is
 *   part of every PRF input, so outputs of different lengths are unrelated).
 *
 * Both are compositions of backend primitives; nothing here is a primitive.
 *
 * @module
 */
import type { CryptoBackend } from './backend.js';

const EMPTY = /* @__PURE__ */ new Uint8Array(0);

/** HMAC-SHA256 output size in bits (the counter-mode PRF length). */
const PRF_BITS = 256;

/**
 * HKDF-SHA256 with an empty salt: Vault's `kdf: 1` (`Kdf_hkdf_sha256`).
 *
 * @param ikm - the stored key version bytes
 * @param info - the derivation context
 * @param length - output bytes (≤ 8160)
 * @throws RangeError for a bad `length`; TypeError for non-byte inputs.
 * @example
 * ```ts
 * const k = hkdfSha256(nodeBackend, key, new TextEncoder().encode('my-context'), 32);
 * ```
 * @public
 */
export function hkdfSha256(
  backend: CryptoBackend,
  ikm: Uint8Array,
  info: Uint8Array,
  length: number,
): Uint8Array {
  return backend.hkdf('sha256', ikm, EMPTY, info, length);
}

/**
 * NIST SP 800-108 counter-mode KDF with HMAC-SHA256: Vault's `kdf: 0`
 * (`Kdf_hmac_sha256_counter`, `kdf.CounterMode(kdf.HMACSHA256PRF, 256, …)`).
 * Block `i` (from 0) is `HMAC-SHA256(key, BE32(i) ‖ context ‖ BE32(bits))`;
 * the blocks are concatenated and truncated to `bits / 8` bytes.
 *
 * @param bits - output length in bits: a positive multiple of 8, < 2^32
 *   (Vault's policy code always asks for 256)
 * @throws RangeError for a bad `bits`; TypeError for non-byte inputs.
 * @example
 * ```ts
 * const k = counterKdfSha256(nodeBackend, key, context, 256); // 32 bytes
 * ```
 * @public
 */
export function counterKdfSha256(
  backend: CryptoBackend,
  key: Uint8Array,
  context: Uint8Array,
  bits: number,
): Uint8Array {
  if (typeof bits !== 'number') throw new TypeError(`bits must be a number, got ${typeof bits}`);
  if (!Number.isInteger(bits) || bits <= 0 || bits % 8 !== 0 || bits > 0xffff_ffff) {
    throw new RangeError(`bits must be a positive multiple of 8 below 2^32, got ${bits}`);
  }
  if (!(context instanceof Uint8Array)) throw new TypeError('context must be a Uint8Array');
  const length = bits / 8;
  const rounds = Math.ceil(bits / PRF_BITS);
  const input = new Uint8Array(4 + context.length + 4);
  const view = new DataView(input.buffer);
  input.set(context, 4);
  view.setUint32(4 + context.length, bits);
  const out = new Uint8Array(length);
  for (let i = 0; i < rounds; i++) {
    view.setUint32(0, i);
    const block = backend.hmac('sha256', key, input);
    const off = i * (PRF_BITS / 8);
    out.set(block.subarray(0, Math.min(block.length, length - off)), off);
  }
  return out;
}
