/**
 * Key material in and out of the BYOK format (reference §7): what an
 * imported blob or `public_key` becomes as a version, and what byok-export
 * wraps. The key type's family does the conversion:
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

import { encodeSpki } from '../crypto/pki/keys.js';
import { invalidRequest } from '../errors.js';
import { familyOf } from '../keys/asymmetric/family.js';
import type { AsymmetricMaterial } from '../keys/asymmetric/material.js';
import type { ImportedMaterial } from '../keys/families/family.js';
import type { KeyTypeInfo } from '../keys/key-types.js';
import type { KeyVersion } from '../keys/policy.js';
import type { Engine } from './engine.js';

export type { ImportedMaterial } from '../keys/families/family.js';

/**
 * The version material of imported private bytes for a key of type `info`.
 * @throws TransitError `invalid_request` for a wrong size, format, family, curve or modulus.
 * @internal
 */
export const privateMaterial = (
  e: Engine,
  info: KeyTypeInfo,
  bytes: Uint8Array,
): Promise<ImportedMaterial> => info.family.importPrivate(e.backend, info, bytes);

/**
 * The public-only version material of a PKIX PEM for a key of type `info`.
 * @throws TransitError `invalid_request` for a symmetric type or a key that does not fit.
 * @internal
 */
export const publicMaterial = (info: KeyTypeInfo, pem: string): ImportedMaterial =>
  info.family.importPublic(info, pem);

/** The SPKI DER of a version's public key (for comparing key pairs). @internal */
export function publicDer(info: KeyTypeInfo, m: AsymmetricMaterial): Uint8Array {
  return encodeSpki(familyOf(info).publicKey(m));
}

/** True when the version holds no private key (a public-key import). @internal */
export const isPublicOnly = (info: KeyTypeInfo, v: KeyVersion): boolean =>
  info.family.isPublicOnly(v);

/**
 * The bytes byok-export wraps: the raw key, or the PKCS#8 private key.
 * @throws TransitError `invalid_request` for a public-only version.
 * @internal
 */
export function exportMaterial(info: KeyTypeInfo, v: KeyVersion, n: number): Uint8Array {
  const bytes = info.family.byokMaterial(v);
  if (!bytes) throw invalidRequest(`key version ${n} has no private key to export`);
  return bytes;
}
