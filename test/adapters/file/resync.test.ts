/**
 * FileStorage after a failed write re-reads the disk to keep its index right
 * (file-storage.ts `#resync`). Only "no such file" means absent: a `stat`
 * that fails otherwise (EACCES for a non-root user, EIO) must not drop a key
 * whose file is still there from `list`. Those failures cannot be made for
 * real here (the tests run as root, where permissions never refuse), so
 * `rename` and `stat` are made to fail through a mock of node:fs/promises;
 * everything else is the real file system.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';

const faults = vi.hoisted(() => ({
  rename: undefined as Error | undefined,
  stat: undefined as Error | undefined,
}));
vi.mock('node:fs/promises', async (original) => {
  const real = await original<typeof import('node:fs/promises')>();
  return {
    ...real,
    rename: (...a: Parameters<typeof real.rename>) =>
      faults.rename ? Promise.reject(faults.rename) : real.rename(...a),
    stat: (...a: Parameters<typeof real.stat>) =>
      faults.stat ? Promise.reject(faults.stat) : real.stat(...a),
  };
});

const { FileStorage } = await import('../../../adapters/file/index.js');
const errno = (code: string) => Object.assign(new Error(code), { code });
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('FileStorage after a failed write', () => {
  it('keeps listing a key whose file is still there when stat fails other than ENOENT', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'transitkit-resync-'));
    dirs.push(dir);
    const s = await FileStorage.open(dir);
    await s.put('k', new Uint8Array([1]));
    faults.rename = errno('EIO');
    faults.stat = errno('EACCES');
    await expect(s.put('k', new Uint8Array([2]))).rejects.toMatchObject({ code: 'internal' });
    faults.rename = undefined;
    faults.stat = undefined;
    expect(await s.list('')).toEqual(['k']);
    expect(await s.get('k')).toEqual(new Uint8Array([1]));
    // ENOENT is absent: a first write that failed leaves nothing listed.
    faults.rename = errno('EIO');
    await expect(s.put('new', new Uint8Array([3]))).rejects.toMatchObject({ code: 'internal' });
    faults.rename = undefined;
    expect(await s.list('')).toEqual(['k']);
    await s.close();
  });
});
