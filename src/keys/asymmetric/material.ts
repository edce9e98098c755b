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
 * parts are optional: a public-key-only version (import) has none.
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
import { encodeBase64, tryDecodeBase64 } from '../../encoding.js';
import { internal } from '../../errors.js';
import type { KeyTypeInfo } from '../key-types.js';

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

/** A version's asymmetric material. @internal */
export type AsymmetricMaterial = EcMaterial | RsaMaterial | Ed25519Material;

/** Stored JSON of the asymmetric fields of a version (absent fields omitted). @internal */
export interface AsymmetricJson {
  ec_x?: string;
  ec_y?: string;
  ec_d?: string;
  rsa_key?: Record<'n' | 'e' | 'd' | 'p' | 'q' | 'dp' | 'dq' | 'qi', string>;
  rsa_public_key?: Record<'n' | 'e', string>;
  /** ECDSA: PKIX PEM; Ed25519: base64 of the 32-byte public key. */
  public_key?: string;
}

const RSA_FIELDS = ['n', 'e', 'd', 'p', 'q', 'dp', 'dq', 'qi'] as const;

/** Encode a version's asymmetric material (the Ed25519 private key is the version's `key`). @internal */
export function materialToJson(m: AsymmetricMaterial): AsymmetricJson {
  switch (m.kind) {
    case 'ec': {
      const out: AsymmetricJson = {
        ec_x: m.public.x.toString(),
        ec_y: m.public.y.toString(),
        public_key: m.publicKeyPem,
      };
      if (m.private) out.ec_d = m.private.d.toString();
      return out;
    }
    case 'rsa': {
      const k = m.private;
      if (!k) return { rsa_public_key: { n: m.public.n.toString(), e: m.public.e.toString() } };
      const rsa = {} as Record<(typeof RSA_FIELDS)[number], string>;
      for (const f of RSA_FIELDS) rsa[f] = k[f].toString();
      return { rsa_key: rsa };
    }
    case 'ed25519':
      return { public_key: encodeBase64(m.public) };
  }
}

function corrupt(what: string): never {
  throw internal(`stored key entry is corrupted: ${what}`);
}

function big(v: unknown, what: string): bigint {
  if (typeof v !== 'string' || !/^[0-9]{1,5000}$/.test(v)) corrupt(what);
  return BigInt(v);
}

function rsaFromJson(o: Record<string, unknown>): RsaMaterial {
  const full = o.rsa_key;
  if (typeof full === 'object' && full !== null) {
    const f = full as Record<string, unknown>;
    const k = {} as Record<(typeof RSA_FIELDS)[number], bigint>;
    for (const name of RSA_FIELDS) k[name] = big(f[name], `rsa_key.${name}`);
    const key: RsaPrivateKey = k;
    return { kind: 'rsa', public: key, private: key };
  }
  const pub = o.rsa_public_key;
  if (typeof pub !== 'object' || pub === null) corrupt('rsa key');
  const p = pub as Record<string, unknown>;
  return {
    kind: 'rsa',
    public: { n: big(p.n, 'rsa_public_key.n'), e: big(p.e, 'rsa_public_key.e') },
  };
}

/**
 * Decode a version's asymmetric material for a key of type `info`; `key` is
 * the version's raw key (Ed25519: 64-byte `seed ‖ pub`, or empty when public-only).
 * @returns `undefined` for symmetric types.
 * @throws TransitError `internal` for a corrupted entry.
 * @internal
 */
export function materialFromJson(
  o: Record<string, unknown>,
  info: KeyTypeInfo,
  key: Uint8Array,
): AsymmetricMaterial | undefined {
  switch (info.family) {
    case 'ecdsa': {
      const curve = info.curve;
      if (!curve || typeof o.public_key !== 'string') corrupt('ec public key');
      const pub: EcPublicKey = { curve, x: big(o.ec_x, 'ec_x'), y: big(o.ec_y, 'ec_y') };
      if (o.ec_d === undefined || o.ec_d === null) {
        return { kind: 'ec', public: pub, publicKeyPem: o.public_key };
      }
      const priv: EcPrivateKey = { ...pub, d: big(o.ec_d, 'ec_d') };
      return { kind: 'ec', public: priv, private: priv, publicKeyPem: o.public_key };
    }
    case 'rsa':
      return rsaFromJson(o);
    case 'ed25519': {
      const pub = typeof o.public_key === 'string' ? tryDecodeBase64(o.public_key) : undefined;
      if (pub?.length !== 32) corrupt('ed25519 public key');
      if (key.length === 0) return { kind: 'ed25519', public: pub };
      if (key.length !== 64) corrupt('ed25519 key');
      return { kind: 'ed25519', public: pub, private: { seed: key.subarray(0, 32) } };
    }
    default:
      return undefined;
  }
}

/** The version's material, or an internal error when a key of an asymmetric type lacks it. @internal */
export function requireMaterial(m: AsymmetricMaterial | undefined): AsymmetricMaterial {
  if (!m) throw internal('asymmetric key version has no key material');
  return m;
}
