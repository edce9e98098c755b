/**
 * Ed25519 (RFC 8032, pure) with `@noble/curves`, for the noble backend.
 *
 * Verification is strict (`zip215: false`): canonical encodings of R and A,
 * S < L — the RFC 8032 / Go / OpenSSL rules, so that a signature Vault
 * rejects is rejected here. noble checks the cofactored equation and refuses
 * small-order public keys; Go and OpenSSL use the cofactorless equation. The
 * two differ only on signatures crafted with mixed-order points, which no
 * honest signer produces.
 *
 * No `node:` import.
 *
 * @module
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import type { Ed25519PrivateKey } from '../asymmetric-backend.js';
import { assertBytes, checkSeed } from '../asymmetric-checks.js';

/** A new seed from the CSPRNG. @internal */
export async function nobleGenerateEd25519(): Promise<Ed25519PrivateKey> {
  return { seed: ed25519.utils.randomSecretKey() };
}

/** The public key of a seed. @internal */
export async function nobleEd25519PublicKey(key: Ed25519PrivateKey): Promise<Uint8Array> {
  return ed25519.getPublicKey(checkSeed(key));
}

/** Sign (deterministic). @internal */
export async function nobleEd25519Sign(
  key: Ed25519PrivateKey,
  message: Uint8Array,
): Promise<Uint8Array> {
  const seed = checkSeed(key);
  assertBytes(message, 'message');
  return ed25519.sign(message, seed);
}

/** Verify; false for any malformed signature or public key. @internal */
export async function nobleEd25519Verify(
  publicKey: Uint8Array,
  message: Uint8Array,
  signature: Uint8Array,
): Promise<boolean> {
  assertBytes(publicKey, 'publicKey');
  assertBytes(message, 'message');
  assertBytes(signature, 'signature');
  try {
    return ed25519.verify(signature, message, publicKey, { zip215: false });
  } catch {
    return false;
  }
}
