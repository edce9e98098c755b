/**
 * The key-pair families in one module: the target of the registry's dynamic
 * `import()` (`../key-types.ts`, {@link loadAsymmetricFamilies}). Everything a
 * key pair needs (the families, the `crypto/pki` codecs with pkijs and asn1js,
 * `@noble/curves`, ML-DSA) is reached only from here, so a bundle of the core
 * for symmetric use leaves it in a chunk that loads on first use of a
 * key-pair type (issue 22: the edge build).
 *
 * @module
 */
import type { KeyFamily } from '../families/family.js';
import { ecdsaFamily } from './ecdsa.js';
import { ed25519Family } from './ed25519.js';
import { mlDsaFamily } from './ml-dsa.js';
import { rsaFamily } from './rsa.js';

/** The key-pair families by the name the registry rows use. @internal */
export const ASYMMETRIC_FAMILIES = {
  ecdsa: ecdsaFamily,
  ed25519: ed25519Family,
  rsa: rsaFamily,
  'ml-dsa': mlDsaFamily,
} as const satisfies Readonly<Record<string, KeyFamily>>;

/** Their names. @internal */
export type AsymmetricFamilyName = keyof typeof ASYMMETRIC_FAMILIES;
