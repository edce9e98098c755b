/**
 * Global settings: `disable_upsert` and `cache-config` (spec "Global
 * configuration", Limits; reference §14; README: cache-config applies at once
 * and reaches every instance).
 */
import { MemoryStorage } from 'transitkit';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../helpers/fake-clock.js';
import { b64, expectError, makeEngine, settle, snapshot } from './support.js';

describe('keys config (disable_upsert)', () => {
  it('defaults to false', async () => {
    const { transit } = makeEngine();
    expect(await transit.readKeysConfig()).toEqual({ disable_upsert: false });
  });

  it('true stops encrypt from creating keys; existing keys still work; false restores upsert', async () => {
    const { transit, storage } = makeEngine();
    await transit.createKey('existing');
    expect(await transit.writeKeysConfig({ disable_upsert: true })).toEqual({
      disable_upsert: true,
    });
    expect(await transit.readKeysConfig()).toEqual({ disable_upsert: true });
    const before = await snapshot(storage);
    await expectError(
      transit.encrypt('new', { plaintext: b64('x') }),
      'invalid_request',
      'encryption key not found',
    );
    await expectError(
      transit.encrypt('new', {
        plaintext: b64('x'),
        context: b64('c'),
        convergent_encryption: true,
      }),
      'invalid_request',
      'encryption key not found',
    );
    expect(await snapshot(storage)).toEqual(before);
    const { ciphertext } = await transit.encrypt('existing', { plaintext: b64('x') });
    expect((await transit.decrypt('existing', { ciphertext })).plaintext).toBe(b64('x'));
    // createKey is not affected
    expect((await transit.createKey('explicit')).name).toBe('explicit');

    expect(await transit.writeKeysConfig({ disable_upsert: false })).toEqual({
      disable_upsert: false,
    });
    expect((await transit.encrypt('new', { plaintext: b64('x') })).key_version).toBe(1);
    expect((await transit.readKey('new')).type).toBe('aes256-gcm96');
  });

  it('an empty write resets to false', async () => {
    const { transit } = makeEngine();
    await transit.writeKeysConfig({ disable_upsert: true });
    expect(await transit.writeKeysConfig({})).toEqual({ disable_upsert: false });
    expect(await transit.readKeysConfig()).toEqual({ disable_upsert: false });
  });

  it('persists across a new Transit on the same storage', async () => {
    const clock = new FakeClock();
    const storage = new MemoryStorage({ clock });
    const first = makeEngine({ storage, clock }).transit;
    await first.writeKeysConfig({ disable_upsert: true });
    const second = makeEngine({ storage, clock }).transit;
    expect(await second.readKeysConfig()).toEqual({ disable_upsert: true });
    await expectError(
      second.encrypt('k', { plaintext: b64('x') }),
      'invalid_request',
      'encryption key not found',
    );
    await expectError(second.readKey('k'), 'not_found');
  });

  it('a change by one instance applies to another on the same storage (Vault reads it per request)', async () => {
    const a = makeEngine();
    const b = makeEngine({ storage: a.storage, clock: a.clock });
    expect(await b.transit.readKeysConfig()).toEqual({ disable_upsert: false });
    await a.transit.writeKeysConfig({ disable_upsert: true });
    await settle();
    expect(await b.transit.readKeysConfig()).toEqual({ disable_upsert: true });
    await expectError(
      b.transit.encrypt('k', { plaintext: b64('x') }),
      'invalid_request',
      'encryption key not found',
    );
  });
});

describe('cache config', () => {
  it('defaults to 0 (unlimited)', async () => {
    const { transit } = makeEngine();
    expect(await transit.readCacheConfig()).toEqual({ size: 0 });
  });

  it.each([10, 11, 100, 100_000, 0])('accepts size %i', async (size) => {
    const { transit } = makeEngine();
    expect(await transit.writeCacheConfig({ size })).toEqual({ size });
    expect(await transit.readCacheConfig()).toEqual({ size });
  });

  it.each([1, 5, 9, -1, -10])("refuses size %i with Vault's text", async (size) => {
    const { transit, storage } = makeEngine();
    await transit.writeCacheConfig({ size: 20 });
    const before = await snapshot(storage);
    await expectError(
      transit.writeCacheConfig({ size }),
      'invalid_request',
      'size must be 0 or a value greater or equal to 10',
    );
    expect(await transit.readCacheConfig()).toEqual({ size: 20 });
    expect(await snapshot(storage)).toEqual(before);
  });

  it('persists across a new Transit on the same storage', async () => {
    const clock = new FakeClock();
    const storage = new MemoryStorage({ clock });
    const first = makeEngine({ storage, clock }).transit;
    await first.writeCacheConfig({ size: 25 });
    const second = makeEngine({ storage, clock }).transit;
    expect(await second.readCacheConfig()).toEqual({ size: 25 });
    await second.writeCacheConfig({ size: 0 });
    expect(await makeEngine({ storage, clock }).transit.readCacheConfig()).toEqual({ size: 0 });
  });

  it('reaches every instance on the same storage (README "what we do better")', async () => {
    const a = makeEngine();
    const b = makeEngine({ storage: a.storage, clock: a.clock });
    expect(await b.transit.readCacheConfig()).toEqual({ size: 0 });
    await a.transit.writeCacheConfig({ size: 40 });
    await settle();
    expect(await b.transit.readCacheConfig()).toEqual({ size: 40 });
  });

  it('a small cache evicts parsed keys without changing results', async () => {
    const { transit, storage } = makeEngine();
    await transit.writeCacheConfig({ size: 10 });
    const cts: string[] = [];
    for (let i = 0; i < 30; i++) {
      await transit.createKey(`k${i}`, { type: i % 2 ? 'chacha20-poly1305' : 'aes128-gcm96' });
      cts.push((await transit.encrypt(`k${i}`, { plaintext: b64(`p${i}`) })).ciphertext);
    }
    for (let i = 0; i < 30; i += 3) await transit.rotateKey(`k${i}`);
    for (let round = 0; round < 2; round++) {
      for (let i = 29; i >= 0; i--) {
        expect((await transit.decrypt(`k${i}`, { ciphertext: cts[i] as string })).plaintext).toBe(
          b64(`p${i}`),
        );
        expect((await transit.readKey(`k${i}`)).latest_version).toBe(i % 3 === 0 ? 2 : 1);
      }
    }
    // shrinking the cache at run time keeps everything consistent
    await transit.writeCacheConfig({ size: 0 });
    await transit.writeCacheConfig({ size: 10 });
    expect((await transit.listKeys()).keys).toHaveLength(30);
    expect(Object.keys(await snapshot(storage)).length).toBeGreaterThanOrEqual(31);
  });
});
