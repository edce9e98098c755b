/**
 * The asymmetric layer on every backend against the transit fixtures (fixed
 * ECDSA keys with OpenSSL signatures, the prehashed `none` PKCS#1 vector),
 * PSS salt bounds, and bad inputs that must fail alike on every backend.
 */

import { describe, expect, it } from 'vitest';
import type {
  AsymmetricBackend,
  EcCurve,
  OaepHash,
  RsaPrivateKey,
  SignedData,
} from '../../src/crypto/asymmetric-backend.js';
import { pssMaxSaltLength } from '../../src/crypto/asymmetric-checks.js';
import type { HashName } from '../../src/crypto/backend.js';
import { decodePkcs8PrivateKey, decodePublicKeyPem } from '../../src/crypto/pki/keys.js';
import {
  BACKENDS,
  digest,
  ecKey,
  fromB64,
  fromHex,
  loadFixture,
  MSG,
  rsaKey,
  wycheproofRsa,
} from './asymmetric-helpers.js';

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
