/**
 * RSA for the noble backend: WebCrypto where it can express the operation,
 * otherwise the shared encodings (`../rsa-padding.ts`) on the blinded BigInt
 * RSA of `../rsa-raw.ts`.
 *
 * | operation                          | WebCrypto when                                 | raw path otherwise                      |
 * |------------------------------------|------------------------------------------------|-----------------------------------------|
 * | PSS sign / verify                  | `{ message }`, SHA-1/256/384/512, exact salt   | digests, SHA-224, SHA-3, verify `auto`  |
 * | PKCS#1 v1.5 sign / verify          | `{ message }`, SHA-1/256/384/512               | digests, `none`, SHA-224, SHA-3         |
 * | OAEP encrypt / decrypt             | SHA-1/256/384/512                              | SHA-224                                 |
 *
 * Verification on the raw path uses only the public exponent (no secret, no
 * blinding needed). No `node:` import.
 *
 * @module
 */
import { randomBytes } from '@noble/hashes/utils.js';
import {
  type OaepHash,
  RsaDecryptionError,
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
  checkSignSalt,
  HASH_SIZE,
  hashOf,
  modulusBytes,
  type ResolvedData,
  resolveData,
  verifySaltFits,
} from '../asymmetric-checks.js';
import type { HashName } from '../backend.js';
import {
  emeOaepDecode,
  emeOaepEncode,
  emsaPkcs1Encode,
  emsaPkcs1Verify,
  emsaPssEncode,
  emsaPssVerify,
} from '../rsa-padding.js';
import { rsaPrivateRaw, rsaPublicRaw } from '../rsa-raw.js';
import { importRsa, subtle, webHash } from './rsa-webcrypto.js';

/** The digest the raw path works on. */
function digestOf(hash: SignatureHash, d: ResolvedData): Uint8Array {
  return d.kind === 'digest' || hash === 'none' ? d.bytes : hashOf(hash, d.bytes);
}

/** Private raw operation on an encoded block that is always in range. */
function sign(key: RsaPrivateKey, em: Uint8Array): Uint8Array {
  const s = rsaPrivateRaw(key, em);
  if (s === undefined) throw new RangeError('encoded block out of range for the key');
  return s;
}

/** Bytes as a WebCrypto `BufferSource` (our inputs are never shared memory). */
const src = (b: Uint8Array): BufferSource => b as Uint8Array<ArrayBuffer>;

/** `Uint8Array` view of a WebCrypto result. */
const u8 = (buf: ArrayBuffer): Uint8Array => new Uint8Array(buf);

/** RSASSA-PSS sign. @internal */
export async function nobleRsaSignPss(
  key: RsaPrivateKey,
  hash: HashName,
  data: SignedData,
  saltLength: number,
): Promise<Uint8Array> {
  const d = resolveData(hash, data, false, true);
  checkSignSalt(key.n, hash, saltLength);
  const wh = webHash(hash);
  if (d.kind === 'message' && wh !== undefined) {
    const ck = await importRsa(key, 'RSA-PSS', wh, true);
    return u8(
      await (subtle() as SubtleCrypto).sign({ name: 'RSA-PSS', saltLength }, ck, src(d.bytes)),
    );
  }
  return sign(
    key,
    emsaPssEncode(hash, digestOf(hash, d), bitLength(key.n), randomBytes(saltLength)),
  );
}

/** RSASSA-PSS verify. @internal */
export async function nobleRsaVerifyPss(
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
  const wh = webHash(hash);
  if (d.kind === 'message' && wh !== undefined && saltLength !== 'auto') {
    const ck = await importRsa(key, 'RSA-PSS', wh, false);
    try {
      return await (subtle() as SubtleCrypto).verify(
        { name: 'RSA-PSS', saltLength },
        ck,
        src(signature),
        src(d.bytes),
      );
    } catch {
      return false;
    }
  }
  const block = rsaPublicRaw(key, signature);
  return (
    block !== undefined &&
    emsaPssVerify(hash, digestOf(hash, d), bitLength(key.n), block, saltLength)
  );
}

/** RSASSA-PKCS1-v1_5 sign. @internal */
export async function nobleRsaSignPkcs1(
  key: RsaPrivateKey,
  hash: SignatureHash,
  data: SignedData,
): Promise<Uint8Array> {
  const d = resolveData(hash, data, true, true);
  const wh = hash === 'none' ? undefined : webHash(hash);
  if (d.kind === 'message' && wh !== undefined) {
    const ck = await importRsa(key, 'RSASSA-PKCS1-v1_5', wh, true);
    return u8(await (subtle() as SubtleCrypto).sign('RSASSA-PKCS1-v1_5', ck, src(d.bytes)));
  }
  return sign(key, emsaPkcs1Encode(hash, digestOf(hash, d), modulusBytes(key.n)));
}

/** RSASSA-PKCS1-v1_5 verify (encode and compare). @internal */
export async function nobleRsaVerifyPkcs1(
  key: RsaPublicKey,
  hash: SignatureHash,
  data: SignedData,
  signature: Uint8Array,
): Promise<boolean> {
  const d = resolveData(hash, data, true, true);
  assertBytes(signature, 'signature');
  const k = modulusBytes(key.n);
  if (signature.length !== k) return false;
  const wh = hash === 'none' ? undefined : webHash(hash);
  if (d.kind === 'message' && wh !== undefined) {
    const ck = await importRsa(key, 'RSASSA-PKCS1-v1_5', wh, false);
    try {
      return await (subtle() as SubtleCrypto).verify(
        'RSASSA-PKCS1-v1_5',
        ck,
        src(signature),
        src(d.bytes),
      );
    } catch {
      return false;
    }
  }
  const block = rsaPublicRaw(key, signature);
  return block !== undefined && emsaPkcs1Verify(hash, digestOf(hash, d), k, block);
}

/** RSAES-OAEP encrypt. @internal */
export async function nobleRsaOaepEncrypt(
  key: RsaPublicKey,
  hash: OaepHash,
  plaintext: Uint8Array,
): Promise<Uint8Array> {
  checkOaepHash(hash);
  assertBytes(plaintext, 'plaintext');
  checkOaepPlaintext(key.n, hash, plaintext);
  const wh = webHash(hash);
  if (wh !== undefined) {
    const ck = await importRsa(key, 'RSA-OAEP', wh, false);
    return u8(await (subtle() as SubtleCrypto).encrypt({ name: 'RSA-OAEP' }, ck, src(plaintext)));
  }
  const em = emeOaepEncode(hash, plaintext, modulusBytes(key.n), randomBytes(HASH_SIZE[hash]));
  const c = rsaPublicRaw(key, em);
  if (c === undefined) throw new RangeError('encoded block out of range for the key');
  return c;
}

/**
 * RSAES-OAEP decrypt on the raw path (blinded BigInt + constant-flow decode).
 * Exported for the Wycheproof suite, which runs it on every OAEP vector.
 * @throws RsaDecryptionError for any ciphertext that does not decrypt.
 * @internal
 */
export function rsaOaepDecryptRaw(
  key: RsaPrivateKey,
  hash: OaepHash,
  ciphertext: Uint8Array,
): Uint8Array {
  const block = rsaPrivateRaw(key, ciphertext);
  const m = block === undefined ? undefined : emeOaepDecode(hash, block);
  if (m === undefined) throw new RsaDecryptionError();
  return m;
}

/**
 * A ciphertext shorter than the modulus, left-padded with zeros: the integer
 * is the same, and OpenSSL (the node backend) and Go's `DecryptOAEP` read it
 * so, where WebCrypto in browsers and the raw path want exactly k bytes. A
 * longer one is left to be refused.
 */
function toModulusLength(key: RsaPrivateKey, ciphertext: Uint8Array): Uint8Array {
  const k = modulusBytes(key.n);
  if (ciphertext.length >= k) return ciphertext;
  const full = new Uint8Array(k);
  full.set(ciphertext, k - ciphertext.length);
  return full;
}

/** RSAES-OAEP decrypt. @internal */
export async function nobleRsaOaepDecrypt(
  key: RsaPrivateKey,
  hash: OaepHash,
  ciphertext: Uint8Array,
): Promise<Uint8Array> {
  checkOaepHash(hash);
  assertBytes(ciphertext, 'ciphertext');
  const full = toModulusLength(key, ciphertext);
  const wh = webHash(hash);
  if (wh === undefined) return rsaOaepDecryptRaw(key, hash, full);
  const ck = await importRsa(key, 'RSA-OAEP', wh, true);
  try {
    return u8(await (subtle() as SubtleCrypto).decrypt({ name: 'RSA-OAEP' }, ck, src(full)));
  } catch {
    throw new RsaDecryptionError();
  }
}
