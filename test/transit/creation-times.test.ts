/**
 * The read body's version listing, kept per key (src/transit/creation-times.ts):
 * every reply that lists versions (rotate, trim, config, read) must equal a
 * listing built from scratch, whatever changed in between — rotations here or
 * on another instance, trim, `min_decryption_version` up and down, a key
 * deleted and re-created, a restore — and a caller changing a reply must not
 * change the next one.
 */
import { describe, expect, it } from 'vitest';
import type { LoadedKey } from '../../src/keys/policy-store.js';
import { CreationTimes, type Snapshot } from '../../src/transit/creation-times.js';
import { createKey } from '../../src/transit/keys.js';
import { engineFromOptions } from '../../src/transit/options.js';
import { rotate } from '../../src/transit/rotate-config.js';
import { listingFromScratch, makeEngine, rotateTimes, settle } from './support.js';

/** A listing as `keyInfo` hands it out: a snapshot is copied on first read. */
const plain = (l: Record<number, number> | Snapshot) => (typeof l === 'function' ? l() : l);

describe('the read body listing kept per key', () => {
  it('rotate, trim and config replies equal a listing built from scratch', async () => {
    const e = makeEngine({ extra: { maxKeyVersions: 1000 } });
    await e.transit.createKey('k');
    let info = await rotateTimes(e, 'k', 99, 1000);
    expect(Object.keys(info.keys)).toHaveLength(100);
    expect(info.keys).toEqual(await listingFromScratch(e, 'k'));
    // The listing is kept now; the next rotation extends it.
    info = await rotateTimes(e, 'k', 3, 1000);
    expect(Object.keys(info.keys).map(Number)).toEqual(
      Array.from({ length: 103 }, (_, i) => i + 1),
    );
    expect(info.keys).toEqual(await listingFromScratch(e, 'k'));
    const times = Object.values(info.keys) as number[];
    expect(new Set(times).size).toBe(103);

    // min_decryption_version up, then down again: the listing starts elsewhere.
    info = await e.transit.updateKeyConfig('k', { min_decryption_version: 40 });
    expect(Object.keys(info.keys)).toHaveLength(64);
    expect(info.keys).toEqual(await listingFromScratch(e, 'k'));
    info = await rotateTimes(e, 'k', 1, 1000);
    expect(info.keys).toEqual(await listingFromScratch(e, 'k'));
    info = await e.transit.updateKeyConfig('k', { min_decryption_version: 1 });
    expect(Object.keys(info.keys)).toHaveLength(104);
    expect(info.keys).toEqual(await listingFromScratch(e, 'k'));

    // Trim (below min_decryption_version, as Vault requires): the listing is unchanged.
    info = await e.transit.updateKeyConfig('k', {
      min_decryption_version: 25,
      min_encryption_version: 30,
    });
    expect(Object.keys(info.keys)).toHaveLength(80);
    info = await e.transit.trimKey('k', { min_available_version: 20 });
    expect(Object.keys(info.keys)).toHaveLength(80);
    expect((info.keys as Record<string, number>)['24']).toBeUndefined();
    expect(info.keys).toEqual(await listingFromScratch(e, 'k'));
    info = await rotateTimes(e, 'k', 1, 1000);
    expect(Object.keys(info.keys)).toHaveLength(81);
    expect(info.keys).toEqual(await listingFromScratch(e, 'k'));
    await e.transit.close();
  });

  it('a caller changing a reply does not change the next one', async () => {
    const e = makeEngine();
    await e.transit.createKey('k');
    const first = await rotateTimes(e, 'k', 80, 1000);
    const keys = first.keys as Record<string, number>;
    keys['1'] = 0;
    delete keys['2'];
    keys['5000'] = 1;
    const next = await e.transit.readKey('k');
    expect(next.keys).toEqual(await listingFromScratch(e, 'k'));
    expect((next.keys as Record<string, number>)['1']).not.toBe(0);
    expect((next.keys as Record<string, number>)['5000']).toBeUndefined();
    await e.transit.close();
  });

  it('a reply read later lists the versions of its own time', async () => {
    const e = makeEngine({ extra: { maxKeyVersions: 1000 } });
    await e.transit.createKey('k');
    await rotateTimes(e, 'k', 79, 1000);
    const early = await rotateTimes(e, 'k', 1, 1000); // 81 versions; keys not read yet
    const expected = await listingFromScratch(e, 'k');
    const later = await rotateTimes(e, 'k', 5, 1000); // extends the same kept listing
    const laterExpected = await listingFromScratch(e, 'k');
    (later.keys as Record<string, number>)['86'] = 0; // a caller's change stays in its copy
    expect(early.keys).toEqual(expected);
    expect(Object.keys(early.keys)).toHaveLength(81);
    expect(laterExpected).not.toEqual(expected);
    // A listing rebuilt in between (min_decryption_version) and a key re-created under the
    // name leave an unread reply as it was.
    const beforeRebuild = await rotateTimes(e, 'k', 1, 1000);
    const beforeExpected = await listingFromScratch(e, 'k');
    await e.transit.updateKeyConfig('k', { min_decryption_version: 10 });
    await e.transit.updateKeyConfig('k', { deletion_allowed: true });
    await e.transit.deleteKey('k');
    await e.transit.createKey('k');
    await rotateTimes(e, 'k', 90, 1000);
    expect(beforeRebuild.keys).toEqual(beforeExpected);
    expect(Object.keys(beforeRebuild.keys)).toHaveLength(87);
    await e.transit.close();
  });

  it("a reply's keys reads, writes, serialises and prints as a data field", async () => {
    const e = makeEngine();
    await e.transit.createKey('small');
    const small = await e.transit.rotateKey('small'); // built in full: a data field throughout
    await e.transit.createKey('k');
    await rotateTimes(e, 'k', 79, 1000);
    const reply = await rotateTimes(e, 'k', 1, 1000);
    expect(Object.keys(reply)).toEqual(Object.keys(small));
    const json = JSON.parse(JSON.stringify(reply));
    expect(Object.keys(json)).toEqual(Object.keys(small));
    expect(json.keys).toEqual(await listingFromScratch(e, 'k'));
    expect(structuredClone(reply)).toEqual(json);
    // util.inspect shows the data, at any depth, never an accessor.
    const { inspect } = await import('node:util');
    const copy = { ...reply };
    expect(inspect(reply)).not.toContain('Getter');
    expect(inspect(reply, { depth: 5 })).toBe(inspect(copy, { depth: 5 }));
    expect(inspect(reply, { depth: null })).toBe(inspect(copy, { depth: null }));
    expect(inspect(reply, { depth: 0 })).toBe(inspect(copy, { depth: 0 }));
    expect(inspect({ a: { reply } }, { depth: 1 })).toBe(
      inspect({ a: { reply: copy } }, { depth: 1 }),
    );
    expect(inspect({ a: { reply } }, { depth: 2 })).toBe(
      inspect({ a: { reply: copy } }, { depth: 2 }),
    );
    // Once read it is a plain writable field; a write before any read replaces it.
    expect(reply.keys).toBe(reply.keys);
    expect(Object.getOwnPropertyDescriptor(reply, 'keys')).toMatchObject({ writable: true });
    // Frozen before the first read (as Immer or a deep-freeze helper does): reads still
    // answer, the same object each time, and a write throws as on any frozen field.
    const frozen = Object.freeze(await rotateTimes(e, 'k', 1, 1000));
    const listed = frozen.keys;
    expect(listed).toEqual(await listingFromScratch(e, 'k'));
    expect(frozen.keys).toBe(listed);
    expect(JSON.parse(JSON.stringify(frozen)).keys).toEqual(listed);
    expect(() => {
      (frozen as { keys: unknown }).keys = {};
    }).toThrow(TypeError);
    const sealed = Object.seal(await rotateTimes(e, 'k', 1, 1000));
    expect(Object.keys(sealed.keys)).toHaveLength(83);
    const unread = await rotateTimes(e, 'k', 1, 1000);
    unread.keys = { 1: 5 };
    expect(unread.keys).toEqual({ 1: 5 });
    expect(Object.getOwnPropertyDescriptor(unread, 'keys')).toMatchObject({ writable: true });
    await e.transit.close();
  });

  it('a key deleted and re-created under the same name lists only its own versions', async () => {
    const e = makeEngine();
    await e.transit.createKey('k');
    await rotateTimes(e, 'k', 99, 1000);
    await e.transit.updateKeyConfig('k', { deletion_allowed: true });
    await e.transit.deleteKey('k');
    e.clock.advance(60_000);
    await e.transit.createKey('k');
    const info = await rotateTimes(e, 'k', 69, 1000);
    expect(Object.keys(info.keys)).toHaveLength(70);
    expect(info.keys).toEqual(await listingFromScratch(e, 'k'));
    await e.transit.close();
  });

  it('a restore replaces the listing of the name', async () => {
    const e = makeEngine();
    await e.transit.createKey('k', { exportable: true, allow_plaintext_backup: true });
    await rotateTimes(e, 'k', 69, 1000);
    const { backup } = await e.transit.backupKey('k');
    await rotateTimes(e, 'k', 10, 1000); // the kept listing now runs to 80
    await e.transit.restoreKey({ name: 'k', backup, force: true });
    const info = await e.transit.readKey('k');
    expect(Object.keys(info.keys)).toHaveLength(70);
    expect(info.keys).toEqual(await listingFromScratch(e, 'k'));
    await e.transit.close();
  });

  it('a restore under the name of a kept key with fewer versions lists the restored ones', async () => {
    const e = makeEngine();
    await e.transit.createKey('src', { exportable: true, allow_plaintext_backup: true });
    await rotateTimes(e, 'src', 99, 1000);
    const { backup } = await e.transit.backupKey('src');
    e.clock.advance(3_600_000);
    await e.transit.createKey('k');
    await rotateTimes(e, 'k', 69, 1000); // kept: versions 1..70 of this incarnation
    await e.transit.restoreKey({ name: 'k', backup, force: true });
    const info = await e.transit.readKey('k');
    expect(Object.keys(info.keys)).toHaveLength(100);
    expect(info.keys).toEqual(await listingFromScratch(e, 'k'));
    expect(info.keys).toEqual((await e.transit.readKey('src')).keys);
    await e.transit.close();
  });

  it('rotations by another instance on the same storage appear in the listing', async () => {
    const a = makeEngine();
    const b = makeEngine({ storage: a.storage, clock: a.clock });
    await a.transit.createKey('k');
    await rotateTimes(a, 'k', 79, 1000);
    expect((await b.transit.readKey('k')).keys).toEqual(await listingFromScratch(a, 'k')); // b keeps it
    await rotateTimes(a, 'k', 20, 1000); // 20 versions: some archived before b sees them
    await settle();
    const seen = await b.transit.readKey('k');
    expect(Object.keys(seen.keys)).toHaveLength(100);
    expect(seen.keys).toEqual(await listingFromScratch(a, 'k'));
    const byB = await rotateTimes(b, 'k', 1, 1000);
    expect(byB.keys).toEqual(await listingFromScratch(a, 'k'));
    await a.transit.close();
    await b.transit.close();
  });
});

describe('CreationTimes bound', () => {
  it('keeps at most its capacity of versions, the least recently used key first', async () => {
    const eng = engineFromOptions({});
    const keys = new Map<string, LoadedKey>();
    for (const name of ['a', 'b', 'c']) {
      await createKey(eng, name, {});
      for (let i = 1; i < 100; i++) await rotate(eng, name);
      keys.set(name, (await eng.store.get(name)) as LoadedKey);
    }
    const times = new CreationTimes(250);
    const list = async (name: string, to = 100) =>
      plain(await times.listing(eng.store, keys.get(name) as LoadedKey, 1, to));
    expect(Object.keys(await list('a'))).toHaveLength(100);
    expect(Object.keys(await list('b'))).toHaveLength(100);
    expect(times.size).toBe(200);
    await list('a'); // a is now the most recently used
    expect(Object.keys(await list('c'))).toHaveLength(100);
    expect(times.size).toBe(200); // b went
    expect(times.keeps('a')).toBe(true);
    expect(times.keeps('b')).toBe(false);
    expect(times.keeps('c')).toBe(true);
    // Short listings are not kept: they cost less to build than to keep.
    expect(Object.keys(await list('b', 10))).toHaveLength(10);
    expect(times.keeps('b')).toBe(false);
    // A key alone past the bound is not kept either.
    const alone = new CreationTimes(50);
    expect(
      Object.keys(plain(await alone.listing(eng.store, keys.get('a') as LoadedKey, 1, 100))),
    ).toHaveLength(100);
    expect(alone.size).toBe(0);
  });
});
