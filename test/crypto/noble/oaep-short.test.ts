/**
 * RSA-OAEP decryption of a ciphertext whose big-endian integer has a leading
 * zero byte, given without it (k − 1 bytes). Go's rsa.DecryptOAEP only
 * refuses len(ciphertext) > k, and OpenSSL (the node backend, and the noble
 * backend's WebCrypto path on Node) decrypts it; the noble backend's raw path
 * (SHA-224, which WebCrypto lacks) wanted exactly k bytes. Both backends must
 * agree for every hash; one byte too long is refused by both.
 */
import { describe, expect, it } from 'vitest';
import type { OaepHash } from '../../../src/crypto/asymmetric-backend.js';
import { nobleBackend } from '../../../src/crypto/noble/index.js';
import { nodeBackend } from '../../../src/crypto/node/index.js';
import { wycheproofRsa } from '../asymmetric-helpers.js';

const PLAIN = new Uint8Array([1, 2, 3]);

/** An OAEP ciphertext that starts with a zero byte (about 1 in 256 do). */
async function leadingZeroCiphertext(hash: OaepHash, key: ReturnType<typeof wycheproofRsa>) {
  for (;;) {
    const ct = await nodeBackend.rsaOaepEncrypt(key, hash, PLAIN);
    if (ct[0] === 0) return ct;
  }
}

describe('RSA-OAEP: a k−1-byte ciphertext (leading zero stripped)', () => {
  it('decrypts the same way on both backends, for every OAEP hash', async () => {
    const key = wycheproofRsa(2048);
    const results: string[] = [];
    for (const hash of ['sha1', 'sha224', 'sha256', 'sha384', 'sha512'] as const) {
      const short = (await leadingZeroCiphertext(hash, key)).subarray(1);
      for (const [name, b] of [
        ['node', nodeBackend],
        ['noble', nobleBackend],
      ] as const) {
        const r = await b.rsaOaepDecrypt(key, hash, short).then(
          (p) => Buffer.from(p).toString('hex'),
          (e: Error) => e.name,
        );
        results.push(`${hash} ${name}: ${r}`);
      }
    }
    for (const line of results) expect(line, results.join('\n')).toMatch(/: 010203$/);
    const long = new Uint8Array(257);
    for (const b of [nodeBackend, nobleBackend]) {
      await expect(b.rsaOaepDecrypt(key, 'sha224', long)).rejects.toThrow();
    }
  }, 60_000);
});
