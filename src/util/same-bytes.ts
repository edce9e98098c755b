/**
 * Byte equality for public data: stored records compared to spot a change
 * (a re-read key document, a token entry, a compare-and-set's expected
 * value). It exits at the first difference, so it is not for secrets: those
 * go through `constant-time.ts`.
 * @module
 */

/** Node's native comparison (`Buffer.compare`, a memcmp), where there is one. */
const nativeCompare = (globalThis as { Buffer?: { compare(a: Uint8Array, b: Uint8Array): number } })
  .Buffer?.compare;

/** From this length on, one native call costs less than the loop (a key document: 2–4 KB). */
const NATIVE_FROM = 64;

/** `true` when `a` and `b` hold the same bytes. @internal */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  if (nativeCompare && a.length >= NATIVE_FROM) return nativeCompare(a, b) === 0;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
