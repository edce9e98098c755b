/**
 * Class identity across copies of the package (src/util/brand.ts): the ESM
 * and CommonJS builds, or two copies in one process, define their classes
 * twice. A `Leadership` from one copy was refused by the other's `Transit`
 * ("'leadership' must be a Leadership"), and a custom backend's
 * `AeadAuthError` from one copy was not recognised as a failed tag by the
 * other. Two copies are made here by loading the modules twice.
 */
import { describe, expect, it, vi } from 'vitest';
import { MemoryStorage } from '../../src/storage/memory.js';

async function twoCopies<T>(path: string): Promise<[T, T]> {
  vi.resetModules();
  const a = (await import(path)) as T;
  vi.resetModules();
  const b = (await import(path)) as T;
  return [a, b];
}

describe('instanceof across copies of the package', () => {
  it('AeadAuthError and RsaDecryptionError from another copy are recognised', async () => {
    type Backend = typeof import('../../src/crypto/backend.js');
    type Asym = typeof import('../../src/crypto/asymmetric-backend.js');
    const [a, b] = await twoCopies<Backend>('../../src/crypto/backend.js');
    expect(a.AeadAuthError).not.toBe(b.AeadAuthError);
    expect(new b.AeadAuthError()).toBeInstanceOf(a.AeadAuthError);
    expect(new Error('message authentication failed')).not.toBeInstanceOf(a.AeadAuthError);
    const [x, y] = await twoCopies<Asym>('../../src/crypto/asymmetric-backend.js');
    expect(new y.RsaDecryptionError()).toBeInstanceOf(x.RsaDecryptionError);
    expect(new y.RsaDecryptionError()).not.toBeInstanceOf(a.AeadAuthError);
  });

  it("a Transit accepts another copy's Leadership; a subclass keeps the ordinary check", async () => {
    type Lead = typeof import('../../src/node/leadership.js');
    const [a, b] = await twoCopies<Lead>('../../src/node/leadership.js');
    const storage = new MemoryStorage();
    const foreign = new b.Leadership({ storage, ttlMs: 10_000, refreshMs: 2_500 });
    expect(foreign).toBeInstanceOf(a.Leadership);
    vi.resetModules();
    const { Transit } = await import('../../src/transit/transit.js');
    const t = new Transit({ storage, leadership: foreign as never, autoRotate: false });
    await t.createKey('k');
    await t.close();
    class Sub extends a.Leadership {}
    expect(new a.Leadership({ storage, ttlMs: 10_000, refreshMs: 2_500 })).not.toBeInstanceOf(Sub);
    expect({}).not.toBeInstanceOf(a.Leadership);
  });
});
