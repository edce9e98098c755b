/**
 * RSA on node:crypto (OpenSSL), for the node backend.
 *
 * | operation                 | OpenSSL one-pass (`crypto.sign`/`verify`, threadpool for sign) | digest input (Vault `prehashed`)                        |
 * |---------------------------|-----------------------------------------------------------------|---------------------------------------------------------|
 * | PSS sign / verify         | `{ message }`, any hash, exact or `auto` salt                   | `../rsa-padding.ts` EMSA-PSS + `RSA_NO_PADDING`         |
 * | PKCS#1 v1.5 sign / verify | `{ message }`, any hash                                         | EMSA-PKCS1-v1_5 (DigestInfo or `none`) + `RSA_NO_PADDING` |
 * | OAEP                      | `publicEncrypt`/`privateDecrypt` with `oaepHash`                | —                                                       |
 *
 * node cannot sign a precomputed digest (it always hashes), so the digest
 * path encodes the block itself and lets OpenSSL do only the RSA operation
 * (`privateEncrypt`/`publicDecrypt` with `RSA_NO_PADDING`: blinded, CRT,
 * constant-time in OpenSSL). The encodings are shared with the noble backend.
 *
 * @module
 */
import {
  constants,
  generateKeyPair,
  type KeyObject,
  privateDecrypt,
  privateEncrypt,
  publicDecrypt,
  publicEncrypt,
  randomBytes,
  type SignKeyObjectInput,
  sign,
  verify,
} from 'node:crypto';
import {
  type OaepHash,
  RsaDecryptionError,
  type RsaModulusBits,
  type RsaPrivateKey,
  type RsaPublicKey,
  type SignatureHash,
  type SignedData,
} from '../asymmetric-backend.js';
import {
  assertBytes,
  bitLength,
  checkOaepHash,
  checkOaepPlaintext,
  checkRsaBits,
  checkSignSalt,
  modulusBytes,
  resolveData,
  verifySaltFits,
} from '../asymmetric-checks.js';
import type { HashName } from '../backend.js';
import { rsaFromKeyObject, rsaPrivateKeyObject, rsaPublicKeyObject } from './asym-keys.js';
import { ownedBytes } from './bytes.js';

/**
 * The EMSA encodings of a caller's digest (`../rsa-padding.ts`), loaded on the
 * first such call: PKCS#1 v1.5 brings the ASN.1 library (DigestInfo), which
 * importing the package on Node should not load for every application.
 */
const padding = (): Promise<typeof import('../rsa-padding.js')> => import('../rsa-padding.js');

const {
  RSA_NO_PADDING,
  RSA_PKCS1_PADDING,
  RSA_PKCS1_PSS_PADDING,
  RSA_PKCS1_OAEP_PADDING,
  RSA_PSS_SALTLEN_AUTO,
} = constants;

/** `crypto.sign` in the libuv threadpool (RSA private operations take ms). */
function signAsync(hash: HashName, data: Uint8Array, key: SignKeyObjectInput): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    sign(hash, data, key, (err, sig) => (err ? reject(err) : resolve(ownedBytes(sig))));
  });
}

/** RSASP1 on an encoded `k`-byte block (OpenSSL, no padding). */
function signBlock(key: RsaPrivateKey, em: Uint8Array): Uint8Array {
  return ownedBytes(privateEncrypt({ key: rsaPrivateKeyObject(key), padding: RSA_NO_PADDING }, em));
}

/** RSAVP1 on a `k`-byte signature; `undefined` when out of range. */
function openBlock(key: RsaPublicKey, signature: Uint8Array): Uint8Array | undefined {
  try {
    return ownedBytes(
      publicDecrypt({ key: rsaPublicKeyObject(key), padding: RSA_NO_PADDING }, signature),
    );
  } catch {
    return undefined;
  }
}

/** @internal */
export async function nodeGenerateRsa(bits: RsaModulusBits): Promise<RsaPrivateKey> {
  checkRsaBits(bits);
  return new Promise((resolve, reject) => {
    generateKeyPair(
      'rsa',
      { modulusLength: bits, publicExponent: 0x10001 },
      (err, _pub: KeyObject, priv: KeyObject) =>
        err ? reject(err) : resolve(rsaFromKeyObject(priv)),
    );
  });
}

/** @internal */
export async function nodeRsaSignPss(
  key: RsaPrivateKey,
  hash: HashName,
  data: SignedData,
  saltLength: number,
): Promise<Uint8Array> {
  const d = resolveData(hash, data, false, true);
  checkSignSalt(key.n, hash, saltLength);
  if (d.kind === 'message') {
    return signAsync(hash, d.bytes, {
      key: rsaPrivateKeyObject(key),
      padding: RSA_PKCS1_PSS_PADDING,
      saltLength,
    });
  }
  const { emsaPssEncode } = await padding();
  return signBlock(
    key,
    emsaPssEncode(hash, d.bytes, bitLength(key.n), ownedBytes(randomBytes(saltLength))),
  );
}

/** @internal */
export async function nodeRsaVerifyPss(
  key: RsaPublicKey,
  hash: HashName,
  data: SignedData,
  signature: Uint8Array,
  saltLength: number | 'auto',
): Promise<boolean> {
  const d = resolveData(hash, data, false, true);
  assertBytes(signature, 'signature');
  if (!verifySaltFits(key.n, hash, saltLength) || signature.length !== modulusBytes(key.n))
    return false;
  if (d.kind === 'message') {
    const salt = saltLength === 'auto' ? RSA_PSS_SALTLEN_AUTO : saltLength;
    try {
      return verify(
        hash,
        d.bytes,
        { key: rsaPublicKeyObject(key), padding: RSA_PKCS1_PSS_PADDING, saltLength: salt },
        signature,
      );
    } catch {
      return false;
    }
  }
  const block = openBlock(key, signature);
  if (block === undefined) return false;
  const { emsaPssVerify } = await padding();
  return emsaPssVerify(hash, d.bytes, bitLength(key.n), block, saltLength);
}

/** @internal */
export async function nodeRsaSignPkcs1(
  key: RsaPrivateKey,
  hash: SignatureHash,
  data: SignedData,
): Promise<Uint8Array> {
  const d = resolveData(hash, data, true, true);
  if (d.kind === 'message' && hash !== 'none') {
    return signAsync(hash, d.bytes, { key: rsaPrivateKeyObject(key), padding: RSA_PKCS1_PADDING });
  }
  const { emsaPkcs1Encode } = await padding();
  return signBlock(key, emsaPkcs1Encode(hash, d.bytes, modulusBytes(key.n)));
}

/** @internal */
export async function nodeRsaVerifyPkcs1(
  key: RsaPublicKey,
  hash: SignatureHash,
  data: SignedData,
  signature: Uint8Array,
): Promise<boolean> {
  const d = resolveData(hash, data, true, true);
  assertBytes(signature, 'signature');
  const k = modulusBytes(key.n);
  if (signature.length !== k) return false;
  if (d.kind === 'message' && hash !== 'none') {
    try {
      return verify(
        hash,
        d.bytes,
        { key: rsaPublicKeyObject(key), padding: RSA_PKCS1_PADDING },
        signature,
      );
    } catch {
      return false;
    }
  }
  const block = openBlock(key, signature);
  if (block === undefined) return false;
  const { emsaPkcs1Verify } = await padding();
  return emsaPkcs1Verify(hash, d.bytes, k, block);
}

/** @internal */
export async function nodeRsaOaepEncrypt(
  key: RsaPublicKey,
  hash: OaepHash,
  plaintext: Uint8Array,
): Promise<Uint8Array> {
  checkOaepHash(hash);
  assertBytes(plaintext, 'plaintext');
  checkOaepPlaintext(key.n, hash, plaintext);
  return ownedBytes(
    publicEncrypt(
      { key: rsaPublicKeyObject(key), padding: RSA_PKCS1_OAEP_PADDING, oaepHash: hash },
      plaintext,
    ),
  );
}

/** @internal */
export async function nodeRsaOaepDecrypt(
  key: RsaPrivateKey,
  hash: OaepHash,
  ciphertext: Uint8Array,
): Promise<Uint8Array> {
  checkOaepHash(hash);
  assertBytes(ciphertext, 'ciphertext');
  const k = rsaPrivateKeyObject(key);
  try {
    return ownedBytes(
      privateDecrypt({ key: k, padding: RSA_PKCS1_OAEP_PADDING, oaepHash: hash }, ciphertext),
    );
  } catch {
    throw new RsaDecryptionError();
  }
}
