/**
 * An engine's own write against one of its loads in flight, on storage that
 * sends no change notifications (the file store): the load read the bytes
 * the write replaced, and finishes after the write returned. It must not
 * cache what it read as fresh: once `deleteKey` or `updateKeyConfig` has
 * returned, the same engine answers from the new state, not for up to the
 * cache's re-check age from the old one (a deleted key still decrypting, a
 * raised `min_decryption_version` not applying). Over the real file store,
 * with its reads of the key's document held back on demand.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileStorage } from '../../adapters/file/index.js';
import { FakeClock } from '../../adapters/testing/fake-clock.js';
import { Transit } from '../../src/index.js';

const plaintext = btoa('attack at dawn');
const POLICY = 'transit/policy/k';
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A file store whose next read of the key document, once armed, reads the bytes, then waits. */
async function heldFileStore(clock: FakeClock) {
  const dir = mkdtempSync(join(tmpdir(), 'tk-own-write-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const storage = await FileStorage.open(dir, { clock });
  cleanups.push(() => storage.close());
  const realGet = storage.get.bind(storage);
  const hold = { armed: false, held: false, release: () => {} };
  storage.get = async (key: string) => {
    const value = await realGet(key);
    if (key === POLICY && hold.armed) {
      hold.armed = false;
      hold.held = true;
      await new Promise<void>((r) => {
        hold.release = r;
      });
    }
    return value;
  };
  return { storage, hold };
}

const until = async (cond: () => boolean) => {
  while (!cond()) await new Promise((r) => setTimeout(r, 5));
};

const outcome = (p: Promise<unknown>): Promise<string> =>
  p.then(
    () => 'resolved',
    (e: unknown) => (e as Error).message,
  );

describe("an engine's own write against its load in flight (no notifications)", () => {
  it('after deleteKey returns, the key is gone for this engine', async () => {
    const clock = new FakeClock();
    const { storage, hold } = await heldFileStore(clock);
    const t = new Transit({ storage, clock, autoRotate: false });
    cleanups.push(() => t.close());
    await t.createKey('k');
    await t.updateKeyConfig('k', { deletion_allowed: true });
    const { ciphertext } = await t.encrypt('k', { plaintext });
    clock.advance(1_500); // the cached key is due for its re-check
    hold.armed = true;
    const inFlight = outcome(t.decrypt('k', { ciphertext })); // reads the document, then waits
    await until(() => hold.held);
    await t.deleteKey('k');
    expect(await storage.get(POLICY)).toBeUndefined();
    hold.release();
    await inFlight; // began before the delete: either answer is right
    expect(await outcome(t.decrypt('k', { ciphertext }))).toBe('encryption key not found');
    expect(await outcome(t.encrypt('k', { plaintext }, { upsert: false }))).toBe(
      'encryption key not found',
    );
  });

  it('after min_decryption_version is raised, this engine refuses the old version', async () => {
    const clock = new FakeClock();
    const { storage, hold } = await heldFileStore(clock);
    // A bounded cache, so that `k` can be evicted: its next read is then a
    // plain load, which the config update's own read does not join.
    const t = new Transit({ storage, clock, autoRotate: false, cacheSize: 10 });
    cleanups.push(() => t.close());
    await t.createKey('k');
    await t.rotateKey('k');
    const { ciphertext } = await t.encrypt('k', { plaintext, key_version: 1 });
    for (let i = 0; i < 10; i++) await t.createKey(`other-${i}`); // evicts k
    hold.armed = true;
    const inFlight = outcome(t.decrypt('k', { ciphertext }));
    await until(() => hold.held);
    expect(
      (await t.updateKeyConfig('k', { min_decryption_version: 2 })).min_decryption_version,
    ).toBe(2);
    hold.release();
    await inFlight;
    expect(await outcome(t.decrypt('k', { ciphertext }))).toBe(
      'ciphertext or signature version is disallowed by policy (too old)',
    );
  });

  it('without a load in flight, a write leaves the written key cached: no read after it', async () => {
    const clock = new FakeClock();
    const { storage } = await heldFileStore(clock);
    const t = new Transit({ storage, clock, autoRotate: false });
    cleanups.push(() => t.close());
    await t.createKey('k');
    const { ciphertext } = await t.encrypt('k', { plaintext });
    await t.rotateKey('k');
    let reads = 0;
    const counted = storage.get;
    storage.get = (key: string) => {
      if (key === POLICY) reads++;
      return counted(key);
    };
    expect((await t.decrypt('k', { ciphertext })).plaintext).toBe(plaintext);
    expect((await t.encrypt('k', { plaintext })).key_version).toBe(2);
    expect(reads).toBe(0);
  });
});
