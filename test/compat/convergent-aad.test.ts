/**
 * Convergent encryption with associated data (issue #15 item 11).
 *
 * Vault's convergent v3 nonce is HMAC-SHA256(nonceKey, plaintext): it ignores
 * the AAD, so one plaintext and context under two AADs share a GCM nonce under
 * one key — from two such ciphertexts the GHASH key falls out and ciphertexts
 * can be forged for new AAD. transitkit binds a non-empty AAD into the nonce
 * (README, "Differences from Vault"):
 *
 *   okm         = HKDF-SHA256(versionKey, salt = ∅, info = context, keyBytes + 64)
 *   encKey      = okm[0 : keyBytes]                  (Vault's, unchanged)
 *   nonceKey    = okm[keyBytes : keyBytes + 32]      (Vault's v3, unchanged)
 *   aadNonceKey = okm[keyBytes + 32 : keyBytes + 64] (new, used only with AAD)
 *   nonce       = HMAC-SHA256(aadNonceKey, "transitkit-convergent-aad-v1"
 *                             ‖ BE64(len(aad)) ‖ aad ‖ plaintext)[:nonceBytes]
 *
 * Without AAD the ciphertext stays Vault's v3 known answer; the stored
 * `convergent_version` stays 3 (OpenBao refuses to encrypt with any other).
 * Everything is checked on both crypto backends and against an independent
 * computation with noble.
 */
import { gcm } from '@noble/ciphers/aes.js';
import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import { hkdf } from '@noble/hashes/hkdf.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { MemoryStorage, Transit } from 'transitkit';
import { describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { ascii, b64, putKnownKey } from '../helpers/known-key.js';

const DOCS_KEY = b64('W+y8gGN0wbL2K9Oy5qO7YZ0kcw3/GFb5c8I0svSL2qM=');
const FOX = 'dGhlIHF1aWNrIGJyb3duIGZveA==';
const CONTEXT = 'bXktY29udGV4dA=='; // "my-context"
/** Vault's v3 known answer for FOX under the docs key and "my-context" (reference §17.9). */
const V3_NO_AAD = 'vault:v1:T9wcdB9eLrzAbRGYfCsq0McO/MMba/68FkeSloQLOYkCn+yabkgvd5mu/s2P6g0=';
const toB64 = (u: Uint8Array): string => Buffer.from(u).toString('base64');
const payloadOf = (ct: string): Uint8Array => b64(ct.split(':')[2] ?? '');

/** The AAD-bound nonce, computed independently of the engine. */
function expectedNonce(
  versionKey: Uint8Array,
  context: Uint8Array,
  keyBytes: number,
  nonceBytes: number,
  aad: Uint8Array,
  plaintext: Uint8Array,
): Uint8Array {
  const okm = hkdf(sha256, versionKey, new Uint8Array(0), context, keyBytes + 64);
  const aadNonceKey = okm.subarray(keyBytes + 32, keyBytes + 64);
  const len = new Uint8Array(8);
  new DataView(len.buffer).setBigUint64(0, BigInt(aad.length));
  const msg = new Uint8Array([
    ...ascii('transitkit-convergent-aad-v1'),
    ...len,
    ...aad,
    ...plaintext,
  ]);
  return hmac(sha256, aadNonceKey, msg).subarray(0, nonceBytes);
}

for (const [backendName, backend] of BACKENDS) {
  describe(`convergent encryption binds associated data (${backendName})`, () => {
    const engine = async (type = 'aes256-gcm96') => {
      const storage = new MemoryStorage();
      await putKnownKey(storage, 'conv', [{ key: DOCS_KEY, convergent_version: 3 }], {
        type: type as 'aes256-gcm96',
        derived: true,
        kdf: 1,
        convergent_encryption: true,
        convergent_version: -1,
        exportable: true,
        allow_plaintext_backup: true,
      });
      return new Transit({ storage, crypto: backend, autoRotate: false });
    };
    const enc = async (t: Transit, aad?: string, plaintext = FOX) =>
      (
        await t.encrypt('conv', {
          plaintext,
          context: CONTEXT,
          ...(aad === undefined ? {} : { associated_data: aad }),
        })
      ).ciphertext;

    it('without AAD (absent or empty) the ciphertext is still Vault v3 known answer', async () => {
      const t = await engine();
      expect(await enc(t)).toBe(V3_NO_AAD);
      expect(await enc(t, '')).toBe(V3_NO_AAD);
    });

    it('one plaintext and context under different AADs never shares a nonce (the attack precondition)', async () => {
      const t = await engine();
      const cts = [await enc(t), await enc(t, toB64(ascii('a'))), await enc(t, toB64(ascii('b')))];
      const nonces = cts.map((c) => toB64(payloadOf(c).subarray(0, 12)));
      expect(new Set(nonces).size).toBe(3);
    });

    it('identical inputs, AAD included, stay deterministic', async () => {
      const t = await engine();
      const aad = toB64(ascii('row 17'));
      const first = await enc(t, aad);
      expect(await enc(t, aad)).toBe(first);
      const batch = await t.encrypt('conv', {
        batch_input: [
          { plaintext: FOX, context: CONTEXT, associated_data: aad },
          { plaintext: FOX, context: CONTEXT, associated_data: aad },
        ],
      });
      expect(batch.batch_results.map((r) => r.ciphertext)).toEqual([first, first]);
    });

    it('the AAD nonce is the documented construction; a plain AES-GCM opens it (Vault decrypts)', async () => {
      const t = await engine();
      const aad = ascii('row 17');
      const ct = await enc(t, toB64(aad));
      const payload = payloadOf(ct);
      const nonce = expectedNonce(
        DOCS_KEY,
        ascii('my-context'),
        32,
        12,
        aad,
        ascii('the quick brown fox'),
      );
      expect(toB64(payload.subarray(0, 12))).toBe(toB64(nonce));
      const encKey = hkdf(sha256, DOCS_KEY, new Uint8Array(0), ascii('my-context'), 32);
      const pt = gcm(encKey, nonce, aad).decrypt(payload.subarray(12));
      expect(Buffer.from(pt).toString()).toBe('the quick brown fox');
      expect(
        (await t.decrypt('conv', { ciphertext: ct, context: CONTEXT, associated_data: toB64(aad) }))
          .plaintext,
      ).toBe(FOX);
    });

    it('the AAD is length-prefixed: moving bytes between AAD and plaintext changes the nonce', async () => {
      const t = await engine();
      const a = await enc(t, toB64(ascii('ab')), toB64(ascii('c')));
      const b = await enc(t, toB64(ascii('a')), toB64(ascii('bc')));
      expect(toB64(payloadOf(a).subarray(0, 12))).not.toBe(toB64(payloadOf(b).subarray(0, 12)));
    });

    it('xchacha20-poly1305 (24-byte nonce) binds the AAD the same way', async () => {
      const t = await engine('xchacha20-poly1305');
      const aad = ascii('x');
      const ct = await enc(t, toB64(aad));
      const plain = await enc(t);
      const nonce = expectedNonce(
        DOCS_KEY,
        ascii('my-context'),
        32,
        24,
        aad,
        ascii('the quick brown fox'),
      );
      expect(toB64(payloadOf(ct).subarray(0, 24))).toBe(toB64(nonce));
      expect(toB64(payloadOf(plain).subarray(0, 24))).not.toBe(toB64(nonce));
      const encKey = hkdf(sha256, DOCS_KEY, new Uint8Array(0), ascii('my-context'), 32);
      const pt = xchacha20poly1305(encKey, nonce, aad).decrypt(payloadOf(ct).subarray(24));
      expect(Buffer.from(pt).toString()).toBe('the quick brown fox');
    });

    it('a legacy convergent v2 key refuses a non-empty AAD (its nonce cannot bind it); rotating moves it to v3', async () => {
      const storage = new MemoryStorage();
      await putKnownKey(storage, 'v2', [{ key: DOCS_KEY, convergent_version: 2 }], {
        derived: true,
        kdf: 1,
        convergent_encryption: true,
        convergent_version: 2,
      });
      const t = new Transit({ storage, crypto: backend, autoRotate: false });
      const plain = await t.encrypt('v2', { plaintext: FOX, context: CONTEXT });
      const nonce = hmac(sha256, ascii('my-context'), ascii('the quick brown fox')).subarray(0, 12);
      expect(toB64(payloadOf(plain.ciphertext).subarray(0, 12))).toBe(toB64(nonce));
      expect(
        (await t.encrypt('v2', { plaintext: FOX, context: CONTEXT, associated_data: '' }))
          .ciphertext,
      ).toBe(plain.ciphertext);
      await expect(
        t.encrypt('v2', { plaintext: FOX, context: CONTEXT, associated_data: toB64(ascii('a')) }),
      ).rejects.toMatchObject({
        code: 'invalid_request',
        message:
          "'associated_data' needs convergent encryption version 3; this key version uses version 2: rotate the key",
      });
      await t.rotateKey('v2');
      const aad = toB64(ascii('a'));
      const v2 = await t.encrypt('v2', { plaintext: FOX, context: CONTEXT, associated_data: aad });
      expect(v2.ciphertext.startsWith('vault:v2:')).toBe(true);
      expect(
        (
          await t.decrypt('v2', {
            ciphertext: v2.ciphertext,
            context: CONTEXT,
            associated_data: aad,
          })
        ).plaintext,
      ).toBe(FOX);
    });

    it('an unknown convergent version (stored 4) refuses to encrypt, as OpenBao, and still decrypts', async () => {
      const storage = new MemoryStorage();
      await putKnownKey(storage, 'v4', [{ key: DOCS_KEY, convergent_version: 4 }], {
        derived: true,
        kdf: 1,
        convergent_encryption: true,
        convergent_version: -1,
      });
      const t = new Transit({ storage, crypto: backend, autoRotate: false });
      await expect(t.encrypt('v4', { plaintext: FOX, context: CONTEXT })).rejects.toMatchObject({
        code: 'invalid_request',
        message: 'unhandled convergent version 4',
      });
      expect((await t.decrypt('v4', { ciphertext: V3_NO_AAD, context: CONTEXT })).plaintext).toBe(
        FOX,
      );
    });

    it('the stored convergent version stays 3, so backups restore in Vault and OpenBao', async () => {
      const t = await engine();
      await enc(t, toB64(ascii('row 17')));
      await t.rotateKey('conv');
      const blob = JSON.parse(Buffer.from((await t.backupKey('conv')).backup, 'base64').toString());
      expect(blob.policy.convergent_version).toBe(-1);
      expect(blob.policy.keys['1'].convergent_version).toBe(3);
      expect(blob.policy.keys['2'].convergent_version).toBe(3);
    });
  });
}
