/**
 * The Transit constructor's options (src/transit/options.ts): a misspelt
 * option, or a `storage` that is present but not a storage adapter, is
 * refused instead of silently becoming a default — a `storge` typo used to
 * run on memory storage and lose every key at the next restart.
 */
import { describe, expect, it } from 'vitest';
import { MemoryStorage } from '../../src/storage/memory.js';
import { Transit } from '../../src/transit/transit.js';

describe('Transit options', () => {
  it('refuses an unknown option, naming it', () => {
    const storage = new MemoryStorage();
    for (const [bad, name] of [
      [{ storge: storage }, 'storge'],
      [{ autoRotate: false, maxBatchSze: 1 }, 'maxBatchSze'],
      [{ cache_size: 10 }, 'cache_size'],
    ] as const) {
      expect(() => new Transit(bad as never)).toThrow(
        expect.objectContaining({
          code: 'invalid_request',
          message: `unknown Transit option '${name}'`,
        }),
      );
    }
  });

  it('refuses a storage that is present but not an adapter (undefined included): never memory by accident', () => {
    for (const storage of [undefined, null, {}, 'file', { get() {} }]) {
      expect(() => new Transit({ storage: storage as never, autoRotate: false })).toThrow(
        "'storage' must be a StorageAdapter (omit it for memory storage)",
      );
    }
  });

  it('omitted storage is memory storage, as documented', async () => {
    for (const t of [new Transit(), new Transit({ autoRotate: false })]) {
      await t.createKey('k');
      const { ciphertext } = await t.encrypt('k', { plaintext: 'aGk=' });
      expect((await t.decrypt('k', { ciphertext })).plaintext).toBe('aGk=');
      await t.close();
    }
  });
});
