/**
 * Raw RSA (RSAEP/RSADP/RSASP1/RSAVP1, RFC 8017 §5) on BigInt, for the noble
 * backend only, and only where WebCrypto cannot express the operation:
 * prehashed PSS and PKCS#1 v1.5 (a digest instead of a message), hash `none`,
 * hashes WebCrypto lacks (SHA-224, SHA-3), PSS verification with salt `auto`,
 * and OAEP with SHA-224. The node backend does the same steps with OpenSSL
 * (`RSA_NO_PADDING`) instead of this module. The encodings are in
 * `./rsa-padding.ts`.
 *
 * Side-channel hardening of the private operation (JavaScript BigInt is not
 * constant-time, so these are mitigations, not guarantees; prefer the node
 * backend on servers):
 * - base blinding: `c' = c·rᵉ mod n` with `r` uniform from the platform CSPRNG,
 *   unblinded with `r⁻¹` after the CRT exponentiation;
 * - exponent blinding: `dp' = dp + r₁·(p−1)`, `dq' = dq + r₂·(q−1)` with fresh
 *   64-bit `r₁`, `r₂`, so that the exponent bits differ on every call;
 * - the result is checked (`mᵉ ≡ c`) before release, against fault attacks
 *   (as Go and OpenSSL do).
 * Modular exponentiation and inversion come from `@noble/curves` (fixed-window
 * `pow`, `invert`), not hand-written.
 *
 * Runtime-neutral: no `node:` import.
 *
 * @module
 */
import { invert, pow } from '@noble/curves/abstract/modular.js';
import { randomBytes } from '@noble/hashes/utils.js';
import type { RsaPrivateKey, RsaPublicKey } from './asymmetric-backend.js';
import { modulusBytes, toBigInt, toBytes } from './asymmetric-checks.js';

/** Extra random bytes when reducing a random number mod n (bias ≤ 2⁻⁶⁴). */
const REDUCTION_SLACK = 8;
/** Size of the exponent-blinding multipliers, in bytes. */
const EXPONENT_BLINDING_BYTES = 8;

/**
 * RSAEP / RSAVP1: `inputᵉ mod n`, for a `k`-byte big-endian input.
 * @returns the `k`-byte result, or `undefined` when the input is not `k` bytes
 * or its value is not below `n` (RFC 8017 "out of range").
 * @internal
 */
export function rsaPublicRaw(key: RsaPublicKey, input: Uint8Array): Uint8Array | undefined {
  const k = modulusBytes(key.n);
  if (input.length !== k) return undefined;
  const c = toBigInt(input);
  if (c >= key.n) return undefined;
  return toBytes(pow(c, key.e, key.n), k);
}

/** A uniform r in [2, n−1] with gcd(r, n) = 1, and r⁻¹ mod n. */
function blindingPair(n: bigint, k: number): { r: bigint; rInv: bigint } {
  for (;;) {
    const r = toBigInt(randomBytes(k + REDUCTION_SLACK)) % n;
    if (r < 2n) continue;
    try {
      return { r, rInv: invert(r, n) };
    } catch {
      // gcd(r, n) ≠ 1: r shares a prime with n (probability ~2⁻¹⁰²⁴); draw again.
    }
  }
}

/** A random 64-bit multiplier for exponent blinding. */
function blindingMultiplier(): bigint {
  return toBigInt(randomBytes(EXPONENT_BLINDING_BYTES));
}

/**
 * RSADP / RSASP1 with CRT, base and exponent blinding, and a result check.
 * @returns the `k`-byte result, or `undefined` when the input is not `k` bytes
 * or not below `n`.
 * @throws Error when the self-check fails (a fault or an inconsistent key).
 * @internal
 */
export function rsaPrivateRaw(key: RsaPrivateKey, input: Uint8Array): Uint8Array | undefined {
  const { n, e, p, q, dp, dq, qi } = key;
  const k = modulusBytes(n);
  if (input.length !== k) return undefined;
  const c = toBigInt(input);
  if (c >= n) return undefined;
  const { r, rInv } = blindingPair(n, k);
  const blinded = (c * pow(r, e, n)) % n;
  const m1 = pow(blinded % p, dp + blindingMultiplier() * (p - 1n), p);
  const m2 = pow(blinded % q, dq + blindingMultiplier() * (q - 1n), q);
  const h = (qi * (((m1 - m2) % p) + p)) % p;
  const m = ((m2 + h * q) * rInv) % n;
  if (pow(m, e, n) !== c) throw new Error('RSA private operation failed its consistency check');
  return toBytes(m, k);
}
