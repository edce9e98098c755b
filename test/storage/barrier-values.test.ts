/**
 * Barrier is a public StorageAdapter: a value, `expected` or `next` that is
 * not a Uint8Array is refused with `invalid_request` before it reaches the
 * crypto backend (which threw a plain TypeError), and the storage conformance
 * suite passes whole on a barrier over memory.
 */
import { runStorageConformance } from 'transitkit/testing';
import { describe, expect, it } from 'vitest';
import { nobleBackend } from '../../src/crypto/noble/index.js';
import { nodeBackend } from '../../src/crypto/node/index.js';
import { isTransitError } from '../../src/errors.js';
import { Keyring } from '../../src/node/keyring.js';
import { Barrier } from '../../src/storage/barrier.js';
import { MemoryStorage } from '../../src/storage/memory.js';

const b = (s: string) => new TextEncoder().encode(s);

for (const [name, backend] of [
  ['node', nodeBackend],
  ['noble', nobleBackend],
] as const) {
  describe(`Barrier refuses non-byte values with a TransitError (${name} backend)`, () => {
    const open = () => {
      const barrier = new Barrier(new MemoryStorage(), backend);
      barrier.unseal(Keyring.create(backend, 0));
      return barrier;
    };
    const failure = (p: Promise<unknown>) =>
      p.then(
        () => 'resolved',
        (e: unknown) => e,
      );

    it('put with a string value', async () => {
      const e = await failure(open().put('k', 'secret text' as unknown as Uint8Array));
      expect(isTransitError(e, 'invalid_request'), String(e)).toBe(true);
    });

    it('compareAndSet with a string next', async () => {
      const e = await failure(open().compareAndSet('k', undefined, 'x' as unknown as Uint8Array));
      expect(isTransitError(e, 'invalid_request'), String(e)).toBe(true);
    });

    it('compareAndSet with a string expected on a present key', async () => {
      const barrier = open();
      await barrier.put('k', b('v'));
      const e = await failure(barrier.compareAndSet('k', 'v' as unknown as Uint8Array, b('w')));
      expect(isTransitError(e, 'invalid_request'), String(e)).toBe(true);
    });
  });
}

// The storage conformance suite on the barrier (memory below it).
runStorageConformance({ describe, it, expect }, 'barrier over memory', async () => {
  const barrier = new Barrier(new MemoryStorage(), nodeBackend);
  barrier.unseal(Keyring.create(nodeBackend, 0));
  return { storage: barrier };
});
