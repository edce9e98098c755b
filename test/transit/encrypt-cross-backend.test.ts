/**
 * Cross-backend data: ciphertexts and HMACs written through one crypto backend
 * read through the other, on one shared storage (reference §14).
 */

import type { CryptoBackend } from 'transitkit';
import { MemoryStorage, Transit } from 'transitkit';
import { describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { b64, SYMMETRIC_TYPES, settle } from './support.js';

describe('cross-backend data', () => {
  const pair = () => {
    const clock = new FakeClock();
    const storage = new MemoryStorage({ clock });
    const [[, nodeB], [, nobleB]] = BACKENDS as [
      readonly [string, CryptoBackend],
      readonly [string, CryptoBackend],
    ];
    const node = new Transit({ storage, clock, crypto: nodeB, autoRotate: false });
    const noble = new Transit({ storage, clock, crypto: nobleB, autoRotate: false });
    return { node, noble, storage };
  };

  it.each(SYMMETRIC_TYPES)(
    '%s ciphertexts decrypt on the other backend, with AAD and derivation',
    async (type) => {
      const { node, noble } = pair();
      await node.createKey('k', { type });
      await node.createKey('d', { type, derived: true });
      await node.createKey('c', { type, derived: true, convergent_encryption: true });
      const aad = b64('aad');
      const ctx = b64('ctx');
      for (const [from, to] of [
        [node, noble],
        [noble, node],
      ] as const) {
        const a = await from.encrypt('k', { plaintext: b64('plain'), associated_data: aad });
        expect(
          (await to.decrypt('k', { ciphertext: a.ciphertext, associated_data: aad })).plaintext,
        ).toBe(b64('plain'));
        const d = await from.encrypt('d', { plaintext: b64('derived'), context: ctx });
        expect((await to.decrypt('d', { ciphertext: d.ciphertext, context: ctx })).plaintext).toBe(
          b64('derived'),
        );
        const c = await from.encrypt('c', { plaintext: b64('conv'), context: ctx });
        expect(c.ciphertext).toBe(
          (await to.encrypt('c', { plaintext: b64('conv'), context: ctx })).ciphertext,
        );
        expect((await to.decrypt('c', { ciphertext: c.ciphertext, context: ctx })).plaintext).toBe(
          b64('conv'),
        );
        const { hmac } = await from.hmac('k', { input: b64('m'), algorithm: 'sha3-256' });
        expect(await to.verify('k', { input: b64('m'), hmac, hash_algorithm: 'sha3-256' })).toEqual(
          { valid: true },
        );
      }
    },
  );

  it('a rotation by one instance is visible to the other (no stale key cache)', async () => {
    const { node, noble } = pair();
    await node.createKey('k');
    await noble.encrypt('k', { plaintext: b64('x') }); // noble caches k at v1
    await node.rotateKey('k');
    const v2 = await node.encrypt('k', { plaintext: b64('y') });
    expect(v2.key_version).toBe(2);
    await settle();
    expect((await noble.decrypt('k', { ciphertext: v2.ciphertext })).plaintext).toBe(b64('y'));
    expect((await noble.encrypt('k', { plaintext: b64('z') })).key_version).toBe(2);
  });
});
