/**
 * THE key-type registry: one row per Vault key type (style.md convention 1).
 *
 * A type name is resolved once, with {@link keyType}; code below takes the
 * resolved {@link KeyTypeInfo} and reads its flags. No other file switches on a
 * type name, so adding a type means adding a row.
 *
 * `vaultId` is Vault's integer for the type in policy/backup JSON
 * (reference §0.1: Vault's numbering is written; xchacha20 is written as 11
 * without `key_size`, the OpenBao form).
 *
 * Asymmetric rows (`ecdsa`, `ed25519`, `rsa` families) carry the curve or
 * modulus size and the name the read body shows (`P-256`, `ed25519`,
 * `rsa-2048`); their operations live in `./asymmetric/` and are found by
 * family, never by type name.
 *
 * @module
 */
import type { EcCurve, RsaModulusBits } from '../crypto/asymmetric-backend.js';
import type { AeadAlgorithm } from '../crypto/backend.js';
import { invalidRequest } from '../errors.js';

/**
 * Every key type transitkit knows.
 * @public
 */
export type KeyType =
  | 'aes128-gcm96'
  | 'aes256-gcm96'
  | 'chacha20-poly1305'
  | 'xchacha20-poly1305'
  | 'hmac'
  | 'ed25519'
  | 'ecdsa-p256'
  | 'ecdsa-p384'
  | 'ecdsa-p521'
  | 'rsa-2048'
  | 'rsa-3072'
  | 'rsa-4096';

/** The asymmetric key families. @internal */
export type AsymmetricFamilyName = 'ecdsa' | 'ed25519' | 'rsa';

/** What a key family is, for the engine's dispatch. @internal */
export type KeyFamily = 'aead' | 'hmac' | AsymmetricFamilyName;

/** One registry row. @internal */
export interface KeyTypeInfo {
  readonly name: KeyType;
  readonly vaultId: number;
  readonly family: KeyFamily;
  /** True for the `ecdsa`, `ed25519` and `rsa` families. */
  readonly asymmetric: boolean;
  /** AEAD cipher (family `aead`). */
  readonly aead?: AeadAlgorithm;
  /** Curve (family `ecdsa`). */
  readonly curve?: EcCurve;
  /** Modulus size (family `rsa`). */
  readonly rsaBits?: RsaModulusBits;
  /** The `name` of each version in the read body (`P-256`, `ed25519`, `rsa-2048`). */
  readonly publicKeyName?: string;
  /** Raw key length in bytes (0 = chosen at creation, e.g. hmac `key_size`, or none stored). */
  readonly keyBytes: number;
  /** Random nonce length in bytes (family `aead`). */
  readonly nonceBytes: number;
  readonly supportsEncryption: boolean;
  readonly supportsDecryption: boolean;
  readonly supportsDerivation: boolean;
  readonly supportsSigning: boolean;
  /** Accepts `associated_data`. */
  readonly supportsAssociatedData: boolean;
  /**
   * Whether encrypt may create a key of this type (upsert); when not, how
   * Vault words the refusal (`unknown key type` or `not supported for this operation`).
   */
  readonly upsert: 'allowed' | 'unsupported' | 'unknown';
}

const aead = (
  name: KeyType,
  vaultId: number,
  alg: AeadAlgorithm,
  keyBytes: number,
  nonceBytes: number,
): KeyTypeInfo => ({
  name,
  vaultId,
  family: 'aead',
  asymmetric: false,
  aead: alg,
  keyBytes,
  nonceBytes,
  supportsEncryption: true,
  supportsDecryption: true,
  supportsDerivation: true,
  supportsSigning: false,
  supportsAssociatedData: true,
  upsert: 'allowed',
});

/** Signing-only, non-derivable; encrypt-upsert refuses with "not supported for this operation". */
const ecdsa = (name: KeyType, vaultId: number, curve: EcCurve, publicKeyName: string) =>
  ({
    name,
    vaultId,
    family: 'ecdsa',
    asymmetric: true,
    curve,
    publicKeyName,
    keyBytes: 0,
    nonceBytes: 0,
    supportsEncryption: false,
    supportsDecryption: false,
    supportsDerivation: false,
    supportsSigning: true,
    supportsAssociatedData: false,
    upsert: 'unsupported',
  }) satisfies KeyTypeInfo;

/** Signing and RSA-OAEP encryption; not derivable; unknown to encrypt-upsert. */
const rsa = (name: KeyType, vaultId: number, bits: RsaModulusBits) =>
  ({
    name,
    vaultId,
    family: 'rsa',
    asymmetric: true,
    rsaBits: bits,
    publicKeyName: name,
    keyBytes: 0,
    nonceBytes: 0,
    supportsEncryption: true,
    supportsDecryption: true,
    supportsDerivation: false,
    supportsSigning: true,
    supportsAssociatedData: false,
    upsert: 'unknown',
  }) satisfies KeyTypeInfo;

const TABLE: ReadonlyMap<string, KeyTypeInfo> = /* @__PURE__ */ new Map<string, KeyTypeInfo>([
  ['aes128-gcm96', aead('aes128-gcm96', 8, 'aes-gcm', 16, 12)],
  ['aes256-gcm96', aead('aes256-gcm96', 0, 'aes-gcm', 32, 12)],
  ['chacha20-poly1305', aead('chacha20-poly1305', 5, 'chacha20-poly1305', 32, 12)],
  ['xchacha20-poly1305', aead('xchacha20-poly1305', 11, 'xchacha20-poly1305', 32, 24)],
  [
    'hmac',
    {
      name: 'hmac',
      vaultId: 11,
      family: 'hmac',
      asymmetric: false,
      keyBytes: 0,
      nonceBytes: 0,
      supportsEncryption: false,
      supportsDecryption: false,
      supportsDerivation: false,
      supportsSigning: false,
      supportsAssociatedData: false,
      upsert: 'unknown',
    },
  ],
  [
    'ed25519',
    {
      name: 'ed25519',
      vaultId: 2,
      family: 'ed25519',
      asymmetric: true,
      publicKeyName: 'ed25519',
      // Vault stores Go's 64-byte private key: seed ‖ public key.
      keyBytes: 64,
      nonceBytes: 0,
      supportsEncryption: false,
      supportsDecryption: false,
      supportsDerivation: true,
      supportsSigning: true,
      supportsAssociatedData: false,
      upsert: 'unknown',
    },
  ],
  ['ecdsa-p256', ecdsa('ecdsa-p256', 1, 'p256', 'P-256')],
  ['ecdsa-p384', ecdsa('ecdsa-p384', 6, 'p384', 'P-384')],
  ['ecdsa-p521', ecdsa('ecdsa-p521', 7, 'p521', 'P-521')],
  ['rsa-2048', rsa('rsa-2048', 3, 2048)],
  ['rsa-3072', rsa('rsa-3072', 9, 3072)],
  ['rsa-4096', rsa('rsa-4096', 4, 4096)],
]);

/** The default type of a new key. @internal */
export const DEFAULT_KEY_TYPE: KeyType = 'aes256-gcm96';

/** HMAC key size bounds in bytes, and the default when `key_size` is omitted. @internal */
export const HMAC_KEY_SIZE = { min: 32, max: 512, default: 32 } as const;

/**
 * Resolve a type name (case-insensitive, as Vault).
 * @throws TransitError `invalid_request` `unknown key type <t>`.
 * @internal
 */
export function keyType(name: unknown): KeyTypeInfo {
  if (typeof name !== 'string') throw invalidRequest('key type must be a string');
  const info = TABLE.get(name.toLowerCase());
  if (!info) throw invalidRequest(`unknown key type ${name}`);
  return info;
}

/** All registered type names. @internal */
export const keyTypeNames = (): KeyType[] => [...TABLE.keys()] as KeyType[];
