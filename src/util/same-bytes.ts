/**
 * Byte equality for public data: stored records compared to spot a change
 * (a re-read key document, a token entry, a compare-and-set's expected
 * value). It exits at the first difference, so it is not for secrets: those
 * go through `constant-time.ts`.
 * @module
 */

/** `true` when `a` and `b` hold the same bytes. @internal */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
