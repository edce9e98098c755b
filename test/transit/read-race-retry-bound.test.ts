/**
 * againIfChanged (src/transit/engine.ts) runs an operation again at most
 * CHANGE_RETRIES (8) times after another instance changed the key under an
 * archived read. A first version re-ran decrypt/encrypt/hmac through their
 * public function, which wrapped each retry in a new loop with a fresh
 * counter, so the bound never applied.
 *
 * Here an archived entry is unreadable (missing) and another instance rotates
 * the key each time it is looked for: the call gives up after at most 1 + 8
 * archived reads (the test would stop it at 60 with a non-internal error).
 */
import { describe, expect, it } from 'vitest';
import { MemoryStorage, type StorageAdapter, Transit } from '../../src/index.js';

describe('againIfChanged: the retry bound holds', () => {
  it('decrypt of an archived version gives up after CHANGE_RETRIES re-runs', async () => {
    const base = new MemoryStorage();
    const other = new Transit({ storage: base, autoRotate: false });
    await other.createKey('k');
    const { ciphertext } = (await other.encrypt('k', { plaintext: 'aGk=' })) as {
      ciphertext: string;
    };
    for (let i = 0; i < 20; i++) await other.rotateKey('k');

    let archiveReads = 0;
    let missing = false;
    const storage: StorageAdapter = {
      get: async (key) => {
        if (missing && key.startsWith('transit/archive/k/') && key.endsWith('0000000001')) {
          archiveReads++;
          if (archiveReads > 60) throw new Error('stopped by the test');
          // Another instance changes the key meanwhile.
          await other.rotateKey('k');
          return undefined;
        }
        return base.get(key);
      },
      put: (k, v) => base.put(k, v),
      delete: (k) => base.delete(k),
      list: (p, o) => base.list(p, o),
      compareAndSet: (k, e, n) => base.compareAndSet(k, e, n),
    };
    const t = new Transit({ storage, autoRotate: false });
    missing = true;
    await expect(t.decrypt('k', { ciphertext })).rejects.toThrow();
    expect(archiveReads).toBeLessThanOrEqual(9);
  }, 20_000);
});
