/**
 * FileStorage and storage keys whose percent-encoded file name would pass 255
 * bytes (issue #15 item 5): such a key is stored under a fixed-length hashed
 * file name, with the key itself inside the file, so it works like any other
 * (get, put, compare-and-set, delete, list order, reopen). Keys whose encoded
 * name fits keep it, so stores written before open unchanged.
 */
import { mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileStorage } from '../../../adapters/file/index.js';
import { encodeKey } from '../../../adapters/file/key-codec.js';
import { isTransitError } from '../../../src/errors.js';

const roots: string[] = [];
afterAll(async () => {
  await Promise.all(roots.map((r) => rm(r, { recursive: true, force: true })));
});

async function tempDir(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'transitkit-longkeys-'));
  roots.push(root);
  return join(root, 'data');
}

const b = (s: string): Uint8Array => new TextEncoder().encode(s);
const text = (u: Uint8Array | undefined) =>
  u === undefined ? undefined : new TextDecoder().decode(u);

/** Keys whose encoded file name passes 255 bytes (and two that just fit). */
const LONG = [
  'a'.repeat(256),
  'A'.repeat(86), // 86 × "%41" = 258
  '€'.repeat(29), // 29 × 9 bytes
  `transit/archive/${'K.'.repeat(63)}KK/0123456789abcdef/0000000042`,
  `x/${'y'.repeat(10_000)}`,
];
const FITS = ['a'.repeat(255), 'A'.repeat(85)];

describe('FileStorage: keys whose file name would pass 255 bytes', () => {
  it('get, put, compare-and-set, delete and list like any key; the file names stay short', async () => {
    const dir = await tempDir();
    const s = await FileStorage.open(dir);
    try {
      for (const key of [...LONG, ...FITS]) await s.put(key, b(`v:${key.length}`));
      for (const key of [...LONG, ...FITS]) expect(text(await s.get(key))).toBe(`v:${key.length}`);
      const sorted = [...LONG, ...FITS].sort();
      expect(await s.list('')).toEqual(sorted);
      expect(await s.list('transit/archive/')).toEqual([(LONG[3] as string).slice(16)]);
      const key = LONG[0] as string;
      expect(await s.compareAndSet(key, b('wrong'), b('x'))).toBe(false);
      expect(await s.compareAndSet(key, b('v:256'), b('next'))).toBe(true);
      expect(text(await s.get(key))).toBe('next');
      expect(await s.compareAndSet('A'.repeat(90), undefined, b('new'))).toBe(true);
      expect(await s.compareAndSet('A'.repeat(90), undefined, b('again'))).toBe(false);
      await s.delete(LONG[1] as string);
      expect(await s.get(LONG[1] as string)).toBeUndefined();
      const names = (await readdir(dir)).filter((n) => n !== '.lock');
      expect(names).toHaveLength(LONG.length + FITS.length); // one deleted, one added
      for (const n of names) expect(Buffer.byteLength(n)).toBeLessThanOrEqual(255);
      expect(names).toEqual(expect.arrayContaining(FITS.map(encodeKey)));
    } finally {
      await s.close();
    }
    const again = await FileStorage.open(dir);
    try {
      const keys = [...LONG.filter((k) => k !== LONG[1]), ...FITS, 'A'.repeat(90)].sort();
      expect(await again.list('')).toEqual(keys);
      expect(text(await again.get(LONG[0] as string))).toBe('next');
      expect(text(await again.get(LONG[4] as string))).toBe('v:10002');
      expect(text(await again.get('A'.repeat(90)))).toBe('new');
    } finally {
      await again.close();
    }
  });

  it('opens a store written with the earlier file names, values unchanged', async () => {
    const dir = await tempDir();
    await mkdir(dir, { recursive: true });
    // What the earlier scheme wrote: the encoded key as the name, the raw value inside.
    for (const key of ['transit/policy/orders', ...FITS]) {
      await writeFile(join(dir, encodeKey(key)), b(`old:${key.length}`));
    }
    await writeFile(join(dir, '.lock'), '');
    const s = await FileStorage.open(dir);
    try {
      expect(await s.list('')).toEqual(['transit/policy/orders', ...FITS].sort());
      for (const key of ['transit/policy/orders', ...FITS]) {
        expect(text(await s.get(key))).toBe(`old:${key.length}`);
      }
      await s.put('transit/policy/orders', b('rewritten'));
      expect(await readFile(join(dir, encodeKey('transit/policy/orders')), 'utf8')).toBe(
        'rewritten',
      );
    } finally {
      await s.close();
    }
  });

  it('a hashed file moved to another hashed name is not indexed, and reading it fails', async () => {
    const dir = await tempDir();
    const s = await FileStorage.open(dir);
    const [k1, k2] = ['b'.repeat(300), 'c'.repeat(300)];
    await s.put(k1 as string, b('one'));
    await s.put(k2 as string, b('two'));
    await s.close();
    const hashed = (await readdir(dir)).filter((n) => n !== '.lock').sort();
    expect(hashed).toHaveLength(2);
    // Swap the two files: each now holds the other's key.
    await rename(join(dir, hashed[0] as string), join(dir, 'tmp-swap'));
    await rename(join(dir, hashed[1] as string), join(dir, hashed[0] as string));
    await rename(join(dir, 'tmp-swap'), join(dir, hashed[1] as string));
    const again = await FileStorage.open(dir);
    try {
      expect(await again.list('')).toEqual([]);
      const err = await again.get(k1 as string).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isTransitError(err, 'internal'), String(err)).toBe(true);
    } finally {
      await again.close();
    }
  });
});
