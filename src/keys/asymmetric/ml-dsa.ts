/**
 * The ML-DSA family (FIPS 204): key types `mldsa-44`, `mldsa-65`, `mldsa-87`,
 * one registry row per parameter set (`mlDsaLevel` on the row). The crypto
 * is `../../crypto/ml-dsa.ts` (`@noble/post-quantum` on every backend), the
 * encodings RFC 9881 (`../../crypto/pki/ml-dsa.ts`).
 *
 * - **At rest:** the version's `key` is the 32-byte seed ξ (the private key;
 *   the expanded key is derived when loaded), and the stored `public_key`
 *   (our JSON and the backup `KeyEntry`) is base64 of the encoded `pk`. A
 *   public-only version (public-key import) has an empty `key`.
 * - **Signatures:** pure ML-DSA over the input with the FIPS 204 context
 *   string of the request's `signature_context` (empty by default), hedged
 *   unless `deterministic`; with `prehashed=true` the input is the 64-byte
 *   external μ (FIPS 204 Algorithm 7 line 6, AWS KMS `EXTERNAL_MU`), and a
 *   context is refused (μ already binds it). `hash_algorithm`,
 *   `signature_algorithm` and `salt_length` do not apply and are ignored
 *   once validated, as for Ed25519 (`hash_algorithm=none` is refused by the
 *   common rule); `marshaling_algorithm=jws` only selects URL-safe base64.
 * - **Export:** `signing-key`: `''`/`pem` PKCS#8 PEM in RFC 9881's seed-only
 *   form, `der` its base64, `raw` base64 of the seed; `public-key`:
 *   `''`/`pem` SPKI PEM, `der` its base64, `raw` base64 of `pk`. The read
 *   body's `public_key` is the SPKI PEM.
 * - **Import:** PKCS#8 in the seed or `both` form (the expanded key must be
 *   the seed's); the expanded-only form is refused (no seed to store). A
 *   public key (SPKI PEM) gives a verify-only version.
 * - Not derivable, no encryption, no HMAC with the key (rows' flags).
 * @module
 */
import {
  type MlDsaPrivateKey,
  mlDsaGenerate,
  mlDsaPublicKey,
  mlDsaSign,
  mlDsaVerify,
} from '../../crypto/ml-dsa.js';
import { encodePkcs8PrivateKey, encodeSpki, pemEncode } from '../../crypto/pki/keys.js';
import { checkMlDsaPublic } from '../../crypto/pki/ml-dsa.js';
import { encodeBase64, tryDecodeBase64 } from '../../encoding.js';
import { internal, invalidRequest } from '../../errors.js';
import { type ExportFormat, INVALID_BACKUP as WHAT } from '../families/family.js';
import { stringField } from '../go-json.js';
import type { KeyTypeInfo } from '../key-types.js';
import { samePublicBytes as same } from '../vault-backup-entry.js';
import { keyOf, materialOf, trimPem } from './common.js';
import { defineAsymmetricFamily } from './define.js';
import { type AsymmetricMaterial, corrupt, type MlDsaMaterial } from './material.js';

const ml = (m: AsymmetricMaterial): MlDsaMaterial => materialOf(m, 'ml-dsa');
const empty = new Uint8Array(0);

/** The row's parameter set. */
function levelOf(info: KeyTypeInfo) {
  if (info.mlDsaLevel === undefined) throw internal(`key type ${info.name} has no ML-DSA level`);
  return info.mlDsaLevel;
}

/** A seed's material, checked against the row. */
function fromSeed(info: KeyTypeInfo, seed: Uint8Array): MlDsaMaterial {
  const priv: MlDsaPrivateKey = { level: levelOf(info), seed };
  return { kind: 'ml-dsa', public: mlDsaPublicKey(priv), private: priv };
}

function wrongSet(info: KeyTypeInfo, level: number): never {
  throw invalidRequest(`invalid key type: expected ${info.name}, got an ML-DSA-${level} key`);
}

/** An export string of DER (`pem`/`''` PEM, `der` base64) or raw bytes (`raw`). */
function exportString(
  format: ExportFormat,
  raw: Uint8Array,
  der: () => Uint8Array,
  label: 'PRIVATE KEY' | 'PUBLIC KEY',
): string {
  if (format === 'raw') return encodeBase64(raw);
  const d = der();
  return format === 'der' ? encodeBase64(d) : trimPem(pemEncode(d, label));
}

/** @internal */
export const mlDsaFamily = defineAsymmetricFamily({
  name: 'ml-dsa',
  materialKind: 'ml-dsa',
  pkixType: 'ml-dsa',
  signatureContext: true,

  async generate(b, info) {
    const priv = mlDsaGenerate(levelOf(info), (n) => b.randomBytes(n));
    return {
      key: priv.seed,
      material: { kind: 'ml-dsa', public: mlDsaPublicKey(priv), private: priv },
    };
  },

  readPublicKey: (m) => pemEncode(encodeSpki({ type: 'ml-dsa', key: ml(m).public }), 'PUBLIC KEY'),

  async sign(_b, m, input, o) {
    const key = ml(m).private;
    if (!key) throw invalidRequest('requested version for signing does not contain a private part');
    return mlDsaSign(key, input, {
      context: o.mlDsaContext,
      deterministic: o.deterministic,
      externalMu: o.prehashed,
    });
  },

  async verify(_b, m, input, signature, o) {
    return mlDsaVerify(ml(m).public, input, signature, {
      context: o.mlDsaContext,
      externalMu: o.prehashed,
    });
  },

  exportPrivate(m, key, format) {
    const priv = ml(m).private;
    if (!priv || key.length === 0) return '';
    return exportString(
      format,
      priv.seed,
      () => encodePkcs8PrivateKey({ type: 'ml-dsa', key: priv }),
      'PRIVATE KEY',
    );
  },

  exportPublic(m, format) {
    const pub = ml(m).public;
    return exportString(
      format,
      pub.key,
      () => encodeSpki({ type: 'ml-dsa', key: pub }),
      'PUBLIC KEY',
    );
  },

  privateKey(m) {
    const key = ml(m).private;
    return key ? { type: 'ml-dsa', key } : undefined;
  },

  publicKey: (m) => ({ type: 'ml-dsa', key: ml(m).public }),

  materialToJson: (m) => ({ public_key: encodeBase64(ml(m).public.key) }),

  materialFromJson(o, info, key) {
    const level = levelOf(info);
    const pub = typeof o.public_key === 'string' ? tryDecodeBase64(o.public_key) : undefined;
    if (!pub) corrupt('ml-dsa public key');
    try {
      checkMlDsaPublic(level, pub, 'ml-dsa public key');
    } catch {
      corrupt('ml-dsa public key');
    }
    if (key.length === 0) return { kind: 'ml-dsa', public: { level, key: pub } };
    if (key.length !== 32) corrupt('ml-dsa seed');
    return { kind: 'ml-dsa', public: { level, key: pub }, private: { level, seed: key } };
  },

  entryFields: (m) => (m ? { public_key: encodeBase64(ml(m).public.key) } : {}),

  async decodeEntry(o, info, key) {
    const level = levelOf(info);
    const stored = stringField(o, 'public_key', WHAT);
    const storedPub = stored === '' ? undefined : tryDecodeBase64(stored);
    if (stored !== '' && !storedPub) throw invalidRequest(`${WHAT}: 'public_key' is not base64`);
    if (storedPub) checkMlDsaPublic(level, storedPub, WHAT);
    if (!key) {
      if (!storedPub) throw invalidRequest(`${WHAT}: missing ML-DSA 'key'`);
      return { key: empty, asymmetric: { kind: 'ml-dsa', public: { level, key: storedPub } } };
    }
    if (key.length !== 32) throw invalidRequest(`${WHAT}: ML-DSA 'key' must be the 32-byte seed`);
    const m = fromSeed(info, key.slice());
    if (storedPub && !same(m.public.key, storedPub)) {
      throw invalidRequest(`${WHAT}: ML-DSA 'key' does not match its public key`);
    }
    return { key: key.slice(), asymmetric: m };
  },

  async fromPrivateKey(_b, info, m) {
    const priv = keyOf(m, 'ml-dsa');
    if (priv.level !== levelOf(info)) wrongSet(info, priv.level);
    return { key: priv.seed, asymmetric: fromSeed(info, priv.seed) };
  },

  fromPublicKey(info, m) {
    const pub = keyOf(m, 'ml-dsa');
    if (pub.level !== levelOf(info)) wrongSet(info, pub.level);
    return { key: empty, asymmetric: { kind: 'ml-dsa', public: pub } };
  },
});
