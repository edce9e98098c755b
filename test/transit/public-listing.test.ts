/**
 * A key pair's read body listing, kept per key (src/transit/public-listing.ts):
 * every reply that lists versions (rotate, read, config, set-certificate's
 * next read) must equal a listing built from scratch by a fresh instance,
 * whatever changed in between — rotations, a certificate set on an archived
 * or a hot version here or on another instance, a derived key read with a
 * context — and a caller changing a reply must not change the next one. The
 * last test counts the versions a rotate looks at, so that the listing is
 * known to be kept (the equality tests alone would pass if it never were).
 */
import { describe, expect, it, vi } from 'vitest';
import type { AsymmetricKeyVersionInfo, KeyInfo } from '../../src/index.js';
import type { LoadedKey } from '../../src/keys/policy-store.js';
import { setCertificate, signCsr } from '../../src/transit/certificates.js';
import { createKey, readKey } from '../../src/transit/keys.js';
import { engineFromOptions } from '../../src/transit/options.js';
import { rotateKey } from '../../src/transit/rotate-config.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { makeCa } from './ca-support.js';
import { b64, listingFromScratch, makeEngine, rotateTimes, settle } from './support.js';

type Listing = Record<string, AsymmetricKeyVersionInfo>;
const listing = (info: KeyInfo): Listing => info.keys as Listing;

const ca = makeCa('kept listing CA');

/** A chain for version `version` of `name`, issued by the test CA for the key's own CSR. */
async function chainFor(e: ReturnType<typeof makeEngine>, name: string, version: number) {
  const { csr } = await e.transit.signCsr(name, { version });
  return ca.issue(csr) + ca.pem;
}

describe("a key pair's read body listing kept per key", () => {
  it('rotate and read replies equal a listing built from scratch (ECDSA PEM, Ed25519 base64)', async () => {
    for (const type of ['ecdsa-p256', 'ed25519'] as const) {
      const e = makeEngine();
      await e.transit.createKey('k', { type });
      let info = await rotateTimes(e, 'k', 79, 3);
      expect(Object.keys(info.keys)).toHaveLength(80);
      expect(info.keys).toEqual(await listingFromScratch(e, 'k'));
      info = await rotateTimes(e, 'k', 3, 3); // extends the kept listing
      expect(Object.keys(info.keys).map(Number)).toEqual(
        Array.from({ length: 83 }, (_, i) => i + 1),
      );
      expect(info.keys).toEqual(await listingFromScratch(e, 'k'));
      expect(new Set(Object.values(listing(info)).map((v) => v.public_key)).size).toBe(83);
      // min_decryption_version up: the listing starts elsewhere, then is kept again.
      info = await e.transit.updateKeyConfig('k', { min_decryption_version: 10 });
      expect(Object.keys(info.keys)).toHaveLength(74);
      expect(info.keys).toEqual(await listingFromScratch(e, 'k'));
      info = await rotateTimes(e, 'k', 2, 3);
      expect(info.keys).toEqual(await listingFromScratch(e, 'k'));
      expect((await e.transit.readKey('k')).keys).toEqual(await listingFromScratch(e, 'k'));
      await e.transit.close();
    }
  });

  it('a certificate set on an archived version and on a hot one shows in the next reply', async () => {
    const e = makeEngine();
    await e.transit.createKey('k', { type: 'ecdsa-p256' });
    await rotateTimes(e, 'k', 79, 3);
    expect(listing(await e.transit.readKey('k'))['3']?.certificate_chain).toBe('');
    await e.transit.setCertificate('k', {
      certificate_chain: await chainFor(e, 'k', 3),
      version: 3,
    });
    let info = await e.transit.readKey('k');
    expect(listing(info)['3']?.certificate_chain).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect(info.keys).toEqual(await listingFromScratch(e, 'k'));
    await e.transit.setCertificate('k', { certificate_chain: await chainFor(e, 'k', 80) });
    info = await rotateTimes(e, 'k', 1, 3);
    expect(listing(info)['80']?.certificate_chain).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect(info.keys).toEqual(await listingFromScratch(e, 'k'));
    await e.transit.close();
  });

  it('a certificate set by another instance on an archived version appears in the listing', async () => {
    const a = makeEngine();
    const b = makeEngine({ storage: a.storage, clock: a.clock });
    await a.transit.createKey('k', { type: 'ecdsa-p256' });
    await rotateTimes(a, 'k', 79, 3);
    await settle();
    expect((await b.transit.readKey('k')).keys).toEqual(await listingFromScratch(a, 'k')); // b keeps it
    await rotateTimes(b, 'k', 1, 3); // b's kept listing is extended, and current
    await settle();
    await a.transit.setCertificate('k', {
      certificate_chain: await chainFor(a, 'k', 2),
      version: 2,
    });
    await settle();
    let seen = await b.transit.readKey('k');
    expect(listing(seen)['2']?.certificate_chain).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect(seen.keys).toEqual(await listingFromScratch(a, 'k'));
    // And on a hot version (the document b holds is reloaded).
    await a.transit.setCertificate('k', { certificate_chain: await chainFor(a, 'k', 81) });
    await settle();
    seen = await b.transit.readKey('k');
    expect(listing(seen)['81']?.certificate_chain).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect(seen.keys).toEqual(await listingFromScratch(a, 'k'));
    await a.transit.close();
    await b.transit.close();
  });

  it('a caller changing a reply does not change the next; a reply read later shows its own time', async () => {
    const e = makeEngine();
    await e.transit.createKey('k', { type: 'ed25519' });
    const first = listing(await rotateTimes(e, 'k', 79, 3));
    (first['1'] as AsymmetricKeyVersionInfo).public_key = 'changed';
    delete first['2'];
    const early = await e.transit.rotateKey('k'); // 81 versions, keys not read yet
    const expected = await listingFromScratch(e, 'k');
    await rotateTimes(e, 'k', 4, 3);
    const next = await e.transit.readKey('k');
    expect(next.keys).toEqual(await listingFromScratch(e, 'k'));
    expect(listing(next)['1']?.public_key).not.toBe('changed');
    expect(early.keys).toEqual(expected);
    expect(Object.keys(early.keys)).toHaveLength(81);
    await e.transit.close();
  });

  it('a derived Ed25519 key: a context shows its derived keys, never the kept listing', async () => {
    const e = makeEngine();
    await e.transit.createKey('d', { type: 'ed25519', derived: true });
    await rotateTimes(e, 'd', 79, 3);
    const plain = await e.transit.readKey('d');
    expect(Object.values(listing(plain)).every((v) => v.public_key === '')).toBe(true);
    for (const context of [b64('alpha'), b64('beta')]) {
      const derived = await e.transit.readKey('d', { context });
      expect(Object.values(listing(derived)).every((v) => v.public_key.length === 44)).toBe(true);
      expect(derived.keys).toEqual(await listingFromScratch(e, 'd', context));
    }
    expect((await e.transit.readKey('d')).keys).toEqual(plain.keys);
    expect(
      listing(await e.transit.readKey('d', { context: b64('alpha') }))['1']?.public_key,
    ).not.toBe(listing(await e.transit.readKey('d', { context: b64('beta') }))['1']?.public_key);
    await e.transit.close();
  });

  it('a rotate looks at the versions it added and the ones logged as changed, not at all of them', async () => {
    const clock = new FakeClock();
    const e = engineFromOptions({ clock });
    await createKey(e, 'k', { type: 'ed25519' });
    for (let i = 1; i < 200; i++) await rotateKey(e, 'k');
    let looked = 0;
    const archived = e.store.archivedVersions.bind(e.store);
    vi.spyOn(e.store, 'archivedVersions').mockImplementation((key: LoadedKey) => {
      const map = archived(key);
      if (!map) return map;
      const get = (v: number) => {
        looked++;
        return map.get(v);
      };
      return { size: map.size, keys: () => map.keys(), get };
    });
    const version = vi.spyOn(e.store, 'version');
    const rotateAndCount = async (echo: boolean) => {
      looked = 0;
      version.mockClear();
      const info = await rotateKey(e, 'k');
      // A watching storage echoes the archive write of the version that left the hot window.
      const key = e.store.cached('k') as LoadedKey;
      if (echo) e.store.invalidateArchived('k', key.doc.uid, info.latest_version - 16);
      expect(Object.keys(info.keys)).toHaveLength(info.latest_version);
      return looked + version.mock.calls.length;
    };
    await rotateAndCount(false); // builds and keeps the listing
    expect(await rotateAndCount(false)).toBeLessThanOrEqual(2);
    await rotateAndCount(true);
    // The echoed version is read again and compared; nothing else.
    expect(await rotateAndCount(true)).toBeLessThanOrEqual(3);
    // Past the age bound it is built again: every version is looked at.
    clock.advance(1_500);
    expect(await rotateAndCount(false)).toBeGreaterThanOrEqual(150);
    expect(await rotateAndCount(false)).toBeLessThanOrEqual(2);
    // A certificate set here on an archived version, with no storage watch to echo it.
    const { csr } = await signCsr(e, 'k', { version: 3 });
    await setCertificate(e, 'k', { certificate_chain: ca.issue(csr) + ca.pem, version: 3 });
    const after = await readKey(e, 'k');
    expect(listing(after)['3']?.certificate_chain).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect(listing(after)['4']?.certificate_chain).toBe('');
    // So does a read body on an instance that keeps nothing yet.
    const fresh = engineFromOptions({ storage: e.storage });
    const all = vi.spyOn(fresh.store, 'version');
    await readKey(fresh, 'k');
    expect(all.mock.calls.length).toBeGreaterThanOrEqual(150);
  });
});
