/**
 * The RSA family (`rsa-2048`, `rsa-3072`, `rsa-4096`), as Vault's keysutil
 * does it (reference §1, §5, §8):
 * - generation off the event loop (the backends' `generateRsa`), e = 65537;
 * - signatures: PSS (default) with MGF1 on the same hash, or PKCS#1 v1.5 with
 *   DigestInfo; hash `none` (prehashed, PKCS#1 v1.5 only) pads the raw input
 *   without DigestInfo. PSS salt lengths use Go's numbers: 0 = auto (the
 *   maximum on sign, detected on verify), -1 = the hash length, else bytes,
 *   and must lie in −1 … ⌈(bits−1)/8⌉ − 2 − hashLen;
 * - encryption: RSA-OAEP, SHA-256 for both hash and MGF1, empty label. Every
 *   decryption failure gives one message (no padding oracle);
 * - export: PKCS#1 `RSA PRIVATE KEY` PEM and PKIX `PUBLIC KEY` PEM, both with
 *   their trailing newline; PKCS#8 / PKIX for `der`/`pem`; no `raw` form;
 * - the BYOK wrapping key and byok-export destinations are RSA keys;
 * - import: the modulus size must be the row's (Vault's text).
 *
 * The stored forms and the backup `KeyEntry` codec are `./rsa-codec.ts`.
 * @module
 */
import { RsaDecryptionError } from '../../crypto/asymmetric-backend.js';
import { HASH_SIZE, pssMaxSaltLength } from '../../crypto/asymmetric-checks.js';
import type { HashName } from '../../crypto/backend.js';
import {
  encodePkcs1PrivateKey,
  encodePkcs8PrivateKey,
  encodeSpki,
  pemEncode,
} from '../../crypto/pki/keys.js';
import { encodeBase64 } from '../../encoding.js';
import { internal, invalidRequest } from '../../errors.js';
import type { KeyTypeInfo } from '../key-types.js';
import { keyOf, materialOf, refuseRaw, signedData } from './common.js';
import { defineAsymmetricFamily } from './define.js';
import type { SignOptions } from './family.js';
import type { AsymmetricMaterial, RsaMaterial } from './material.js';
import { rsaEntryFields, rsaFromEntry, rsaFromJson, rsaToJson } from './rsa-codec.js';

const rsa = (m: AsymmetricMaterial): RsaMaterial => materialOf(m, 'rsa');
const empty = new Uint8Array(0);

const OAEP_HASH = 'sha256';

const spkiPem = (m: RsaMaterial): string =>
  pemEncode(encodeSpki({ type: 'rsa', key: { n: m.public.n, e: m.public.e } }), 'PUBLIC KEY');

/** The PSS hash and the checked Go salt length. */
function pssParams(n: bigint, o: SignOptions): { hash: HashName; salt: number } {
  if (o.hash === 'none')
    throw invalidRequest('hash_algorithm=none requires signature_algorithm=pkcs1v15');
  const max = pssMaxSaltLength(n, o.hash);
  if (o.saltLength < -1 || o.saltLength > max) {
    throw invalidRequest(`requested salt length ${o.saltLength} is invalid`);
  }
  return { hash: o.hash, salt: o.saltLength };
}

/** The row's modulus size. */
function bitsOf(info: KeyTypeInfo): number {
  if (!info.rsaBits) throw internal(`key type ${info.name} has no modulus size`);
  return info.rsaBits;
}

/** Refuse an imported key of another modulus size than the row's. */
function checkSize(info: KeyTypeInfo, n: bigint): void {
  const want = bitsOf(info) / 8;
  const got = Math.ceil(n.toString(2).length / 8);
  if (got !== want) {
    throw invalidRequest(`invalid key size: expected ${want} bytes, got ${got} bytes`);
  }
}

/** @internal */
export const rsaFamily = defineAsymmetricFamily({
  name: 'rsa',
  materialKind: 'rsa',
  pkixType: 'rsa',

  async generate(b, info) {
    if (!info.rsaBits) throw internal(`key type ${info.name} has no modulus size`);
    const key = await b.generateRsa(info.rsaBits);
    return { key: empty, material: { kind: 'rsa', public: key, private: key } };
  },

  readPublicKey: (m) => spkiPem(rsa(m)),

  async sign(b, m, input, o) {
    const key = rsa(m).private;
    if (!key) throw invalidRequest('requested version for signing does not contain a private part');
    const data = signedData(input, o.prehashed);
    if (o.signatureAlgorithm === 'pkcs1v15') return b.rsaSignPkcs1(key, o.hash, data);
    const { hash, salt } = pssParams(key.n, o);
    const bytes = salt === 0 ? pssMaxSaltLength(key.n, hash) : salt === -1 ? HASH_SIZE[hash] : salt;
    return b.rsaSignPss(key, hash, data, bytes);
  },

  async verify(b, m, input, signature, o) {
    const key = rsa(m).public;
    const data = signedData(input, o.prehashed);
    if (o.signatureAlgorithm === 'pkcs1v15') return b.rsaVerifyPkcs1(key, o.hash, data, signature);
    const { hash, salt } = pssParams(key.n, o);
    const bytes = salt === 0 ? 'auto' : salt === -1 ? HASH_SIZE[hash] : salt;
    return b.rsaVerifyPss(key, hash, data, signature, bytes);
  },

  exportPrivate(m, _key, format) {
    refuseRaw(format, 'rsa');
    const key = rsa(m).private;
    if (!key) return '';
    if (format === '') return pemEncode(encodePkcs1PrivateKey(key), 'RSA PRIVATE KEY');
    const der = encodePkcs8PrivateKey({ type: 'rsa', key });
    return format === 'der' ? encodeBase64(der) : pemEncode(der, 'PRIVATE KEY');
  },

  exportPublic(m, format) {
    refuseRaw(format, 'rsa');
    const r = rsa(m);
    if (format !== 'der') return spkiPem(r);
    return encodeBase64(encodeSpki({ type: 'rsa', key: { n: r.public.n, e: r.public.e } }));
  },

  privateKey(m) {
    const key = rsa(m).private;
    return key ? { type: 'rsa', key } : undefined;
  },

  publicKey(m) {
    const { n, e } = rsa(m).public;
    return { type: 'rsa', key: { n, e } };
  },

  async encrypt(b, m, plaintext) {
    try {
      return await b.rsaOaepEncrypt(rsa(m).public, OAEP_HASH, plaintext);
    } catch (err) {
      if (!(err instanceof RangeError)) throw err;
      throw invalidRequest(
        'failed to RSA encrypt the plaintext: crypto/rsa: message too long for RSA key size',
      );
    }
  },

  async decrypt(b, m, ciphertext) {
    const key = rsa(m).private;
    if (!key) throw invalidRequest('cannot decrypt ciphertext, no private key available');
    try {
      return await b.rsaOaepDecrypt(key, OAEP_HASH, ciphertext);
    } catch (err) {
      // One message for every cause (RsaDecryptionError, or a size the backend
      // refuses): a distinguishable failure would be a padding oracle.
      throw invalidRequest(
        'failed to RSA decrypt the ciphertext: crypto/rsa: decryption error',
        err instanceof RsaDecryptionError ? undefined : err,
      );
    }
  },

  wrappingPublicKey: (m) => rsa(m).public,
  wrappingPrivateKey: (m) => rsa(m).private,

  materialToJson: (m) => rsaToJson(rsa(m)),
  materialFromJson: (o) => rsaFromJson(o),
  entryFields: (m) => (m ? rsaEntryFields(rsa(m)) : {}),
  decodeEntry: async (o, info) => ({ key: empty, asymmetric: rsaFromEntry(o, bitsOf(info)) }),

  async fromPrivateKey(_b, info, m) {
    const key = keyOf(m, 'rsa');
    checkSize(info, key.n);
    return { key: empty, asymmetric: { kind: 'rsa', public: key, private: key } };
  },

  fromPublicKey(info, m) {
    const key = keyOf(m, 'rsa');
    checkSize(info, key.n);
    return { key: empty, asymmetric: { kind: 'rsa', public: key } };
  },
});
