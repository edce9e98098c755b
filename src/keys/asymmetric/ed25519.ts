/**
 * The Ed25519 family, as Vault's keysutil does it (reference §2, §5, §6, §8):
 * - the version's `key` is Go's 64-byte private key `seed ‖ pub` and the
 *   stored `public_key` (our JSON and the backup `KeyEntry`) is base64 of
 *   the 32-byte public key; a public-only version has an empty `key`;
 * - pure Ed25519 over the raw input: `hash_algorithm` and `prehashed` are
 *   ignored (Vault 1.14);
 * - derived keys: HKDF-SHA256 over all 64 bytes, empty salt, the context as
 *   info; the first 32 output bytes are the per-context seed, so one context
 *   always gives the same key pair and signatures;
 * - export: base64 of the 64 bytes (`''`/`raw`), PKCS#8 and PKIX for
 *   `der`/`pem` (PEM trimmed); `""` for a public-only version;
 * - a restored seed must give the stored public key.
 * @module
 */
import { hkdfSha256 } from '../../crypto/kdf.js';
import { encodePkcs8PrivateKey, encodeSpki, pemEncode } from '../../crypto/pki/keys.js';
import { refuseSmallOrder } from '../../crypto/pki/spki.js';
import { concatBytes, encodeBase64, tryDecodeBase64 } from '../../encoding.js';
import { invalidRequest } from '../../errors.js';
import { MISSING_CONTEXT } from '../derive.js';
import { INVALID_BACKUP as WHAT } from '../families/family.js';
import { stringField } from '../go-json.js';
import { samePublicBytes as same } from '../vault-backup-entry.js';
import { keyOf, materialOf, trimPem } from './common.js';
import { defineAsymmetricFamily } from './define.js';
import { type AsymmetricMaterial, corrupt, type Ed25519Material } from './material.js';

const ed = (m: AsymmetricMaterial): Ed25519Material => materialOf(m, 'ed25519');
const empty = new Uint8Array(0);

/** @internal */
export const ed25519Family = defineAsymmetricFamily({
  name: 'ed25519',
  materialKind: 'ed25519',
  pkixType: 'ed25519',

  async generate(b) {
    const priv = await b.generateEd25519();
    const pub = await b.ed25519PublicKey(priv);
    return {
      key: concatBytes(priv.seed, pub),
      material: { kind: 'ed25519', public: pub, private: priv },
    };
  },

  async derive(b, p, key, context) {
    if (context.length === 0) throw invalidRequest(MISSING_CONTEXT);
    if (p.kdf !== 1 || key.length !== 64) {
      throw invalidRequest('key derivation is only supported for Ed25519 keys using HKDF-SHA256');
    }
    const seed = hkdfSha256(b, key, context, 32);
    const priv = { seed };
    return { kind: 'ed25519', public: await b.ed25519PublicKey(priv), private: priv };
  },

  readPublicKey: (m) => encodeBase64(ed(m).public),

  // Not `async`, as ECDSA's: the backend's promise is handed on as it is.
  sign(b, m, input) {
    const key = ed(m).private;
    if (!key) throw invalidRequest('requested version for signing does not contain a private part');
    return b.ed25519Sign(key, input);
  },

  verify: (b, m, input, signature) => b.ed25519Verify(ed(m).public, input, signature),

  exportPrivate(m, key, format) {
    const priv = ed(m).private;
    if (!priv || key.length === 0) return '';
    if (format === '' || format === 'raw') return encodeBase64(key);
    const der = encodePkcs8PrivateKey({ type: 'ed25519', key: priv });
    return format === 'der' ? encodeBase64(der) : trimPem(pemEncode(der, 'PRIVATE KEY'));
  },

  exportPublic(m, format) {
    const pub = ed(m).public;
    if (format === '' || format === 'raw') return encodeBase64(pub);
    const der = encodeSpki({ type: 'ed25519', key: pub });
    return format === 'der' ? encodeBase64(der) : trimPem(pemEncode(der, 'PUBLIC KEY'));
  },

  privateKey(m) {
    const key = ed(m).private;
    return key ? { type: 'ed25519', key } : undefined;
  },

  publicKey: (m) => ({ type: 'ed25519', key: ed(m).public }),

  materialToJson: (m) => ({ public_key: encodeBase64(ed(m).public) }),

  materialFromJson(o, _info, key) {
    const pub = typeof o.public_key === 'string' ? tryDecodeBase64(o.public_key) : undefined;
    if (pub?.length !== 32) corrupt('ed25519 public key');
    if (key.length === 0) return { kind: 'ed25519', public: pub };
    if (key.length !== 64) corrupt('ed25519 key');
    return { kind: 'ed25519', public: pub, private: { seed: key.subarray(0, 32) } };
  },

  entryFields: (m) => (m ? { public_key: encodeBase64(ed(m).public) } : {}),

  async decodeEntry(o, _info, key, derive) {
    const stored = stringField(o, 'public_key', WHAT);
    const storedPub = stored === '' ? undefined : tryDecodeBase64(stored);
    if (stored !== '' && storedPub?.length !== 32) {
      throw invalidRequest(`${WHAT}: 'public_key' is not a 32-byte Ed25519 key`);
    }
    if (!key) {
      if (!storedPub) throw invalidRequest(`${WHAT}: missing Ed25519 'key'`);
      // As import: a public key of small order would verify forgeries on OpenSSL.
      refuseSmallOrder(storedPub, WHAT);
      return { key: empty, asymmetric: { kind: 'ed25519', public: storedPub } };
    }
    if (key.length !== 64) throw invalidRequest(`${WHAT}: Ed25519 'key' must be 64 bytes`);
    const seed = key.slice(0, 32);
    const pub = await derive(seed);
    if (!same(pub, key.subarray(32)) || (storedPub && !same(pub, storedPub))) {
      throw invalidRequest(`${WHAT}: Ed25519 'key' does not match its public key`);
    }
    return { key, asymmetric: { kind: 'ed25519', public: pub, private: { seed } } };
  },

  async fromPrivateKey(b, _info, m) {
    const priv = keyOf(m, 'ed25519');
    const pub = await b.ed25519PublicKey(priv);
    return {
      key: concatBytes(priv.seed, pub),
      asymmetric: { kind: 'ed25519', public: pub, private: priv },
    };
  },

  fromPublicKey: (_info, m) => ({
    key: empty,
    asymmetric: { kind: 'ed25519', public: keyOf(m, 'ed25519') },
  }),
});
