/**
 * The one constant-time byte comparison of the core: the noble backend's
 * `timingSafeEqual`, the RSA PKCS#1 v1.5 encode-and-compare check, the ML-DSA
 * expanded-key check and the token store's hash check all use it (the node
 * backend uses `node:crypto`'s). Lengths are not secret: different lengths
 * return `false` at once; equal lengths take the same time whatever the bytes.
 * @module
 */

/** `true` when `a` and `b` hold the same bytes; XOR accumulation over equal lengths. @internal */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return diff === 0;
}
