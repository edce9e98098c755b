/**
 * The AEAD cases the text forms of seal and open are checked over
 * (seal-text.test.ts, text-digests.test.ts): every algorithm and key size,
 * lengths around the block and allocation edges, and no, empty or some AAD.
 */
import { utf8 } from '../../src/encoding.js';

/** The 32-byte key of the cases (its first 16 bytes for AES-128). */
export const AEAD_KEY = new Uint8Array(32).fill(3);
/** The 12-byte nonce of the cases. */
export const AEAD_NONCE = new Uint8Array(12).fill(4);
const xnonce = new Uint8Array(24).fill(4);

/** Algorithm, key and nonce: AES-256/128-GCM, ChaCha20- and XChaCha20-Poly1305. */
export const AEAD_CASES = [
  ['aes-gcm', AEAD_KEY, AEAD_NONCE],
  ['aes-gcm', AEAD_KEY.subarray(0, 16), AEAD_NONCE],
  ['chacha20-poly1305', AEAD_KEY, AEAD_NONCE],
  ['xchacha20-poly1305', AEAD_KEY, xnonce],
] as const;

/** Plaintext lengths: empty, under a block, 64, around 4 KiB (the seal's allocation switch), large. */
export const AEAD_LENGTHS = [0, 1, 2, 3, 64, 4095, 4096, 70_000] as const;

/** No AAD, an empty one, and some. */
export const AEAD_AADS = [undefined, new Uint8Array(0), utf8('context')] as const;
