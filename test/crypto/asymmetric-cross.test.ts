/**
 * Cross-backend tests of the asymmetric layer: what one backend signs or
 * encrypts, the other verifies or decrypts, for every key type and option;
 * deterministic operations (Ed25519, PKCS#1 v1.5) give identical bytes; the
 * transit fixtures (fixed ECDSA keys with OpenSSL signatures, the prehashed
 * `none` PKCS#1 vector) reproduce; PSS salt bounds; bad inputs fail alike.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  type AsymmetricBackend,
  type EcCurve,
  type EcdsaSignatureFormat,
  type OaepHash,
  RsaDecryptionError,
  type RsaPrivateKey,
  type SignedData,
} from '../../src/crypto/asymmetric-backend.js';
import { pssMaxSaltLength } from '../../src/crypto/asymmetric-checks.js';
import type { HashName } from '../../src/crypto/backend.js';
import { decodePkcs8PrivateKey, decodePublicKeyPem } from '../../src/crypto/pki/keys.js';
import {
  BACKENDS,
  ecKey,
  edKey,
  fromB64,
  fromHex,
  loadFixture,
  rsaKey,
  utf8,
  wycheproofRsa,
} from './asymmetric-helpers.js';

const MSG = utf8('the quick brown fox');
const digest = (h: HashName, m: Uint8Array): Uint8Array =>
  new Uint8Array(createHash(h).update(m).digest());
const flip = (b: Uint8Array, i = 0): Uint8Array => {
  const c = b.slice();
  c[i] = (c[i] ?? 0) ^ 1;
  return c;
};
const both = (h: HashName): ReadonlyArray<readonly [string, SignedData]> => [
  ['message', { message: MSG }],
  ['digest', { digest: digest(h, MSG) }],
];

const CURVES: ReadonlyArray<readonly [EcCurve, HashName, number]> = [
  ['p256', 'sha256', 32],
  ['p384', 'sha384', 48],
  ['p521', 'sha512', 66],
];
const FORMATS: readonly EcdsaSignatureFormat[] = ['der', 'p1363'];
const SIG_HASHES: readonly HashName[] = [
  'sha1',
  'sha224',
  'sha256',
  'sha384',
  'sha512',
  'sha3-256',
  'sha3-512',
];
const OAEP_HASHES: readonly OaepHash[] = ['sha1', 'sha224', 'sha256', 'sha384', 'sha512'];
const HLEN: Record<OaepHash, number> = { sha1: 20, sha224: 28, sha256: 32, sha384: 48, sha512: 64 };

for (const [sName, signer] of BACKENDS) {
  for (const [vName, verifier] of BACKENDS) {
    describe(`${sName} signs/encrypts → ${vName} verifies/decrypts`, () => {
      it('ECDSA: 3 curves × DER/P1363 × message/digest, hash none, tampering rejected', async () => {
        for (const [curve, hash, size] of CURVES) {
          const key = await ecKey(signer, curve);
          for (const format of FORMATS) {
            for (const [mode, data] of both(hash)) {
              const sig = await signer.ecdsaSign(key, hash, data, format);
              if (format === 'p1363') expect(sig.length).toBe(2 * size);
              // Either mode verifies a signature made in either mode.
              expect(
                await verifier.ecdsaVerify(key, hash, { message: MSG }, sig, format),
                `${curve} ${format} ${mode}`,
              ).toBe(true);
              expect(
                await verifier.ecdsaVerify(key, hash, { digest: digest(hash, MSG) }, sig, format),
              ).toBe(true);
              expect(
                await verifier.ecdsaVerify(key, hash, { message: flip(MSG) }, sig, format),
              ).toBe(false);
              expect(
                await verifier.ecdsaVerify(
                  key,
                  hash,
                  { message: MSG },
                  flip(sig, sig.length - 1),
                  format,
                ),
              ).toBe(false);
              expect(
                await verifier.ecdsaVerify(
                  key,
                  hash,
                  { message: MSG },
                  sig,
                  format === 'der' ? 'p1363' : 'der',
                ),
              ).toBe(false);
            }
          }
          // hash "none" + prehashed: the raw input, of any length, truncated to the order size (Go).
          const raw = new Uint8Array(100).map((_, i) => i * 7);
          const sig = await signer.ecdsaSign(key, 'none', { digest: raw }, 'der');
          expect(await verifier.ecdsaVerify(key, 'none', { digest: raw }, sig, 'der')).toBe(true);
          expect(
            await verifier.ecdsaVerify(key, 'none', { digest: raw.subarray(0, size) }, sig, 'der'),
          ).toBe(true);
          expect(
            await verifier.ecdsaVerify(
              key,
              'none',
              { digest: raw.subarray(0, size - 1) },
              sig,
              'der',
            ),
          ).toBe(false);
        }
      });

      it('Ed25519: identical public keys and signatures, cross-verify', async () => {
        const key = await edKey(signer);
        const pub = await signer.ed25519PublicKey(key);
        expect(await verifier.ed25519PublicKey(key)).toEqual(pub);
        for (const msg of [new Uint8Array(0), MSG, new Uint8Array(1000).fill(7)]) {
          const sig = await signer.ed25519Sign(key, msg);
          expect(await verifier.ed25519Sign(key, msg)).toEqual(sig);
          expect(await verifier.ed25519Verify(pub, msg, sig)).toBe(true);
          expect(await verifier.ed25519Verify(pub, flip(new Uint8Array([...msg, 0])), sig)).toBe(
            false,
          );
          expect(await verifier.ed25519Verify(pub, msg, flip(sig))).toBe(false);
          expect(await verifier.ed25519Verify(pub, msg, sig.subarray(1))).toBe(false);
        }
      });

      it('RSA-PSS: salt auto(max)/hash/0/max for SHA-256, salt=hash for every hash, message and digest', async () => {
        const key = await rsaKey(verifier, 2048); // signer uses a key the other backend generated
        const max = pssMaxSaltLength(key.n, 'sha256');
        const cases: Array<readonly [HashName, number]> = [
          ['sha256', max], // Vault "auto" on sign
          ['sha256', 32], // Vault "hash"
          ['sha256', 0],
          ...SIG_HASHES.map((h) => [h, digest(h, MSG).length] as const),
        ];
        for (const [hash, salt] of cases) {
          for (const [mode, data] of both(hash)) {
            const sig = await signer.rsaSignPss(key, hash, data, salt);
            for (const [, vdata] of both(hash)) {
              expect(
                await verifier.rsaVerifyPss(key, hash, vdata, sig, salt),
                `${hash} salt ${salt} ${mode}`,
              ).toBe(true);
              expect(await verifier.rsaVerifyPss(key, hash, vdata, sig, 'auto')).toBe(true);
            }
            expect(
              await verifier.rsaVerifyPss(
                key,
                hash,
                { message: MSG },
                sig,
                salt === 0 ? 1 : salt - 1,
              ),
            ).toBe(false);
            expect(
              await verifier.rsaVerifyPss(key, hash, { message: flip(MSG) }, sig, 'auto'),
            ).toBe(false);
            expect(await verifier.rsaVerifyPkcs1(key, hash, { message: MSG }, sig)).toBe(false);
          }
        }
      });

      it('RSA PKCS#1 v1.5: every hash (DigestInfo) and "none", identical bytes, cross-verify', async () => {
        const key = await rsaKey(verifier, 2048);
        for (const hash of SIG_HASHES) {
          const sigs: Uint8Array[] = [];
          for (const [, data] of both(hash)) {
            const sig = await signer.rsaSignPkcs1(key, hash, data);
            sigs.push(sig, await verifier.rsaSignPkcs1(key, hash, data));
            for (const [, vdata] of both(hash))
              expect(await verifier.rsaVerifyPkcs1(key, hash, vdata, sig), hash).toBe(true);
            expect(await verifier.rsaVerifyPkcs1(key, hash, { message: flip(MSG) }, sig)).toBe(
              false,
            );
            expect(
              await verifier.rsaVerifyPkcs1(key, 'none', { digest: digest(hash, MSG) }, sig),
            ).toBe(false);
          }
          for (const s of sigs) expect(s).toEqual(sigs[0]);
        }
        // "none": the raw input is padded without DigestInfo; up to k − 11 bytes.
        for (const len of [0, 1, 32, 245]) {
          const input = new Uint8Array(len).fill(0x5a);
          const sig = await signer.rsaSignPkcs1(key, 'none', { digest: input });
          expect(await verifier.rsaSignPkcs1(key, 'none', { digest: input })).toEqual(sig);
          expect(await verifier.rsaVerifyPkcs1(key, 'none', { digest: input }, sig)).toBe(true);
        }
        await expect(
          signer.rsaSignPkcs1(key, 'none', { digest: new Uint8Array(246) }),
        ).rejects.toThrow(RangeError);
        expect(
          await verifier.rsaVerifyPkcs1(
            key,
            'none',
            { digest: new Uint8Array(246) },
            new Uint8Array(256),
          ),
        ).toBe(false);
      });

      it('RSA-OAEP: every hash, plaintext 0/1/max bytes; max+1 and tampering refused', async () => {
        const key = await rsaKey(verifier, 2048);
        for (const hash of OAEP_HASHES) {
          const max = 256 - 2 * HLEN[hash] - 2;
          for (const len of [0, 1, max]) {
            const pt = new Uint8Array(len).map((_, i) => i);
            const ct = await signer.rsaOaepEncrypt(key, hash, pt);
            expect(ct.length).toBe(256);
            expect(await verifier.rsaOaepDecrypt(key, hash, ct), `${hash} ${len}`).toEqual(pt);
            await expect(verifier.rsaOaepDecrypt(key, hash, flip(ct, 100))).rejects.toThrow(
              RsaDecryptionError,
            );
            await expect(
              verifier.rsaOaepDecrypt(key, hash === 'sha1' ? 'sha256' : 'sha1', ct),
            ).rejects.toThrow(RsaDecryptionError);
          }
          await expect(signer.rsaOaepEncrypt(key, hash, new Uint8Array(max + 1))).rejects.toThrow(
            RangeError,
          );
        }
        await expect(verifier.rsaOaepDecrypt(key, 'sha256', new Uint8Array(255))).rejects.toThrow(
          RsaDecryptionError,
        );
        await expect(
          verifier.rsaOaepDecrypt(key, 'sha256', new Uint8Array(256).fill(0xff)),
        ).rejects.toThrow(RsaDecryptionError);
      });
    });
  }
}

interface EcFixture {
  input_b64: string;
  keys: Array<{
    curve: string;
    x_hex: string;
    y_hex: string;
    d_hex: string;
    public_key_pem: string;
    signature_der_hex: string;
    signature_jws_form: string;
    s_is_high: boolean;
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
const CURVE_OF: Record<string, EcCurve> = { 'P-256': 'p256', 'P-384': 'p384', 'P-521': 'p521' };
const vaultSig = (s: string): Uint8Array => fromB64(s.replace(/^vault:v1:/, ''));

for (const [name, b] of BACKENDS) {
  describe(`fixtures and bounds [${name}]`, () => {
    it('ecdsa-fixed-keys.json: OpenSSL signatures (high-S included) verify, DER and JWS', async () => {
      const fx = loadFixture<EcFixture>('ecdsa-fixed-keys');
      const input = fromB64(fx.input_b64);
      for (const k of fx.keys) {
        const curve = CURVE_OF[k.curve];
        if (curve === undefined) throw new Error(`unknown curve ${k.curve}`);
        const key = {
          curve,
          x: BigInt(`0x${k.x_hex}`),
          y: BigInt(`0x${k.y_hex}`),
          d: BigInt(`0x${k.d_hex}`),
        };
        const pub = decodePublicKeyPem(k.public_key_pem);
        expect(pub).toEqual({ type: 'ec', key: { curve, x: key.x, y: key.y } });
        const der = fromHex(k.signature_der_hex);
        const jws = new Uint8Array(
          Buffer.from(k.signature_jws_form.replace(/^vault:v1:/, ''), 'base64url'),
        );
        for (const data of [{ message: input }, { digest: digest('sha256', input) }]) {
          expect(
            await b.ecdsaVerify(pub.key as typeof key, 'sha256', data, der, 'der'),
            k.curve,
          ).toBe(true);
          expect(await b.ecdsaVerify(key, 'sha256', data, jws, 'p1363')).toBe(true);
        }
        expect(await b.ecdsaVerify(key, 'sha384', { message: input }, der, 'der')).toBe(false);
        const mine = await b.ecdsaSign(key, 'sha256', { message: input }, 'der');
        for (const [, other] of BACKENDS)
          expect(await other.ecdsaVerify(key, 'sha256', { message: input }, mine, 'der')).toBe(
            true,
          );
      }
    });

    it('prehashed-none.json: deterministic PKCS#1 signatures reproduce exactly', async () => {
      const fx = loadFixture<NoneFixture>('prehashed-none');
      const parsed = decodePkcs8PrivateKey(fromB64(fx.computed_example.key_pkcs8_der_b64));
      if (parsed.type !== 'rsa') throw new Error('expected RSA');
      const input = fromB64(fx.input_b64);
      const none = await b.rsaSignPkcs1(parsed.key, 'none', { digest: input });
      expect(none).toEqual(vaultSig(fx.computed_example.signature_hash_none));
      const pre = await b.rsaSignPkcs1(parsed.key, 'sha256', { digest: input });
      expect(pre).toEqual(vaultSig(fx.computed_example.signature_prehashed_sha2_256));
      expect(await b.rsaVerifyPkcs1(parsed.key, 'none', { digest: input }, none)).toBe(true);
      expect(await b.rsaVerifyPkcs1(parsed.key, 'sha256', { digest: input }, none)).toBe(false);
      expect(await b.rsaVerifyPkcs1(parsed.key, 'sha256', { digest: input }, pre)).toBe(true);
    });

    it('RSA-PSS salt bounds: max = ceil((bits-1)/8) - 2 - hashLen signs; max+1 is refused', async () => {
      const keys: Array<readonly [number, RsaPrivateKey]> = [
        [2048, await rsaKey(b, 2048)],
        [3072, wycheproofRsa(3072)],
        [4096, wycheproofRsa(4096)],
      ];
      for (const [bits, key] of keys) {
        for (const hash of ['sha256', 'sha512'] as const) {
          const max = Math.ceil((bits - 1) / 8) - 2 - digest(hash, MSG).length;
          expect(pssMaxSaltLength(key.n, hash)).toBe(max);
          for (const data of [{ message: MSG }, { digest: digest(hash, MSG) }]) {
            const sig = await b.rsaSignPss(key, hash, data, max);
            expect(await b.rsaVerifyPss(key, hash, data, sig, max)).toBe(true);
            expect(await b.rsaVerifyPss(key, hash, data, sig, 'auto')).toBe(true);
            await expect(b.rsaSignPss(key, hash, data, max + 1)).rejects.toThrow(RangeError);
            expect(await b.rsaVerifyPss(key, hash, data, sig, max + 1)).toBe(false);
          }
        }
      }
      const key = await rsaKey(b, 2048);
      await expect(b.rsaSignPss(key, 'sha256', { message: MSG }, -1)).rejects.toThrow(RangeError);
      await expect(b.rsaSignPss(key, 'sha256', { message: MSG }, 1.5)).rejects.toThrow(RangeError);
      await expect(
        b.rsaVerifyPss(key, 'sha256', { message: MSG }, new Uint8Array(256), -2),
      ).rejects.toThrow(RangeError);
    });
  });
}

describe('bad inputs', () => {
  it('throw the same error class and message on every backend', async () => {
    const [, keySource] = BACKENDS[0] as readonly [string, AsymmetricBackend];
    const ec = await ecKey(keySource, 'p256');
    const rsa = await rsaKey(keySource, 2048);
    const cases: Array<
      readonly [string, (b: AsymmetricBackend) => Promise<unknown>, ErrorConstructor]
    > = [
      ['none+message', (b) => b.ecdsaSign(ec, 'none', { message: MSG }, 'der'), RangeError],
      [
        'none+message rsa',
        (b) => b.rsaVerifyPkcs1(rsa, 'none', { message: MSG }, new Uint8Array(256)),
        RangeError,
      ],
      ['unknown hash', (b) => b.rsaSignPkcs1(rsa, 'md5' as HashName, { message: MSG }), RangeError],
      [
        'digest length',
        (b) => b.rsaSignPss(rsa, 'sha256', { digest: new Uint8Array(31) }, 32),
        RangeError,
      ],
      [
        'both',
        (b) =>
          b.rsaSignPkcs1(rsa, 'sha256', { message: MSG, digest: MSG } as unknown as SignedData),
        TypeError,
      ],
      ['neither', (b) => b.ecdsaVerify(ec, 'sha256', {} as SignedData, MSG, 'der'), TypeError],
      ['not bytes', (b) => b.ed25519Verify('x' as unknown as Uint8Array, MSG, MSG), TypeError],
      ['curve', (b) => b.generateEc('p224' as EcCurve), RangeError],
      ['rsa bits', (b) => b.generateRsa(1024 as 2048), RangeError],
      [
        'ecdsa format',
        (b) => b.ecdsaSign(ec, 'sha256', { message: MSG }, 'jws' as 'der'),
        RangeError,
      ],
      ['oaep hash', (b) => b.rsaOaepEncrypt(rsa, 'sha3-256' as OaepHash, MSG), RangeError],
      ['oaep too long', (b) => b.rsaOaepEncrypt(rsa, 'sha256', new Uint8Array(191)), RangeError],
      ['pss salt', (b) => b.rsaSignPss(rsa, 'sha256', { message: MSG }, 223), RangeError],
      ['seed', (b) => b.ed25519Sign({ seed: new Uint8Array(31) }, MSG), RangeError],
    ];
    for (const [what, run, cls] of cases) {
      const errors: unknown[] = [];
      for (const [, b] of BACKENDS)
        errors.push(
          await run(b).then(
            () => undefined,
            (e: unknown) => e,
          ),
        );
      for (const e of errors) expect(e, what).toBeInstanceOf(cls);
      const messages = errors.map((e) => (e as Error).message);
      expect(new Set(messages).size, `${what}: ${messages.join(' | ')}`).toBe(1);
    }
  });
});
