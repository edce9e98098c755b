/**
 * The asymmetric key families (ECDSA, Ed25519, RSA) behind one interface, so
 * the engine dispatches on the registry row's `family` through a table and
 * never on a type name (style.md convention 1). Each family knows Vault's
 * framing for its keys: generation, the public key the read body shows,
 * signatures (hashing, `asn1`/`jws` marshaling, PSS salt rules), the export
 * strings of reference §8, and (RSA) OAEP encryption.
 *
 * Families throw `TransitError`s for a caller's mistakes; the crypto
 * backends' `RangeError`/`TypeError` are mapped by the caller.
 *
 * @module
 */
import type { CryptoBackend, HashName } from '../../crypto/backend.js';
import type { PrivateKeyMaterial, PublicKeyMaterial } from '../../crypto/pki/keys.js';
import { internal } from '../../errors.js';
import type { AsymmetricFamilyName, KeyTypeInfo } from '../key-types.js';
import type { KeyPolicy } from '../policy.js';
import { ecdsaFamily } from './ecdsa.js';
import { ed25519Family } from './ed25519.js';
import type { AsymmetricMaterial } from './material.js';
import { rsaFamily } from './rsa.js';

/** Export `format` (OpenBao): `''` native, `raw`, `der` (base64) or `pem`. @internal */
export type ExportFormat = '' | 'raw' | 'der' | 'pem';

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
}

/** A freshly generated version: its raw `key` (Ed25519 `seed ‖ pub`) and material. @internal */
export interface GeneratedKey {
  readonly key: Uint8Array;
  readonly material: AsymmetricMaterial;
}

/** One asymmetric family. @internal */
export interface AsymmetricFamily {
  /** A new key pair from the backend CSPRNG (RSA off the event loop). */
  generate(b: CryptoBackend, info: KeyTypeInfo): Promise<GeneratedKey>;
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
  /** The `public_key` of the read body (§9). */
  readPublicKey(m: AsymmetricMaterial): string;
  /** Sign `input` (hashed here unless `prehashed`); the raw signature bytes. */
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
  /** The neutral private key (CSR signing), or `undefined` when public-only. */
  privateKey(m: AsymmetricMaterial): PrivateKeyMaterial | undefined;
  /** The neutral public key (certificate matching). */
  publicKey(m: AsymmetricMaterial): PublicKeyMaterial;
  /** RSA-OAEP encryption (families that encrypt). */
  encrypt?(b: CryptoBackend, m: AsymmetricMaterial, plaintext: Uint8Array): Promise<Uint8Array>;
  /** RSA-OAEP decryption (families that encrypt). */
  decrypt?(b: CryptoBackend, m: AsymmetricMaterial, ciphertext: Uint8Array): Promise<Uint8Array>;
}

const FAMILIES: Readonly<Record<AsymmetricFamilyName, AsymmetricFamily>> = {
  ecdsa: ecdsaFamily,
  ed25519: ed25519Family,
  rsa: rsaFamily,
};

/**
 * The family of an asymmetric key type.
 * @throws TransitError `internal` for a symmetric type (a bug in the caller).
 * @internal
 */
export function familyOf(info: KeyTypeInfo): AsymmetricFamily {
  const f = info.asymmetric ? FAMILIES[info.family as AsymmetricFamilyName] : undefined;
  if (!f) throw internal(`key type ${info.name} is not asymmetric`);
  return f;
}
