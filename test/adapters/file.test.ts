/**
 * FileStorage: the shared conformance suites (core, lock), then what only a
 * file adapter has: the key <-> file name encoding, what lands on disk, crash
 * leftovers and reopen. The one-process-per-directory lock: file/lock.test.ts.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { FakeClock, runLockConformance, runStorageConformance } from 'transitkit/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { FileStorage } from '../../adapters/file/index.js';
import { decodeFileName, encodeKey } from '../../adapters/file/key-codec.js';
import { isTransitError } from '../../src/errors.js';

const roots: string[] = [];
afterAll(async () => {
  await Promise.all(roots.map((r) => rm(r, { recursive: true, force: true })));
});

async function tempRoot(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'transitkit-file-'));
  roots.push(root);
  return root;
}

async function fixture() {
  const root = await tempRoot();
  const clock = new FakeClock();
  const storage = await FileStorage.open(join(root, 'data'), { clock });
  return {
    storage,
    clock,
    cleanup: async () => {
      await storage.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** The exported suite registers its tests with this file's vitest. */
const harness = { describe, it, expect };
runStorageConformance(harness, 'file', fixture);
runLockConformance(harness, 'file', fixture);

const b = (s: string): Uint8Array => new TextEncoder().encode(s);
const text = (u: Uint8Array | undefined): string | undefined =>
  u === undefined ? undefined : new TextDecoder().decode(u);

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => undefined,
    (e: unknown) => e,
  );
}

describe('FileStorage key encoding', () => {
  it('round-trips any well-formed key into a lowercase [a-z0-9_%-] name not starting with "."', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', minLength: 1 }), (key) => {
        fc.pre(!key.includes('\0'));
        const name = encodeKey(key);
        expect(name).toMatch(/^[a-z0-9_%-]+$/);
        expect(decodeFileName(name)).toBe(key);
      }),
      { numRuns: 1_000 },
    );
  });

  it('keeps case and normalization variants apart even on case-folding file systems', () => {
    const keys = ['A', 'a', 'caf\u00e9', 'cafe\u0301', 'CAF\u00c9', '\u212b', '\u00c5'];
    const names = keys.map(encodeKey);
    expect(new Set(names.map((n) => n.toLowerCase())).size).toBe(keys.length);
  });

  it('escapes path syntax and Windows device names; keeps a leading U+FEFF', () => {
    expect(encodeKey('../../etc/passwd')).toBe('%2e%2e%2f%2e%2e%2fetc%2fpasswd');
    expect(encodeKey('.')).toBe('%2e');
    expect(encodeKey('con')).toBe('%63on');
    expect(encodeKey('lpt1')).toBe('%6cpt1');
    expect(decodeFileName('%63on')).toBe('con');
    expect(encodeKey('console')).toBe('console');
    // a leading U+FEFF is part of the key: the decoder must not strip it as a BOM
    expect(decodeFileName(encodeKey('\ufeffx'))).toBe('\ufeffx');
  });

  it('treats non-canonical names as foreign files, not keys', () => {
    for (const name of [
      '',
      'A',
      'README',
      '%2F',
      '%61',
      '%',
      '%2',
      '%zz',
      '.lock',
      '.tmp-abc',
      '%ff',
      '%c3',
      'con',
      'a.b',
    ]) {
      expect(decodeFileName(name), name).toBeUndefined();
    }
    expect(decodeFileName('%00')).toBeUndefined();
  });
});

describe('FileStorage on disk', () => {
  it('stores ../../etc/passwd as one file inside the directory, and round-trips it', async () => {
    const root = await tempRoot();
    const dir = join(root, 'data');
    const s = await FileStorage.open(dir);
    try {
      for (const key of ['../../etc/passwd', '/etc/passwd', '..', 'a/../../b'])
        await s.put(key, b(key));
      const files = (await readdir(dir)).filter((f) => f !== '.lock').sort();
      expect(files).toEqual([
        '%2e%2e',
        '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
        '%2fetc%2fpasswd',
        'a%2f%2e%2e%2f%2e%2e%2fb',
      ]);
      for (const f of files) expect((await stat(join(dir, f))).isFile()).toBe(true);
      expect(await readFile(join(dir, '%2e%2e%2f%2e%2e%2fetc%2fpasswd'), 'utf8')).toBe(
        '../../etc/passwd',
      );
      expect(await readdir(root)).toEqual(['data']); // nothing escaped next to the directory
      expect(text(await s.get('../../etc/passwd'))).toBe('../../etc/passwd');
      expect(await s.list('')).toEqual(['..', '../../etc/passwd', '/etc/passwd', 'a/../../b']);
    } finally {
      await s.close();
    }
  });

  it('writes owner-only files (0600) and no subdirectories', async () => {
    const dir = join(await tempRoot(), 'data');
    const s = await FileStorage.open(dir);
    await s.put('a/b/c', b('secret'));
    await s.close();
    const entries = await readdir(dir, { withFileTypes: true });
    expect(entries.every((e) => e.isFile())).toBe(true);
    if (process.platform !== 'win32') {
      expect((await stat(join(dir, 'a%2fb%2fc'))).mode & 0o777).toBe(0o600);
    }
  });

  it('ignores crash leftovers (temp files) and foreign files; removes temp files at open', async () => {
    const dir = join(await tempRoot(), 'data');
    let s = await FileStorage.open(dir);
    await s.put('a', b('old value'));
    // What a crash mid-write leaves: a torn temp file next to the intact old value.
    await writeFile(join(dir, '.tmp-0123456789abcdef01234567'), 'new val');
    await writeFile(join(dir, 'README'), 'not a key');
    await mkdir(join(dir, 'sub'));
    expect(await s.list('')).toEqual(['a']);
    expect(await s.get('.tmp-0123456789abcdef01234567')).toBeUndefined();
    await s.close();

    s = await FileStorage.open(dir);
    try {
      expect((await readdir(dir)).sort()).toEqual(['.lock', 'README', 'a', 'sub']);
      expect(await s.list('')).toEqual(['a']);
      expect(text(await s.get('a'))).toBe('old value');
    } finally {
      await s.close();
    }
  });

  it('keeps data across close and reopen (the index is rebuilt from the directory)', async () => {
    const dir = join(await tempRoot(), 'data');
    const keys = [
      'policy/k1',
      'policy/k2',
      'archive/k1',
      '🔑/鍵',
      'cafe\u0301',
      'caf\u00e9',
      '\ufeffbom',
      '..',
      'Key',
    ];
    let s = await FileStorage.open(dir);
    for (const k of keys) await s.put(k, b(`v:${k}`));
    await s.delete('policy/k2');
    expect(await s.compareAndSet('archive/k1', b('v:archive/k1'), b('swapped'))).toBe(true);
    const before = await s.list('');
    await s.close();

    s = await FileStorage.open(dir);
    try {
      expect(await s.list('')).toEqual(before);
      expect(before).toHaveLength(keys.length - 1);
      expect(await s.list('policy/')).toEqual(['k1']);
      expect(text(await s.get('archive/k1'))).toBe('swapped');
      for (const k of before.filter((k) => k !== 'archive/k1'))
        expect(text(await s.get(k))).toBe(`v:${k}`);
    } finally {
      await s.close();
    }
  });

  it('close waits for writes in flight, empties .lock, is idempotent; later use fails', async () => {
    const dir = join(await tempRoot(), 'data');
    const s = await FileStorage.open(dir);
    const pending = s.put('k', b('v'));
    await s.close();
    await pending;
    await s.close();
    expect((await readdir(dir)).sort()).toEqual(['.lock', 'k']); // lock.test.ts: never unlinked
    const err = await rejection(s.get('k'));
    expect(isTransitError(err, 'internal')).toBe(true);
    expect((err as Error).message).toMatch(/closed/);
  });
});
