/**
 * The node backend's cheap small-order test (src/crypto/ed25519-small-order.ts)
 * agrees with a full ZIP 215 decode (noble) on every encoding of the eight
 * torsion points — canonical, with the sign bit flipped, and y + p where
 * that fits in 255 bits — and on ordinary public keys; and the node backend
 * refuses the universal forgery R = identity, S = 0 under such a key even when
 * it reached storage before import and restore refused it.
 */
import { ED25519_TORSION_SUBGROUP, ed25519 } from '@noble/curves/ed25519.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isSmallOrderEncoding } from '../../src/crypto/ed25519-small-order.js';
import { nobleBackend } from '../../src/crypto/noble/index.js';
import { nodeBackend } from '../../src/crypto/node/index.js';

const P = 2n ** 255n - 19n;
const fromHex = (h: string) => Uint8Array.from(Buffer.from(h, 'hex'));
const le = (n: bigint) => {
  const b = new Uint8Array(32);
  for (let i = 0; i < 32; i++) b[i] = Number((n >> BigInt(8 * i)) & 0xffn);
  return b;
};
const yOf = (b: Uint8Array) => {
  let y = 0n;
  for (let i = 31; i >= 0; i--)
    y = (y << 8n) | BigInt(i === 31 ? (b[i] as number) & 0x7f : (b[i] as number));
  return y;
};

/** Every encoding of the torsion points a lenient decoder reads. */
function torsionEncodings(): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const hex of ED25519_TORSION_SUBGROUP) {
    const canonical = fromHex(hex);
    const y = yOf(canonical);
    for (const yy of y + P < 2n ** 255n ? [y, y + P] : [y]) {
      for (const sign of [0, 0x80]) {
        const b = le(yy);
        b[31] = (b[31] as number) | sign;
        out.push(b);
      }
    }
  }
  return out;
}

const noble = (b: Uint8Array): boolean | 'invalid' => {
  try {
    return ed25519.Point.fromBytes(b, true).isSmallOrder();
  } catch {
    return 'invalid';
  }
};

describe('isSmallOrderEncoding', () => {
  it('agrees with a full decode on every torsion encoding', () => {
    const cases = torsionEncodings();
    expect(cases.length).toBeGreaterThanOrEqual(20);
    for (const b of cases) {
      const full = noble(b);
      // Where the decode refuses the point (a sign bit on x = 0), the cheap test may say
      // "small": refusing to verify under a key that is no point loses nothing.
      if (full !== 'invalid')
        expect(isSmallOrderEncoding(b), Buffer.from(b).toString('hex')).toBe(full);
      else expect(isSmallOrderEncoding(b)).toBe(true);
    }
  });

  it('says no for ordinary public keys', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (seed) => {
        expect(isSmallOrderEncoding(ed25519.getPublicKey(seed))).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});

describe('verify under a small-order key', () => {
  it.each([
    ['node', nodeBackend],
    ['noble', nobleBackend],
  ] as const)('%s refuses R = identity, S = 0 for any message', async (_name, backend) => {
    const identity = le(1n);
    const forged = new Uint8Array(64);
    forged.set(identity, 0);
    for (const key of torsionEncodings()) {
      expect(await backend.ed25519Verify(key, new TextEncoder().encode('any'), forged)).toBe(false);
    }
  });
});
