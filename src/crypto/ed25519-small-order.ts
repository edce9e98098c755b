/**
 * Ed25519 public keys of small order (the identity and the other seven
 * torsion points), recognised in every encoding OpenSSL reads: the
 * y-coordinate (the low 255 bits, little-endian, reduced mod p for the
 * non-canonical y ≥ p) is one of the torsion points' (each y gives a point
 * and its negation, both torsion points; the sign bit does not matter). A
 * cheap test (no square root), for the node backend's verify: under such a
 * key OpenSSL's cofactorless check accepts R = identity, S = 0 for every
 * message. Import and restore refuse such keys (`pki/spki.ts`); this also
 * covers keys stored before they did. Loaded on first use.
 * @module
 */
import { ED25519_TORSION_SUBGROUP } from '@noble/curves/ed25519.js';

const P = 2n ** 255n - 19n;

/** The low 255 bits of a 32-byte encoding, little-endian, mod p. */
function yOf(bits: Uint8Array): bigint {
  let y = 0n;
  for (let i = 31; i >= 0; i--)
    y = (y << 8n) | BigInt(i === 31 ? (bits[i] as number) & 0x7f : (bits[i] as number));
  return y >= P ? y - P : y;
}

const TORSION_Y = new Set(
  ED25519_TORSION_SUBGROUP.map((hex) => {
    const bits = new Uint8Array(32);
    for (let i = 0; i < 32; i++) bits[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
    return yOf(bits);
  }),
);

/** Whether a 32-byte Ed25519 public key encodes a point of small order. @internal */
export function isSmallOrderEncoding(bits: Uint8Array): boolean {
  return bits.length === 32 && TORSION_Y.has(yOf(bits));
}
