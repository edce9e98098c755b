/**
 * Cross-backend tests of the asymmetric layer: what one backend signs or
 * encrypts, the other verifies or decrypts, for every key type and option;
 * deterministic operations (Ed25519, PKCS#1 v1.5) give identical bytes.
 * Fixtures, PSS salt bounds and bad inputs are in asymmetric-fixtures.test.ts.
 */

import { describe, expect, it } from 'vitest';
import {
  type EcCurve,
  type EcdsaSignatureFormat,
  type OaepHash,
  RsaDecryptionError,
} from '../../src/crypto/asymmetric-backend.js';
import { pssMaxSaltLength } from '../../src/crypto/asymmetric-checks.js';
import type { HashName } from '../../src/crypto/backend.js';
import { BACKENDS, both, digest, ecKey, edKey, MSG, rsaKey } from './asymmetric-helpers.js';

const flip = (b: Uint8Array, i = 0): Uint8Array => {
  const c = b.slice();
  c[i] = (c[i] ?? 0) ^ 1;
  return c;
};

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
