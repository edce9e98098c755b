/**
 * An Ed25519 public key of small order is refused at import (it has no
 * private key). The identity point imported, and the signature R = identity,
 * S = 0 then verified for every message on the node backend (OpenSSL,
 * cofactorless), not on noble's: a universal forgery, and two backends
 * giving different answers. Each of the eight torsion points is refused, and
 * the non-canonical encodings OpenSSL reads as such points; a real key still
 * imports.
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { describe, expect, it } from 'vitest';
import { enginePair } from './asym-support.js';
import { expectError } from './support.js';

function spkiPem(raw: Uint8Array): string {
  const der = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), raw]);
  return `-----BEGIN PUBLIC KEY-----\n${der.toString('base64')}\n-----END PUBLIC KEY-----\n`;
}

/** The eight points of small order: multiples of a point of order 8. */
function torsionPoints(): Uint8Array[] {
  // 26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05: a point of order 8.
  const t = ed25519.Point.fromHex(
    '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05',
  );
  const out: Uint8Array[] = [];
  let p = ed25519.Point.ZERO;
  for (let i = 0; i < 8; i++) {
    out.push(p.toBytes());
    p = p.add(t);
  }
  return out;
}

/**
 * Non-canonical encodings of small-order points that OpenSSL reads (and noble
 * refuses to decode strictly): the identity as y = p + 1, and the two points
 * with x = 0 with the sign bit set.
 */
const NON_CANONICAL = [
  `ee${'ff'.repeat(30)}7f`,
  `01${'00'.repeat(30)}80`,
  `ec${'ff'.repeat(31)}`,
].map((hex) => Uint8Array.from(Buffer.from(hex, 'hex')));

describe('Ed25519 public keys of small order', () => {
  it('are refused at import, in any encoding, on either backend; a real key imports', async () => {
    const pair = enginePair();
    const points = [...torsionPoints(), ...NON_CANONICAL];
    expect(new Set(points.map((p) => Buffer.from(p).toString('hex'))).size).toBe(11);
    for (const [i, point] of points.entries()) {
      for (const [name, t] of pair.engines) {
        await expectError(
          t.importKey(`weak-${name}-${i}`, {
            type: 'ed25519',
            public_key: spkiPem(point),
          } as never),
          'invalid_request',
          /small order/,
        );
      }
    }
    const real = ed25519.getPublicKey(ed25519.utils.randomSecretKey());
    await pair.node.importKey('real', { type: 'ed25519', public_key: spkiPem(real) } as never);
    expect((await pair.node.readKey('real')).type).toBe('ed25519');
  });
});
