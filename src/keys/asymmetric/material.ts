/**
 * The asymmetric material of a key version, parsed once into the neutral key
 * objects of the crypto layer (`EcPrivateKey`, `RsaPrivateKey`, …) and kept
 * in the loaded key, so backends' per-object caches (node `KeyObject`s,
 * WebCrypto keys) hit on every later operation with the same version.
 *
 * The stored form holds exactly the numbers Vault stores (reference §0.1, §6),
 * so the Vault backup codec can be lossless: EC `ec_x`/`ec_y`/`ec_d` and the
 * PKIX `public_key` PEM; RSA N, E, D, the two primes and Dp/Dq/Qinv
 * (`rsa_key`), or only N, E (`rsa_public_key`); Ed25519 the 64-byte Go private
 * key `seed ‖ pub` in the version's `key` and the base64 public key in
 * `public_key`. Big numbers are decimal strings (our own JSON is parsed with
 * `JSON.parse`; the backup codec writes them as bare Go numbers). The private
 * parts are optional: a public-key-only version (import) has none. Each
 * family encodes and parses its own kind (`materialToJson`,
 * `materialFromJson`); this module holds the shapes.
 *
 * @module
 */
import type {
  EcPrivateKey,
  EcPublicKey,
  Ed25519PrivateKey,
  RsaPrivateKey,
  RsaPublicKey,
} from '../../crypto/asymmetric-backend.js';
import type { MlDsaPrivateKey, MlDsaPublicKey } from '../../crypto/ml-dsa.js';
import { internal } from '../../errors.js';

/** ECDSA material; `private` (when present) is also a valid public key object. @internal */
export interface EcMaterial {
  readonly kind: 'ec';
  readonly public: EcPublicKey;
  readonly private?: EcPrivateKey;
  /** PKIX `PUBLIC KEY` PEM with a trailing newline, as Vault stores it. */
  readonly publicKeyPem: string;
}

/** RSA material; `private` (when present) is also a valid public key object. @internal */
export interface RsaMaterial {
  readonly kind: 'rsa';
  readonly public: RsaPublicKey;
  readonly private?: RsaPrivateKey;
}

/** Ed25519 material: the 32-byte public key and, unless public-only, the seed. @internal */
export interface Ed25519Material {
  readonly kind: 'ed25519';
  readonly public: Uint8Array;
  readonly private?: Ed25519PrivateKey;
}

/**
 * ML-DSA material (`./ml-dsa.ts`): the public key and, unless public-only,
 * the 32-byte seed (also the version's `key`). @internal
 */
export interface MlDsaMaterial {
  readonly kind: 'ml-dsa';
  readonly public: MlDsaPublicKey;
  readonly private?: MlDsaPrivateKey;
}

/** A version's asymmetric material. @internal */
export type AsymmetricMaterial = EcMaterial | RsaMaterial | Ed25519Material | MlDsaMaterial;

/** Stored JSON of the asymmetric fields of a version (absent fields omitted). @internal */
export interface AsymmetricJson {
  ec_x?: string;
  ec_y?: string;
  ec_d?: string;
  rsa_key?: Record<'n' | 'e' | 'd' | 'p' | 'q' | 'dp' | 'dq' | 'qi', string>;
  rsa_public_key?: Record<'n' | 'e', string>;
  /** ECDSA: PKIX PEM; Ed25519 and ML-DSA: base64 of the raw public key. */
  public_key?: string;
}

/** A stored entry that does not parse. @internal */
export function corrupt(what: string): never {
  throw internal(`stored key entry is corrupted: ${what}`);
}

/** A stored decimal big number. @internal */
export function big(v: unknown, what: string): bigint {
  if (typeof v !== 'string' || !/^[0-9]{1,5000}$/.test(v)) corrupt(what);
  return BigInt(v);
}

/** The version's material, or an internal error when a key of an asymmetric type lacks it. @internal */
export function requireMaterial(m: AsymmetricMaterial | undefined): AsymmetricMaterial {
  if (!m) throw internal('asymmetric key version has no key material');
  return m;
}
