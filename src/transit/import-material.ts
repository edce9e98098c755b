/**
 * Key material in and out of the BYOK format (reference §7): what an
 * imported blob or `public_key` becomes as a version, and what byok-export
 * wraps.
 *
 * - Symmetric types: the raw key, whose length must be the type's.
 * - ECDSA, Ed25519, RSA: a PKCS#8 private key (Go's parser plus Vault's NSS
 *   Ed25519 and RSA-PSS-OID fallbacks, `crypto/pki/pkcs8.ts`), or a PKIX
 *   `PUBLIC KEY` PEM for a public-only version. The key's family, curve and
 *   modulus size must be the type's (Vault's texts).
 * - Export: the raw key, or PKCS#8 as Go's `MarshalPKCS8PrivateKey`.
 *
 * Errors never quote the material.
 * @module
 */

import {
  decodePublicKeyPem,
  encodePkcs8PrivateKey,
  encodeSpki,
  pemEncode,
} from '../crypto/pki/keys.js';
import { decodePkcs8PrivateKey, type PrivateKeyMaterial } from '../crypto/pki/pkcs8.js';
import type { PublicKeyMaterial } from '../crypto/pki/spki.js';
import { concatBytes } from '../encoding.js';
import { invalidRequest, TransitError } from '../errors.js';
import { familyOf } from '../keys/asymmetric/family.js';
import type { AsymmetricMaterial } from '../keys/asymmetric/material.js';
import type { KeyTypeInfo } from '../keys/key-types.js';
import type { KeyVersion } from '../keys/policy.js';
import type { Engine } from './engine.js';

/** A version's material: the raw `key` and, for asymmetric types, the parsed key. @internal */
export interface ImportedMaterial {
  readonly key: Uint8Array;
  readonly asymmetric?: AsymmetricMaterial;
}

const FAMILY_OF_KEY: Readonly<Record<PublicKeyMaterial['type'], string>> = {
  ec: 'ecdsa',
  rsa: 'rsa',
  ed25519: 'ed25519',
};
const KIND_NAME = { ec: 'an EC key', rsa: 'an RSA key', ed25519: 'an Ed25519 key' } as const;
const CURVE_NAME = { p256: 'P-256', p384: 'P-384', p521: 'P-521' } as const;

/** Refuse a key of another family, curve or modulus size than the type's. */
function checkShape(info: KeyTypeInfo, m: PublicKeyMaterial | PrivateKeyMaterial): void {
  if (FAMILY_OF_KEY[m.type] !== info.family) {
    throw invalidRequest(`invalid key type: expected ${info.name}, got ${KIND_NAME[m.type]}`);
  }
  if (m.type === 'ec' && info.curve && m.key.curve !== info.curve) {
    throw invalidRequest(
      `invalid curve: expected ${CURVE_NAME[info.curve]}, got ${CURVE_NAME[m.key.curve]}`,
    );
  }
  if (m.type === 'rsa' && info.rsaBits) {
    const got = Math.ceil(m.key.n.toString(2).length / 8);
    if (got !== info.rsaBits / 8) {
      throw invalidRequest(
        `invalid key size: expected ${info.rsaBits / 8} bytes, got ${got} bytes`,
      );
    }
  }
}

/** Re-throw a codec's error with Vault's prefix (the codecs never quote bytes). */
function parsing<T>(prefix: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof TransitError) throw invalidRequest(`${prefix}: ${err.message}`);
    throw err;
  }
}

/**
 * The version material of imported private bytes for a key of type `info`.
 * @throws TransitError `invalid_request` for a wrong size, format, family, curve or modulus.
 * @internal
 */
export async function privateMaterial(
  e: Engine,
  info: KeyTypeInfo,
  bytes: Uint8Array,
): Promise<ImportedMaterial> {
  if (!info.asymmetric) {
    if (bytes.length !== info.keyBytes) {
      throw invalidRequest(`invalid key size ${bytes.length} bytes for key type ${info.name}`);
    }
    return { key: bytes };
  }
  const m = parsing('error parsing asymmetric key', () => decodePkcs8PrivateKey(bytes));
  checkShape(info, m);
  switch (m.type) {
    case 'ec': {
      const publicKeyPem = pemEncode(encodeSpki({ type: 'ec', key: m.key }), 'PUBLIC KEY');
      return {
        key: new Uint8Array(0),
        asymmetric: { kind: 'ec', public: m.key, private: m.key, publicKeyPem },
      };
    }
    case 'rsa':
      return { key: new Uint8Array(0), asymmetric: { kind: 'rsa', public: m.key, private: m.key } };
    case 'ed25519': {
      const pub = await e.backend.ed25519PublicKey(m.key);
      return {
        key: concatBytes(m.key.seed, pub),
        asymmetric: { kind: 'ed25519', public: pub, private: m.key },
      };
    }
  }
}

/**
 * The public-only version material of a PKIX PEM for a key of type `info`.
 * @throws TransitError `invalid_request` for a symmetric type or a key that does not fit.
 * @internal
 */
export function publicMaterial(info: KeyTypeInfo, pem: string): ImportedMaterial {
  if (!info.asymmetric) throw invalidRequest('provided type does not support public_key import');
  const m = parsing('error parsing public key', () => decodePublicKeyPem(pem));
  checkShape(info, m);
  const empty = new Uint8Array(0);
  switch (m.type) {
    case 'ec': {
      const publicKeyPem = pemEncode(encodeSpki(m), 'PUBLIC KEY');
      return { key: empty, asymmetric: { kind: 'ec', public: m.key, publicKeyPem } };
    }
    case 'rsa':
      return { key: empty, asymmetric: { kind: 'rsa', public: m.key } };
    case 'ed25519':
      return { key: empty, asymmetric: { kind: 'ed25519', public: m.key } };
  }
}

/** The SPKI DER of a version's public key (for comparing key pairs). @internal */
export function publicDer(info: KeyTypeInfo, m: AsymmetricMaterial): Uint8Array {
  return encodeSpki(familyOf(info).publicKey(m));
}

/** True when the version holds no private key (a public-key import). @internal */
export function isPublicOnly(info: KeyTypeInfo, v: KeyVersion): boolean {
  return info.asymmetric && !!v.asymmetric && !familyOf(info).privateKey(v.asymmetric);
}

/**
 * The bytes byok-export wraps: the raw key, or the PKCS#8 private key.
 * @throws TransitError `invalid_request` for a public-only version.
 * @internal
 */
export function exportMaterial(info: KeyTypeInfo, v: KeyVersion, n: number): Uint8Array {
  if (!info.asymmetric) return v.key;
  const priv = v.asymmetric ? familyOf(info).privateKey(v.asymmetric) : undefined;
  if (!priv) throw invalidRequest(`key version ${n} has no private key to export`);
  return encodePkcs8PrivateKey(priv);
}
