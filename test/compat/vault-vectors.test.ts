/**
 * Known-answer compatibility with Vault/OpenBao, through the public engine on
 * both crypto backends: the HMAC vectors of Vault's transit tests, the docs
 * backup key's computed ciphertexts and HMACs, the derived (HKDF) and
 * convergent v3 values of reference §17.9, and legacy `kdf: 0` keys.
 * Sources: test/fixtures/vault/*.json (provenance in the README there).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gcm } from '@noble/ciphers/aes.js';
import { MemoryStorage, Transit } from 'transitkit';
import { describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { ascii, b64, hexBytes, putKnownKey } from '../helpers/known-key.js';
import { FIXTURES_DIR } from '../helpers/vectors.js';

const loadFixture = (name: string): unknown =>
  JSON.parse(readFileSync(path.join(FIXTURES_DIR, name), 'utf8'));

interface HmacFixture {
  hmac_key_v1_ascii: string;
  hmac_key_v2_ascii: string;
  input_b64: string;
  vectors: { algorithm: string; key_version: number; expected: string }[];
}
interface BackupFixture {
  key_b64: string;
  hmac_key_b64: string;
  computed: {
    plaintext_b64: string;
    ciphertext: string;
    hmac_by_algorithm: Record<string, string>;
  };
}
interface KdfFixture {
  counter_mode_vector: { key_hex: string; context_utf8: string; expected_hex: string };
}

const hmacFx = loadFixture('hmac-vectors.json') as HmacFixture;
const backupFx = loadFixture('backup-docs-aes256.json') as BackupFixture;
const kdfFx = loadFixture('kdf-counter.json') as KdfFixture;
const FOX = 'dGhlIHF1aWNrIGJyb3duIGZveA==';
const DOCS_KEY = 'W+y8gGN0wbL2K9Oy5qO7YZ0kcw3/GFb5c8I0svSL2qM=';

for (const [backendName, backend] of BACKENDS) {
  describe(`Vault known answers (${backendName})`, () => {
    const engine = async () => {
      const storage = new MemoryStorage();
      return { storage, transit: new Transit({ storage, crypto: backend, autoRotate: false }) };
    };

    it('HMAC vectors of Vault path_hmac_test.go, every algorithm and version 2', async () => {
      const { storage, transit } = await engine();
      const v1 = ascii(hmacFx.hmac_key_v1_ascii);
      const v2 = ascii(hmacFx.hmac_key_v2_ascii);
      await putKnownKey(storage, 'foo', [
        { key: v1, hmac_key: v1 },
        { key: v1, hmac_key: v2 },
      ]);
      let checked = 0;
      for (const v of hmacFx.vectors) {
        const r = await transit.hmac('foo', {
          input: hmacFx.input_b64,
          algorithm: v.algorithm,
          key_version: v.key_version,
        });
        expect(r.hmac, v.algorithm).toBe(v.expected);
        const ok = await transit.verify('foo', {
          input: hmacFx.input_b64,
          hmac: v.expected,
          hash_algorithm: v.algorithm,
        });
        expect(ok.valid).toBe(true);
        checked++;
      }
      expect(checked).toBeGreaterThanOrEqual(9);
      const tampered = 'vault:v1:UcBvm4VskkukzZHlPgm3p5P/Yr/PV6xpuOGZISya3A4=';
      expect((await transit.verify('foo', { input: FOX, hmac: tampered })).valid).toBe(false);
    });

    it('decrypts the docs-backup-key ciphertexts (fixed nonces, with and without AAD)', async () => {
      const { storage, transit } = await engine();
      await putKnownKey(storage, 'aes', [
        { key: b64(backupFx.key_b64), hmac_key: b64(backupFx.hmac_key_b64) },
      ]);
      const fixture = await transit.decrypt('aes', { ciphertext: backupFx.computed.ciphertext });
      expect(fixture.plaintext).toBe(backupFx.computed.plaintext_b64);
      const zeroNonce = 'vault:v1:AAAAAAAAAAAAAAAAwmGU3yfLJLeQmtZ3VtYgbzHxlWRtBhXwwuPDYoo106v2ghg=';
      expect((await transit.decrypt('aes', { ciphertext: zeroNonce })).plaintext).toBe(FOX);
      const withAad = 'vault:v1:AAECAwQFBgcICQoLrPFwqGRs2gv85zfGi3vFc+5XibqW//4BKAcJkORNLD64MO0=';
      expect(
        (await transit.decrypt('aes', { ciphertext: withAad, associated_data: 'YWFk' })).plaintext,
      ).toBe(FOX);
      await expect(transit.decrypt('aes', { ciphertext: withAad })).rejects.toMatchObject({
        code: 'invalid_request',
        message: 'cipher: message authentication failed',
      });
      for (const [alg, expected] of Object.entries(backupFx.computed.hmac_by_algorithm)) {
        expect((await transit.hmac('aes', { input: FOX, algorithm: alg })).hmac, alg).toBe(
          expected,
        );
      }
    });

    it('our ciphertext for the docs key decrypts with a plain AES-256-GCM implementation', async () => {
      const { storage, transit } = await engine();
      await putKnownKey(storage, 'aes', [{ key: b64(DOCS_KEY) }]);
      const { ciphertext } = await transit.encrypt('aes', { plaintext: FOX });
      const payload = b64(ciphertext.slice('vault:v1:'.length));
      const pt = gcm(b64(DOCS_KEY), payload.subarray(0, 12)).decrypt(payload.subarray(12));
      expect(Buffer.from(pt).toString()).toBe('the quick brown fox');
    });

    it('convergent v3 with context "my-context" gives the reference ciphertext exactly', async () => {
      const { storage, transit } = await engine();
      await putKnownKey(storage, 'conv', [{ key: b64(DOCS_KEY), convergent_version: 3 }], {
        derived: true,
        kdf: 1,
        convergent_encryption: true,
        convergent_version: -1,
      });
      const context = 'bXktY29udGV4dA==';
      const expected = 'vault:v1:T9wcdB9eLrzAbRGYfCsq0McO/MMba/68FkeSloQLOYkCn+yabkgvd5mu/s2P6g0=';
      expect((await transit.encrypt('conv', { plaintext: FOX, context })).ciphertext).toBe(
        expected,
      );
      expect((await transit.decrypt('conv', { ciphertext: expected, context })).plaintext).toBe(
        FOX,
      );
    });

    it('derived (HKDF) keys use the reference derived key for "my-context"', async () => {
      const { storage, transit } = await engine();
      await putKnownKey(storage, 'drv', [{ key: b64(DOCS_KEY) }], { derived: true, kdf: 1 });
      const context = 'bXktY29udGV4dA==';
      const { ciphertext } = await transit.encrypt('drv', { plaintext: FOX, context });
      const payload = b64(ciphertext.slice('vault:v1:'.length));
      const derived = b64('d8PNiMxWIqW2y7t4hger8WngsgY9ZDAvg99e6DcIElI=');
      const pt = gcm(derived, payload.subarray(0, 12)).decrypt(payload.subarray(12));
      expect(Buffer.from(pt).toString()).toBe('the quick brown fox');
    });

    it('legacy kdf:0 (counter-mode) derived keys still work', async () => {
      const { storage, transit } = await engine();
      const v = kdfFx.counter_mode_vector;
      await putKnownKey(storage, 'legacy', [{ key: hexBytes(v.key_hex) }], {
        derived: true,
        kdf: 0,
      });
      const context = Buffer.from(v.context_utf8).toString('base64');
      const { ciphertext } = await transit.encrypt('legacy', { plaintext: FOX, context });
      const payload = b64(ciphertext.slice('vault:v1:'.length));
      const pt = gcm(hexBytes(v.expected_hex), payload.subarray(0, 12)).decrypt(
        payload.subarray(12),
      );
      expect(Buffer.from(pt).toString()).toBe('the quick brown fox');
      expect((await transit.decrypt('legacy', { ciphertext, context })).plaintext).toBe(FOX);
      expect((await transit.readKey('legacy')).kdf).toBe('hmac-sha256-counter');
    });
  });
}
