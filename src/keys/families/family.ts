/**
 * The key family interface: everything that differs between families of key
 * types (AEAD, HMAC, ECDSA, Ed25519, RSA) behind one object, so the engine
 * reads a registry row's `family` and calls it, and never compares a family
 * or type name (the key-type registry rule, as jose's algorithm registry).
 *
 * A family covers: the policy's `key_size`, generation, the stored-JSON codec
 * of a version's material (`../policy-codec.ts`), the Vault backup
 * `KeyEntry` codec (`../vault-backup-entry.ts`) and the restore checks
 * (`../vault-backup.ts`), import-material conversion and byok-export
 * (`../../transit/import-material.ts`), and the export strings and read-body
 * public keys (`../../transit/export.ts`, `../../transit/read-body.ts`).
 * Asymmetric families extend it with signing, verification, public keys and
 * RSA-OAEP ({@link AsymmetricFamily} in `../asymmetric/family.ts`).
 *
 * ## Recipe: adding a key type
 *
 * - **A new parameter set of an existing family** (say `ecdsa-p256k1`): one
 *   row in `../key-types.ts` and its name in the `KeyType` union there. A
 *   parameter the family reads from the row (`curve`, `rsaBits`, `aead`,
 *   `keyBytes`, `nonceBytes`, `publicKeyName`) is set on the row.
 * - **A new family** (say ML-DSA, rows `ml-dsa-44`, `ml-dsa-65`, `ml-dsa-87`):
 *   1. one family file, `../asymmetric/ml-dsa.ts`, exporting
 *      `mlDsaFamily = defineAsymmetricFamily({...})` (`../asymmetric/define.ts`
 *      adds what all key pairs share). It declares its material interface
 *      (`kind: 'ml-dsa'`, added to the `AsymmetricMaterial` union of
 *      `../asymmetric/material.ts`) and implements: `generate`, `sign`,
 *      `verify` (pure signatures ignore the hash options, as Ed25519),
 *      `readPublicKey`, `exportPrivate`/`exportPublic` (the §8 strings),
 *      `privateKey`/`publicKey` (the neutral PKCS#8/PKIX keys of
 *      `crypto/pki`), `materialToJson`/`materialFromJson` (our stored JSON),
 *      `entryFields`/`decodeEntry` (Vault's `KeyEntry`: the `key` and
 *      `public_key` fields serve a seed-plus-public-key family), and
 *      `fromPrivateKey`/`fromPublicKey` (import, checking the row's
 *      parameter set). A codec too large for the file goes to a companion
 *      (`./rsa-codec.ts` is the model). A symmetric family implements
 *      {@link KeyFamily} directly instead (`./aead.ts`, `./hmac.ts`);
 *   2. one row per parameter set in `../key-types.ts`, referencing the
 *      family object, with Vault's type id, the capability flags, the read
 *      body's `publicKeyName` and the parameter set in an optional row field
 *      (e.g. `mlDsaLevel`, beside `curve` and `rsaBits`);
 *   3. nothing in the engine: `test/keys/registry.test.ts` checks that the
 *      family implements every member, round-trips a generated version of
 *      each row through its codecs (one RSA size: generation is slow), and
 *      that no other file compares a family or type name. What the family calls must exist below it: the
 *      crypto backends' primitives and the `crypto/pki` key encodings (the
 *      crypto layer, not the registry).
 *
 * @module
 */
import type { CryptoBackend } from '../../crypto/backend.js';
import { invalidRequest } from '../../errors.js';
import type { AsymmetricJson, AsymmetricMaterial } from '../asymmetric/material.js';
import type { GoObject } from '../go-json.js';
import type { KeyTypeInfo } from '../key-types.js';
import type { KeyPolicy, KeyVersion } from '../policy.js';

/** Export `format` (OpenBao): `''` native, `raw`, `der` (base64) or `pem`. @internal */
export type ExportFormat = '' | 'raw' | 'der' | 'pem';

/** A freshly generated version's material. @internal */
export interface GeneratedKey {
  /** The raw `key` (AEAD key, HMAC secret, Ed25519 `seed ‖ pub`; empty for ECDSA/RSA). */
  readonly key: Uint8Array;
  /** The parsed key pair (asymmetric families). */
  readonly material?: AsymmetricMaterial;
  /** The version's HMAC secret when the family fixes it (hmac: the key itself). */
  readonly hmacKey?: Uint8Array;
}

/** A version's material from an import or a backup entry. @internal */
export interface ImportedMaterial {
  readonly key: Uint8Array;
  readonly asymmetric?: AsymmetricMaterial;
}

/** Derives an Ed25519 public key from its seed (the crypto backend's). @internal */
export type Ed25519Public = (seed: Uint8Array) => Promise<Uint8Array>;

/**
 * The asymmetric fields of a Vault backup `KeyEntry` a family writes (the
 * others are written null/`''`). Vault's field order is kept by
 * `../vault-backup-entry.ts`; a family needing a field Vault added goes there too.
 * @internal
 */
export interface EntryFields {
  ec_x?: bigint;
  ec_y?: bigint;
  ec_d?: bigint | null;
  rsa_key?: unknown;
  rsa_public_key?: unknown;
  public_key?: string;
}

/** One key family. Every member is required (the registry test checks each row's). @internal */
export interface KeyFamily {
  /** The family's name, for messages and the registry's own checks only. */
  readonly name: string;
  /** Versions hold {@link AsymmetricMaterial} (a key pair, or only its public half). */
  readonly asymmetric: boolean;
  /** The material kind of this family's versions (`undefined` for symmetric families). */
  readonly materialKind: AsymmetricMaterial['kind'] | undefined;
  /**
   * The policy carries a `key_size` (hmac). Also tells Vault's backup type
   * dialects apart (reference §0.1).
   */
  readonly keySized: boolean;
  /** `import` accepts keys of this family (Vault refuses hmac). */
  readonly importable: boolean;

  /**
   * The policy's `key_size` for a create request's (`undefined`/0 = default).
   * @throws TransitError `invalid_request` for a size the family refuses.
   */
  policyKeySize(info: KeyTypeInfo, requested: number | undefined): number;
  /** A new version's material from the backend CSPRNG (RSA off the event loop). */
  generate(b: CryptoBackend, info: KeyTypeInfo, policy: KeyPolicy): Promise<GeneratedKey>;

  /** The stored JSON of a version's material (`../policy-codec.ts`). */
  materialToJson(m: AsymmetricMaterial): AsymmetricJson;
  /**
   * Parse a stored version's material; `key` is the version's raw key.
   * @returns `undefined` for symmetric families.
   * @throws TransitError `internal` for a corrupted entry.
   */
  materialFromJson(
    o: Record<string, unknown>,
    info: KeyTypeInfo,
    key: Uint8Array,
  ): AsymmetricMaterial | undefined;

  /** The asymmetric fields of a backup `KeyEntry` for a version's material. */
  entryFields(m: AsymmetricMaterial | undefined): EntryFields;
  /**
   * A backup `KeyEntry`'s material (`key` is its `key` field, `undefined` when
   * null); `undefined` when the entry holds none of this family's material.
   * @throws TransitError `invalid_request` for malformed or inconsistent material.
   */
  decodeEntry(
    o: GoObject,
    info: KeyTypeInfo,
    key: Uint8Array | undefined,
    ed25519Public: Ed25519Public,
  ): Promise<ImportedMaterial | undefined>;
  /**
   * Check restored version `n` against the type (sizes, material); the
   * version as the family stores it (hmac: `hmac_key` is the key).
   * @throws TransitError `invalid_request` `invalid backup: …`.
   */
  restoreVersion(info: KeyTypeInfo, v: KeyVersion, keySize: number, n: number): KeyVersion;

  /**
   * The version material of imported private bytes (raw key or PKCS#8).
   * @throws TransitError `invalid_request` for a wrong size, format, family, curve or modulus.
   */
  importPrivate(b: CryptoBackend, info: KeyTypeInfo, bytes: Uint8Array): Promise<ImportedMaterial>;
  /**
   * The public-only version material of a PKIX PEM.
   * @throws TransitError `invalid_request` for a family without public keys or a key that does not fit.
   */
  importPublic(info: KeyTypeInfo, pem: string): ImportedMaterial;
  /** True when the version holds no private key (a public-key import). */
  isPublicOnly(v: KeyVersion): boolean;
  /** The bytes byok-export wraps (raw key or PKCS#8), `undefined` when public-only. */
  byokMaterial(v: KeyVersion): Uint8Array | undefined;

  /** The `encryption-key` / `signing-key` export string. */
  exportKey(v: KeyVersion, format: ExportFormat): string;
  /**
   * The `public-key` export string.
   * @throws TransitError `invalid_request` for a family without public keys.
   */
  exportPublicKey(info: KeyTypeInfo, p: KeyPolicy, v: KeyVersion, format: ExportFormat): string;
  /**
   * The `public_key` of a version in the read body (derived keys: `""`, or
   * the key derived for `context`), or `undefined` for a family whose read
   * body shows only creation times (synchronously: reads stay cheap).
   */
  readBodyPublicKey(
    b: CryptoBackend,
    p: KeyPolicy,
    v: KeyVersion,
    context: Uint8Array,
  ): Promise<string> | undefined;
}

/** Vault's prefix of every backup refusal. @internal */
export const INVALID_BACKUP = 'invalid backup';

/** The `key_size` rule of a family without one: absent or 0. @internal */
export function noKeySize(info: { readonly name: string }, requested: number | undefined): number {
  if (requested !== undefined && requested !== 0) {
    throw invalidRequest(`key_size is not valid for algorithm ${info.name}`);
  }
  return 0;
}

/** The members of {@link KeyFamily}, for the registry test. @internal */
export const KEY_FAMILY_MEMBERS = [
  'name',
  'asymmetric',
  'materialKind',
  'keySized',
  'importable',
  'policyKeySize',
  'generate',
  'materialToJson',
  'materialFromJson',
  'entryFields',
  'decodeEntry',
  'restoreVersion',
  'importPrivate',
  'importPublic',
  'isPublicOnly',
  'byokMaterial',
  'exportKey',
  'exportPublicKey',
  'readBodyPublicKey',
] as const satisfies readonly (keyof KeyFamily)[];
