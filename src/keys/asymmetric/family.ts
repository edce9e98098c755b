/**
 * The asymmetric key families (ECDSA, Ed25519, RSA): {@link KeyFamily}
 * extended with what only key pairs do — the public key the read body
 * shows, signatures (hashing, `asn1`/`jws` marshaling, PSS salt rules), the
 * export strings of reference §8, derived keys (Ed25519) and RSA-OAEP
 * (encryption, and the BYOK wrapping key). Each family is one file built
 * with `defineAsymmetricFamily` (`./define.ts`), which adds the members all
 * key pairs share; a registry row references it, and the engine reaches it
 * with {@link familyOf}, never by a type name (the key-type registry rule).
 *
 * Families throw `TransitError`s for a caller's mistakes; the crypto
 * backends' `RangeError`/`TypeError` are mapped by the caller.
 *
 * @module
 */
import type { RsaPrivateKey, RsaPublicKey } from '../../crypto/asymmetric-backend.js';
import type { CryptoBackend, HashName } from '../../crypto/backend.js';
import type { PrivateKeyMaterial, PublicKeyMaterial } from '../../crypto/pki/keys.js';
import { internal } from '../../errors.js';
import type { ExportFormat, KeyFamily } from '../families/family.js';
import type { KeyTypeInfo } from '../key-types.js';
import type { KeyPolicy } from '../policy.js';
import type { AsymmetricMaterial } from './material.js';

export type { ExportFormat, GeneratedKey } from '../families/family.js';

/** Resolved signing options (reference §5). @internal */
export interface SignOptions {
  /** The signature hash; `'none'` only with `prehashed` and PKCS#1 v1.5. */
  readonly hash: HashName | 'none';
  /** The input is already a digest (not hashed again). */
  readonly prehashed: boolean;
  /** RSA padding. */
  readonly signatureAlgorithm: 'pss' | 'pkcs1v15';
  /** PSS salt length with Go's meaning: 0 = auto, -1 = hash length, else bytes. */
  readonly saltLength: number;
  /** ECDSA encoding (`asn1` = DER, `jws` = fixed-width r ‖ s). */
  readonly marshaling: 'asn1' | 'jws';
  /** ML-DSA: the FIPS 204 context string (`signature_context`; ≤ 255 bytes). */
  readonly mlDsaContext?: Uint8Array;
  /** ML-DSA: deterministic signing (`rnd` = 0) instead of hedged (`deterministic`). */
  readonly deterministic?: boolean;
}

/** One asymmetric family. @internal */
export interface AsymmetricFamily extends KeyFamily {
  readonly asymmetric: true;
  readonly materialKind: AsymmetricMaterial['kind'];
  /**
   * The per-context key of a derived key (Ed25519 only; reference §2).
   * Absent for families that cannot derive.
   */
  derive?(
    b: CryptoBackend,
    p: KeyPolicy,
    key: Uint8Array,
    context: Uint8Array,
  ): Promise<AsymmetricMaterial>;
  /**
   * Takes the ML-DSA signing options (`signature_context`, `deterministic`);
   * other families refuse a request that sets them.
   */
  readonly signatureContext?: boolean;
  /** The `public_key` of the read body (§9). */
  readPublicKey(m: AsymmetricMaterial): string;
  /**
   * Sign `input` (hashed here unless `prehashed`); the raw signature bytes.
   * May throw (a `TransitError`, a backend's argument error) instead of
   * rejecting: the caller handles both.
   */
  sign(
    b: CryptoBackend,
    m: AsymmetricMaterial,
    input: Uint8Array,
    o: SignOptions,
  ): Promise<Uint8Array>;
  /**
   * Verify; false for a signature that does not verify.
   * @throws TransitError `invalid_request` for a malformed signature Vault rejects.
   */
  verify(
    b: CryptoBackend,
    m: AsymmetricMaterial,
    input: Uint8Array,
    signature: Uint8Array,
    o: SignOptions,
  ): Promise<boolean>;
  /** `signing-key` / `encryption-key` export string (`""` for a public-only version). */
  exportPrivate(m: AsymmetricMaterial, key: Uint8Array, format: ExportFormat): string;
  /** `public-key` export string. */
  exportPublic(m: AsymmetricMaterial, format: ExportFormat): string;
  /** The neutral private key (CSR signing, PKCS#8), or `undefined` when public-only. */
  privateKey(m: AsymmetricMaterial): PrivateKeyMaterial | undefined;
  /** The neutral public key (certificate matching, key-pair comparison). */
  publicKey(m: AsymmetricMaterial): PublicKeyMaterial;
  /** RSA-OAEP encryption (families that encrypt). */
  encrypt?(b: CryptoBackend, m: AsymmetricMaterial, plaintext: Uint8Array): Promise<Uint8Array>;
  /** RSA-OAEP decryption (families that encrypt). */
  decrypt?(b: CryptoBackend, m: AsymmetricMaterial, ciphertext: Uint8Array): Promise<Uint8Array>;
  /** The RSA public key an import blob is wrapped for (families that can be a BYOK destination). */
  wrappingPublicKey?(m: AsymmetricMaterial): RsaPublicKey;
  /** The RSA private key that unwraps an import blob (`undefined` when public-only). */
  wrappingPrivateKey?(m: AsymmetricMaterial): RsaPrivateKey | undefined;
}

/** The asymmetric family of a key type, or `undefined` for a symmetric one. @internal */
export const asymmetricFamilyOf = (info: KeyTypeInfo): AsymmetricFamily | undefined =>
  info.family.asymmetric ? (info.family as AsymmetricFamily) : undefined;

/**
 * The family of an asymmetric key type.
 * @throws TransitError `internal` for a symmetric type (a bug in the caller).
 * @internal
 */
export function familyOf(info: KeyTypeInfo): AsymmetricFamily {
  const f = asymmetricFamilyOf(info);
  if (!f) throw internal(`key type ${info.name} is not asymmetric`);
  return f;
}
