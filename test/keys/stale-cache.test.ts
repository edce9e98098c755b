/**
 * The parsed-key cache after a change notification: the entry stays only as
 * a parse cache. The next call reads storage again (a notification is never
 * ignored, whoever wrote), and decodes only when the stored bytes differ, so
 * an engine that hears of its own write does not decode the document it just
 * wrote; any other change is decoded and served, a failed read is an error
 * (never the stale key), and a check that was in flight when the change came
 * is not joined by later calls.
 */
import { MemoryStorage, Transit } from 'transitkit';
import { describe, expect, it, vi } from 'vitest';

const decodes = vi.hoisted(() => ({ n: 0 }));
vi.mock('../../src/keys/policy-codec.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/keys/policy-codec.js')>();
  return {
    ...real,
    decodeStoredDocument: (...args: Parameters<typeof real.decodeStoredDocument>) => {
      decodes.n++;
      return real.decodeStoredDocument(...args);
    },
  };
});

const FOX = 'dGhlIHF1aWNrIGJyb3duIGZveA==';
const POLICY = 'transit/policy/k';
const settle = () => new Promise((r) => setImmediate(r));

/** Counts reads of the key's document; can fail them, or hold one back. */
class Probe extends MemoryStorage {
  reads = 0;
  failing = false;
  /** The next document read takes the stored bytes now and answers them when released. */
  held: { release: () => void } | undefined;
  #hold = false;

  holdNextRead(): void {
    this.#hold = true;
  }

  override async get(key: string): Promise<Uint8Array | undefined> {
    if (key !== POLICY) return super.get(key);
    this.reads++;
    if (this.failing) throw new Error('storage unavailable');
    const value = await super.get(key);
    if (this.#hold) {
      this.#hold = false;
      await new Promise<void>((release) => {
        this.held = { release };
      });
    }
    return value;
  }
}

/** Two engines on one store (each hears of the other's writes, and of its own). */
function twoEngines() {
  const storage = new Probe();
  return {
    storage,
    a: new Transit({ storage, autoRotate: false }),
    b: new Transit({ storage, autoRotate: false }),
  };
}

const versionOf = (ciphertext: string) => Number(/^vault:v(\d+):/.exec(ciphertext)?.[1]);

describe('the key cache after a change notification', () => {
  it('re-reads storage after every write it hears of, but does not decode its own write again', async () => {
    const storage = new Probe();
    const transit = new Transit({ storage, autoRotate: false });
    await transit.createKey('k');
    await transit.encrypt('k', { plaintext: FOX });
    for (let i = 0; i < 5; i++) {
      storage.reads = 0;
      decodes.n = 0;
      await transit.rotateKey('k');
      await settle();
      const { ciphertext } = await transit.encrypt('k', { plaintext: FOX });
      expect(versionOf(ciphertext)).toBe(i + 2);
      // The rotate starts from a checked entry (the encrypt before it read
      // storage); the encrypt after it hears of the rotate's write and reads
      // storage once more. No decode either time.
      expect(storage.reads).toBe(1);
      expect(decodes.n).toBe(0);
    }
    await transit.close();
  });

  it("serves another engine's change, decoded, right after a write of its own", async () => {
    const { storage, a, b } = twoEngines();
    await a.createKey('k');
    await a.rotateKey('k'); // a's entry: its own write, stale
    await b.rotateKey('k');
    await b.updateKeyConfig('k', { min_encryption_version: 2 });
    await settle();
    decodes.n = 0;
    storage.reads = 0;
    const { ciphertext } = await a.encrypt('k', { plaintext: FOX });
    expect(versionOf(ciphertext)).toBe(3);
    expect(storage.reads).toBe(1);
    expect(decodes.n).toBe(1);
    expect((await a.readKey('k')).min_encryption_version).toBe(2);
    await Promise.all([a.close(), b.close()]);
  });

  it('a failed re-read is an error, never the stale key; it serves again once storage answers', async () => {
    const { storage, a, b } = twoEngines();
    await a.createKey('k');
    await a.encrypt('k', { plaintext: FOX }); // cached in a
    await b.rotateKey('k');
    await settle();
    storage.failing = true;
    await expect(a.encrypt('k', { plaintext: FOX })).rejects.toThrow('storage unavailable');
    await expect(a.decrypt('k', { ciphertext: 'vault:v1:AAAA' })).rejects.toThrow(
      'storage unavailable',
    );
    storage.failing = false;
    const { ciphertext } = await a.encrypt('k', { plaintext: FOX });
    expect(versionOf(ciphertext)).toBe(2);
    await Promise.all([a.close(), b.close()]);
  });

  it('a call after a change never joins a check that began before it', async () => {
    const { storage, a, b } = twoEngines();
    await a.createKey('k');
    await a.rotateKey('k'); // a's entry is stale (its own write): the next call checks
    await settle();
    storage.holdNextRead();
    const early = a.encrypt('k', { plaintext: FOX }); // reads version 2's document, held
    await vi.waitFor(() => expect(storage.held).toBeDefined());
    await b.rotateKey('k'); // version 3; a hears of it
    await settle();
    // Joining the held check would wait for it (and answer version 2).
    const late = await Promise.race([
      a.encrypt('k', { plaintext: FOX }),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error('joined the check held in flight')), 2_000),
      ),
    ]);
    expect(versionOf(late.ciphertext)).toBe(3);
    storage.held?.release();
    // The call made before the change may answer with what storage held then.
    expect(versionOf((await early).ciphertext)).toBe(2);
    // And that late answer does not put the older key back in the cache.
    expect(versionOf((await a.encrypt('k', { plaintext: FOX })).ciphertext)).toBe(3);
    await Promise.all([a.close(), b.close()]);
  });
});
