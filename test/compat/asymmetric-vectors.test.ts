/**
 * Known answers from Vault's asymmetric tests, through the public engine on
 * both crypto backends:
 * - the fixed ECDSA keys of `path_sign_verify_test.go` with their OpenSSL-made
 *   `vault:v1:` DER signatures (two of them high-S), and the computed `jws`
 *   form of each, put in storage as Vault's numbers (ec_x/ec_y/ec_d);
 * - `hash_algorithm=none` (PKCS#1 v1.5 without DigestInfo) and prehashed
 *   sha2-256 signatures that reproduce exactly with the fixed RSA key of
 *   `import-keys.json`;
 * - Vault's NSS-format Ed25519 seed, whose public key is recomputed.
 * Sources: test/fixtures/vault/{ecdsa-fixed-keys,prehashed-none,import-keys}.json.
 */
import { MemoryStorage, Transit } from 'transitkit';
import { describe, expect, it } from 'vitest';
import { decodePkcs8PrivateKey } from '../../src/crypto/pki/keys.js';
import { fromB64, fromHex, loadFixture } from '../crypto/asymmetric-helpers.js';
import { BACKENDS } from '../helpers/backends.js';
import { ecMaterial, putKnownKey, rsaMaterial } from '../helpers/known-key.js';

interface EcFixture {
  input_b64: string;
  keys: Array<{
    curve: string;
    key_type: string;
    x_decimal: string;
    y_decimal: string;
    d_decimal: string;
    public_key_pem: string;
    signature: string;
    signature_jws_form: string;
  }>;
}
interface NoneFixture {
  input_b64: string;
  computed_example: {
    key_pkcs8_der_b64: string;
    signature_hash_none: string;
    signature_prehashed_sha2_256: string;
  };
}
interface ImportFixture {
  keys: Array<{ name: string; seed_hex?: string; public_key_b64?: string }>;
}

const ec = loadFixture<EcFixture>('ecdsa-fixed-keys');
const none = loadFixture<NoneFixture>('prehashed-none');
const imports = loadFixture<ImportFixture>('import-keys');
const CURVE = { 'P-256': 'p256', 'P-384': 'p384', 'P-521': 'p521' } as const;

for (const [backendName, backend] of BACKENDS) {
  describe(`Vault asymmetric known answers (${backendName})`, () => {
    const engine = () => {
      const storage = new MemoryStorage();
      return { storage, transit: new Transit({ storage, crypto: backend, autoRotate: false }) };
    };

    it('fixed ECDSA keys: the OpenSSL signatures verify, as asn1 and as the computed jws', async () => {
      const { storage, transit } = engine();
      let checked = 0;
      for (const k of ec.keys) {
        const curve = CURVE[k.curve as keyof typeof CURVE];
        const material = ecMaterial(
          curve,
          BigInt(k.x_decimal),
          BigInt(k.y_decimal),
          BigInt(k.d_decimal),
        );
        await putKnownKey(storage, k.key_type, [{ key: new Uint8Array(0), asymmetric: material }], {
          type: k.key_type as 'ecdsa-p256',
        });
        const input = ec.input_b64;
        expect((await transit.verify(k.key_type, { input, signature: k.signature })).valid).toBe(
          true,
        );
        const jws = { input, signature: k.signature_jws_form, marshaling_algorithm: 'jws' };
        expect((await transit.verify(k.key_type, jws)).valid).toBe(true);
        // sha2-256 is what was signed, whatever the curve; other hashes fail.
        const other = { input, signature: k.signature, hash_algorithm: 'sha2-384' };
        expect((await transit.verify(k.key_type, other)).valid).toBe(false);
        // The stored PKIX PEM is Vault's, and our own signatures verify under it.
        const read = (await transit.readKey(k.key_type)).keys as Record<
          string,
          { public_key: string }
        >;
        expect(read['1']?.public_key).toBe(k.public_key_pem);
        const ours = await transit.sign(k.key_type, { input });
        expect((await transit.verify(k.key_type, { input, signature: ours.signature })).valid).toBe(
          true,
        );
        checked++;
      }
      expect(checked).toBe(3);
    });

    it('hash_algorithm=none and prehashed sha2-256 reproduce byte for byte with the fixed RSA key', async () => {
      const { storage, transit } = engine();
      const parsed = decodePkcs8PrivateKey(fromB64(none.computed_example.key_pkcs8_der_b64));
      if (parsed.type !== 'rsa') throw new Error('expected the fixture RSA key');
      await putKnownKey(
        storage,
        'rsa',
        [{ key: new Uint8Array(0), asymmetric: rsaMaterial(parsed.key) }],
        {
          type: 'rsa-2048',
        },
      );
      const base = {
        input: none.input_b64,
        prehashed: true,
        signature_algorithm: 'pkcs1v15',
      } as const;
      const noOid = await transit.sign('rsa', { ...base, hash_algorithm: 'none' });
      expect(noOid).toEqual({
        signature: none.computed_example.signature_hash_none,
        key_version: 1,
      });
      const sha = await transit.sign('rsa', { ...base, hash_algorithm: 'sha2-256' });
      expect(sha.signature).toBe(none.computed_example.signature_prehashed_sha2_256);
      expect(
        (
          await transit.verify('rsa', {
            ...base,
            hash_algorithm: 'none',
            signature: noOid.signature,
          })
        ).valid,
      ).toBe(true);
      expect(
        (await transit.verify('rsa', { ...base, hash_algorithm: 'none', signature: sha.signature }))
          .valid,
      ).toBe(false);
    });

    it('the NSS Ed25519 seed of Vault’s import test signs under its recomputed public key', async () => {
      const { storage, transit } = engine();
      const nss = imports.keys.find((k) => k.name === 'nssFormattedEd25519Key');
      const seed = fromHex(nss?.seed_hex as string);
      const pub = fromB64(nss?.public_key_b64 as string);
      await putKnownKey(
        storage,
        'ed',
        [
          {
            key: new Uint8Array([...seed, ...pub]),
            asymmetric: { kind: 'ed25519', public: pub, private: { seed } },
          },
        ],
        { type: 'ed25519' },
      );
      const { signature } = await transit.sign('ed', { input: ec.input_b64 });
      expect(
        await backend.ed25519Verify(pub, fromB64(ec.input_b64), fromB64(signature.slice(9))),
      ).toBe(true);
      expect((await transit.readKey('ed')).keys).toMatchObject({
        '1': { public_key: nss?.public_key_b64 },
      });
    });
  });
}
