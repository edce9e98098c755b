/**
 * THE key-type registry: one row per Vault key type; code reads a row, never
 * compares type names.
 *
 * A type name is resolved once, with {@link keyType}; code below takes the
 * resolved {@link KeyTypeInfo}, reads its flags and calls its `family`, the
 * {@link KeyFamily} object that does everything type-specific (generation,
 * sizes, the stored and backup codecs, import, export, read body; signing
 * for key pairs). No other file compares a family or type name
 * (`test/keys/registry.test.ts` enforces it), so adding a type means adding
 * a row, and adding a family one family file: the recipe is in
 * `./families/family.ts`.
 *
 * `vaultId` is Vault's integer for the type in policy/backup JSON
 * (reference §0.1: Vault's numbering is written; xchacha20 is written as 11
 * without `key_size`, the OpenBao form).
 *
 * Families: AEAD and HMAC in `./families/`, ECDSA, Ed25519, RSA and ML-DSA in
 * `./asymmetric/`. The key-pair families are loaded on first use
 * ({@link loadAsymmetricFamilies}, a dynamic `import()` of
 * `./asymmetric/families.ts`), so a symmetric-only bundle carries none of
 * their code (pkijs, asn1js, curves: issue 22). Their rows' `family` is
 * readable once loaded; every path that meets a key-pair type first awaits
 * {@link familyReady} (key creation, import, restore, the wrapping key, and
 * the policy store when it decodes a stored key), so a key-pair policy never
 * exists before its family. Asymmetric rows carry the curve or modulus size and the
 * name the read body shows (`P-256`, `ed25519`, `rsa-2048`).
 *
 * @module
 */
import type { EcCurve, RsaModulusBits } from '../crypto/asymmetric-backend.js';
import type { AeadAlgorithm } from '../crypto/backend.js';
import type { MlDsaLevel } from '../crypto/ml-dsa.js';
import { internal, invalidRequest } from '../errors.js';
import type { ASYMMETRIC_FAMILIES, AsymmetricFamilyName } from './asymmetric/families.js';
import type { AsymmetricMaterial } from './asymmetric/material.js';
import { aeadFamily } from './families/aead.js';
import type { KeyFamily } from './families/family.js';
import { hmacFamily } from './families/hmac.js';

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
  | 'rsa-4096'
  | 'mldsa-44'
  | 'mldsa-65'
  | 'mldsa-87';

/** One registry row. @internal */
export interface KeyTypeInfo {
  readonly name: KeyType;
  readonly vaultId: number;
  /** The family object: every type-specific operation. */
  readonly family: KeyFamily;
  /** `family.asymmetric`: versions hold a key pair (ECDSA, Ed25519, RSA). */
  readonly asymmetric: boolean;
  /** AEAD cipher (family `aead`). */
  readonly aead?: AeadAlgorithm;
  /** Curve (family `ecdsa`). */
  readonly curve?: EcCurve;
  /** Modulus size (family `rsa`). */
  readonly rsaBits?: RsaModulusBits;
  /** FIPS 204 parameter set (family `ml-dsa`). */
  readonly mlDsaLevel?: MlDsaLevel;
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
  /**
   * HMAC with the key's per-version HMAC secret (`hmac`, HMAC verify,
   * `hmac-key` export). Every Vault type allows it; ML-DSA keys refuse it
   * (a post-quantum signing key is not a MAC key; #16).
   */
  readonly supportsHmac: boolean;
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
  family: aeadFamily,
  asymmetric: aeadFamily.asymmetric,
  aead: alg,
  keyBytes,
  nonceBytes,
  supportsEncryption: true,
  supportsDecryption: true,
  supportsDerivation: true,
  supportsSigning: false,
  supportsHmac: true,
  supportsAssociatedData: true,
  upsert: 'allowed',
});

/** Signing-only, non-derivable; encrypt-upsert refuses with "not supported for this operation". */
/** The loaded key-pair families (`undefined` until {@link loadAsymmetricFamilies} resolves). */
let loadedFamilies: typeof ASYMMETRIC_FAMILIES | undefined;
let loadingFamilies: Promise<typeof ASYMMETRIC_FAMILIES> | undefined;

/**
 * Load the key-pair families (once; a failed load is retried on the next call).
 * @throws TransitError `internal` when the chunk cannot be loaded.
 * @internal
 */
export function loadAsymmetricFamilies(): Promise<typeof ASYMMETRIC_FAMILIES> {
  loadingFamilies ??= import('./asymmetric/families.js').then(
    (m) => {
      loadedFamilies = m.ASYMMETRIC_FAMILIES;
      return loadedFamilies;
    },
    (e: unknown) => {
      loadingFamilies = undefined;
      throw internal('could not load the key-pair families', e);
    },
  );
  return loadingFamilies;
}

/**
 * `undefined` when `info.family` is usable now; else the promise to await
 * first (a key-pair type before its family was loaded). No promise, and so no
 * extra tick, on the symmetric path.
 * @internal
 */
export function familyReady(info: KeyTypeInfo): Promise<unknown> | undefined {
  return info.asymmetric && loadedFamilies === undefined ? loadAsymmetricFamilies() : undefined;
}

/**
 * The loaded family `name` (a key-pair row's `family` getter).
 * @throws TransitError `internal` when read before {@link familyReady} was awaited: a bug.
 */
function loadedFamily(name: AsymmetricFamilyName): KeyFamily {
  if (loadedFamilies === undefined) {
    throw internal(`the ${name} key family was used before it was loaded`);
  }
  return loadedFamilies[name];
}

const ecdsa = (name: KeyType, vaultId: number, curve: EcCurve, publicKeyName: string) =>
  ({
    name,
    vaultId,
    get family() {
      return loadedFamily('ecdsa');
    },
    asymmetric: true,
    curve,
    publicKeyName,
    keyBytes: 0,
    nonceBytes: 0,
    supportsEncryption: false,
    supportsDecryption: false,
    supportsDerivation: false,
    supportsSigning: true,
    supportsHmac: true,
    supportsAssociatedData: false,
    upsert: 'unsupported',
  }) satisfies KeyTypeInfo;

/** Signing and RSA-OAEP encryption; not derivable; unknown to encrypt-upsert. */
const rsa = (name: KeyType, vaultId: number, bits: RsaModulusBits) =>
  ({
    name,
    vaultId,
    get family() {
      return loadedFamily('rsa');
    },
    asymmetric: true,
    rsaBits: bits,
    publicKeyName: name,
    keyBytes: 0,
    nonceBytes: 0,
    supportsEncryption: true,
    supportsDecryption: true,
    supportsDerivation: false,
    supportsSigning: true,
    supportsHmac: true,
    supportsAssociatedData: false,
    upsert: 'unknown',
  }) satisfies KeyTypeInfo;

/**
 * ML-DSA (FIPS 204): signing-only, not derivable, unknown to encrypt-upsert.
 * Vault Enterprise has one type (14) with a `parameter_set` and OpenBao 2.7
 * its own ids; the backup type ids here are transitkit's (20044/20065/20087),
 * so an ML-DSA backup restores only into transitkit.
 */
const mlDsa = (name: KeyType, vaultId: number, level: MlDsaLevel) =>
  ({
    name,
    vaultId,
    get family() {
      return loadedFamily('ml-dsa');
    },
    asymmetric: true,
    mlDsaLevel: level,
    publicKeyName: name,
    keyBytes: 32,
    nonceBytes: 0,
    supportsEncryption: false,
    supportsDecryption: false,
    supportsDerivation: false,
    supportsSigning: true,
    supportsHmac: false,
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
      family: hmacFamily,
      asymmetric: hmacFamily.asymmetric,
      keyBytes: 0,
      nonceBytes: 0,
      supportsEncryption: false,
      supportsDecryption: false,
      supportsDerivation: false,
      supportsSigning: false,
      supportsHmac: true,
      supportsAssociatedData: false,
      upsert: 'unknown',
    },
  ],
  [
    'ed25519',
    {
      name: 'ed25519',
      vaultId: 2,
      get family() {
        return loadedFamily('ed25519');
      },
      asymmetric: true,
      publicKeyName: 'ed25519',
      // Vault stores Go's 64-byte private key: seed ‖ public key.
      keyBytes: 64,
      nonceBytes: 0,
      supportsEncryption: false,
      supportsDecryption: false,
      supportsDerivation: true,
      supportsSigning: true,
      supportsHmac: true,
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
  ['mldsa-44', mlDsa('mldsa-44', 20044, 44)],
  ['mldsa-65', mlDsa('mldsa-65', 20065, 65)],
  ['mldsa-87', mlDsa('mldsa-87', 20087, 87)],
]);

/** The default type of a new key (create, and encrypt's upsert). @internal */
export const DEFAULT_KEY_TYPE: KeyType = 'aes256-gcm96';

/** The type of the BYOK wrapping key (reference §7). @internal */
export const WRAPPING_KEY_TYPE: KeyType = 'rsa-4096';

/**
 * Resolve a type name (case-insensitive, as Vault).
 * @throws TransitError `invalid_request` `unknown key type <t>`.
 * @internal
 */
export function keyType(name: unknown): KeyTypeInfo {
  // Every call on one key names the same type: answered without a lookup.
  if (name === lastName) return lastInfo as KeyTypeInfo;
  if (typeof name !== 'string') throw invalidRequest('key type must be a string');
  // Stored policies hold the canonical (lower-case) name: found without a lower-cased copy.
  const info = TABLE.get(name) ?? TABLE.get(name.toLowerCase());
  if (!info) throw invalidRequest(`unknown key type ${name}`);
  lastInfo = info;
  lastName = name;
  return info;
}

/**
 * The last name {@link keyType} resolved (at first an object no caller
 * holds), and its row: the answer is a pure function of the string (type
 * names are not secret; a plain comparison).
 */
let lastName: unknown = {};
let lastInfo: KeyTypeInfo | undefined;

/**
 * Vault Enterprise's spelling of a parameterised type: `type` + `parameter_set`
 * (`ml-dsa` + `44`/`65`/`87`) for the canonical row (`mldsa-44`…), which is
 * what is stored. A key type that is not parameterised takes no parameter set.
 */
const PARAMETERISED: ReadonlyMap<string, Readonly<Record<string, KeyType>>> = new Map([
  ['ml-dsa', { '44': 'mldsa-44', '65': 'mldsa-65', '87': 'mldsa-87' }],
]);

/**
 * Resolve a create or import request's `type` and `parameter_set`: a
 * registry name (with no `parameter_set`, or the row's own), or Vault
 * Enterprise's `ml-dsa` with `parameter_set` `44` | `65` | `87`.
 * @throws TransitError `invalid_request` for an unknown type or parameter set.
 * @internal
 */
export function keyTypeWithParameterSet(name: unknown, parameterSet: unknown): KeyTypeInfo {
  if (parameterSet !== undefined && parameterSet !== null && typeof parameterSet !== 'string') {
    throw invalidRequest('parameter_set must be a string');
  }
  const set = parameterSet ?? '';
  const sets = typeof name === 'string' ? PARAMETERISED.get(name.toLowerCase()) : undefined;
  if (sets) {
    if (set === '') {
      throw invalidRequest(
        `missing parameter_set for key type ${name as string}; expected one of ${Object.keys(sets).join(', ')}`,
      );
    }
    const canonical = Object.hasOwn(sets, set) ? sets[set] : undefined;
    if (!canonical) {
      throw invalidRequest(
        `unknown parameter set ${JSON.stringify(set)} for key type ${name as string}; expected one of ${Object.keys(sets).join(', ')}`,
      );
    }
    return keyType(canonical);
  }
  const info = keyType(name);
  if (set !== '' && !(info.mlDsaLevel !== undefined && String(info.mlDsaLevel) === set)) {
    throw invalidRequest(
      `parameter_set ${JSON.stringify(set)} is not valid for key type ${info.name}`,
    );
  }
  return info;
}

/** All registered type names. @internal */
export const keyTypeNames = (): KeyType[] => [...TABLE.keys()] as KeyType[];

/** All registry rows, in registration order. @internal */
export const keyTypeRows = (): KeyTypeInfo[] => [...TABLE.values()];

let byMaterial: ReadonlyMap<string, KeyFamily> | undefined;

/**
 * The family of a version's asymmetric material (for codecs that see a
 * version without its policy, e.g. an archived version being stored).
 * @throws TransitError `internal` for a kind no row's family has.
 * @internal
 */
export function materialFamily(m: AsymmetricMaterial): KeyFamily {
  byMaterial ??= new Map(
    keyTypeRows().flatMap((r) =>
      r.family.materialKind ? [[r.family.materialKind, r.family]] : [],
    ),
  );
  const f = byMaterial.get(m.kind);
  if (!f) throw internal(`no key family for ${m.kind} key material`);
  return f;
}
