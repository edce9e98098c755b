/**
 * The AEAD cases the text forms of seal and open are checked over
 * (seal-text.test.ts, text-digests.test.ts): every algorithm and key size,
 * lengths around the block and allocation edges, and no, empty or some AAD.
 */
import { utf8 } from '../../src/encoding.js';

const key = new Uint8Array(32).fill(3);
const nonce = new Uint8Array(12).fill(4);
const xnonce = new Uint8Array(24).fill(4);

/** Algorithm, key and nonce: AES-256/128-GCM, ChaCha20- and XChaCha20-Poly1305. */
export const AEAD_CASES = [
  ['aes-gcm', key, nonce],
  ['aes-gcm', key.subarray(0, 16), nonce],
  ['chacha20-poly1305', key, nonce],
  ['xchacha20-poly1305', key, xnonce],
] as const;

/** Plaintext lengths: empty, under a block, 64, around 4 KiB (the seal's allocation switch), large. */
export const AEAD_LENGTHS = [0, 1, 2, 3, 64, 4095, 4096, 70_000] as const;

/** No AAD, an empty one, and some. */
export const AEAD_AADS = [undefined, new Uint8Array(0), utf8('context')] as const;
