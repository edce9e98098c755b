/**
 * `defineAsymmetricFamily`: a family file gives what is its own (generation,
 * signatures, export strings, the stored-JSON and backup `KeyEntry` fields,
 * the conversion of an imported PKCS#8 / PKIX key) and gets the
 * {@link KeyFamily} members every key-pair family shares: no `key_size`,
 * importable, a restored version must hold material, PKCS#8 / PEM parsing
 * with Vault's prefixes and its "invalid key type" refusal, public-only
 * versions, byok-export as Go's `MarshalPKCS8PrivateKey`, the `public-key`
 * export and the read body's `public_key` (`""` for a derived key unless a
 * `context` derives it).
 * @module
 */
import type { CryptoBackend } from '../../crypto/backend.js';
import { decodePublicKeyPem, encodePkcs8PrivateKey } from '../../crypto/pki/keys.js';
import { decodePkcs8PrivateKey, type PrivateKeyMaterial } from '../../crypto/pki/pkcs8.js';
import type { PublicKeyMaterial } from '../../crypto/pki/spki.js';
import { invalidRequest, TransitError } from '../../errors.js';
import { type ImportedMaterial, INVALID_BACKUP, noKeySize } from '../families/family.js';
import type { KeyTypeInfo } from '../key-types.js';
import type { AsymmetricFamily } from './family.js';
import { requireMaterial } from './material.js';

/** The members {@link defineAsymmetricFamily} provides. */
type Shared =
  | 'asymmetric'
  | 'keySized'
  | 'importable'
  | 'policyKeySize'
  | 'restoreVersion'
  | 'importPrivate'
  | 'importPublic'
  | 'isPublicOnly'
  | 'byokMaterial'
  | 'exportKey'
  | 'exportPublicKey'
  | 'readBodyPublicKey';

/** What a key-pair family file writes. @internal */
export interface AsymmetricFamilySpec extends Omit<AsymmetricFamily, Shared> {
  /** The neutral key type (`crypto/pki`) of this family's imported keys. */
  readonly pkixType: PublicKeyMaterial['type'];
  /**
   * Version material of a parsed PKCS#8 key of the family's `pkixType`;
   * checks the row's curve or modulus (Vault's texts).
   */
  fromPrivateKey(
    b: CryptoBackend,
    info: KeyTypeInfo,
    m: PrivateKeyMaterial,
  ): Promise<ImportedMaterial>;
  /** Public-only version material of a parsed PKIX key of the family's `pkixType`. */
  fromPublicKey(info: KeyTypeInfo, m: PublicKeyMaterial): ImportedMaterial;
}

/** Vault's names of a received key's kind (a new kind falls back to its neutral type). */
const KIND_NAME: Readonly<Partial<Record<PublicKeyMaterial['type'], string>>> = {
  ec: 'an EC key',
  rsa: 'an RSA key',
  ed25519: 'an Ed25519 key',
  'ml-dsa': 'an ML-DSA key',
};

/** Re-throw a codec's error with Vault's prefix (the codecs never quote bytes). */
function parsing<T>(prefix: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof TransitError) throw invalidRequest(`${prefix}: ${err.message}`);
    throw err;
  }
}

/** Build a key-pair family from its own members. @internal */
export function defineAsymmetricFamily(spec: AsymmetricFamilySpec): AsymmetricFamily {
  const checkKind = (info: KeyTypeInfo, m: PublicKeyMaterial | PrivateKeyMaterial): void => {
    if (m.type !== spec.pkixType) {
      const got = KIND_NAME[m.type] ?? `a ${m.type} key`;
      throw invalidRequest(`invalid key type: expected ${info.name}, got ${got}`);
    }
  };
  const shared: Pick<AsymmetricFamily, Shared> = {
    asymmetric: true,
    keySized: false,
    importable: true,
    policyKeySize: noKeySize,

    restoreVersion(info, v, _keySize, n) {
      if (!v.asymmetric) {
        throw invalidRequest(
          `${INVALID_BACKUP}: key version ${n} has no ${info.name} key material`,
        );
      }
      return v;
    },

    async importPrivate(b, info, bytes) {
      const m = parsing('error parsing asymmetric key', () => decodePkcs8PrivateKey(bytes));
      checkKind(info, m);
      return spec.fromPrivateKey(b, info, m);
    },

    importPublic(info, pem) {
      const m = parsing('error parsing public key', () => decodePublicKeyPem(pem));
      checkKind(info, m);
      return spec.fromPublicKey(info, m);
    },

    isPublicOnly: (v) => !!v.asymmetric && !spec.privateKey(v.asymmetric),

    byokMaterial(v) {
      const priv = v.asymmetric ? spec.privateKey(v.asymmetric) : undefined;
      return priv ? encodePkcs8PrivateKey(priv) : undefined;
    },

    exportKey: (v, format) => spec.exportPrivate(requireMaterial(v.asymmetric), v.key, format),

    // A derived Ed25519 key's stored public key belongs to the HKDF master
    // key, not to any key that signs; Vault returns it, we return "" as read does.
    exportPublicKey: (_info, p, v, format) =>
      p.derived ? '' : spec.exportPublic(requireMaterial(v.asymmetric), format),

    async readBodyPublicKey(b, p, v, context) {
      if (!p.derived) return spec.readPublicKey(requireMaterial(v.asymmetric));
      if (context.length === 0 || !spec.derive) return '';
      return spec.readPublicKey(await spec.derive(b, p, v.key, context));
    },
  };
  return { ...spec, ...shared };
}
