/**
 * FileStorage on a full disk. After taking the kernel lock, `open` writes who
 * holds it into `.lock`, for other processes' error messages only. On a full
 * file system that write fails with ENOSPC, and it made the whole open fail:
 * a process restarted while the disk was full could neither read its data nor
 * delete entries to free space, though neither needs a free block. The write
 * is now best effort. Real ENOSPC: a 256 KiB tmpfs, which needs root (and a
 * `mount` that works here); elsewhere the file is skipped with the reason.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileStorage } from '../../../adapters/file/index.js';

const b = (s: string) => new TextEncoder().encode(s);
const text = (u: Uint8Array | undefined) =>
  u === undefined ? undefined : new TextDecoder().decode(u);

/** Mount a small tmpfs, or say why not. */
function tryMount(dir: string): string | undefined {
  if (process.getuid?.() !== 0) return 'mounting a tmpfs needs root';
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', dir], { stdio: 'pipe' });
    return undefined;
  } catch (e) {
    return `mount -t tmpfs failed: ${String((e as Error).message).split('\n')[0]}`;
  }
}

const mnt = mkdtempSync(join(tmpdir(), 'tk-full-disk-'));
const noMount = tryMount(mnt);
const mounted = noMount === undefined;
if (!mounted) it.skip(`FileStorage on a full disk [skipped: ${noMount}]`);
afterAll(() => {
  if (mounted) execFileSync('umount', [mnt]);
  rmSync(mnt, { recursive: true, force: true });
});

function fillDisk(dir: string): void {
  for (let i = 0; ; i++) {
    try {
      writeFileSync(join(dir, `filler-${i}`), new Uint8Array(4096));
    } catch (e) {
      expect((e as { code?: string }).code).toBe('ENOSPC');
      return;
    }
  }
}

describe.skipIf(!mounted)('FileStorage on a full disk', () => {
  it('control: an instance opened before the disk filled reads and deletes fine', async () => {
    const dir = join(mnt, 'control');
    mkdirSync(dir);
    const s = await FileStorage.open(dir);
    try {
      await s.put('k', b('v'));
      fillDisk(mnt);
      expect(text(await s.get('k'))).toBe('v');
      await s.delete('k');
      expect(await s.list('')).toEqual([]);
    } finally {
      await s.close();
      for (let i = 0; ; i++) {
        try {
          rmSync(join(mnt, `filler-${i}`));
        } catch {
          break;
        }
      }
    }
  });

  it('a store written before the disk filled up can still be opened, read and trimmed', async () => {
    const dir = join(mnt, 'data');
    mkdirSync(dir);
    const first = await FileStorage.open(dir);
    await first.put('transit/policy/k', b('acknowledged value'));
    await first.close(); // clean shutdown (the process restarts)
    fillDisk(mnt);

    // Nothing below needs a free block: the lock is a kernel lock, reads read,
    // unlink frees space.
    const again = await FileStorage.open(dir);
    try {
      expect(text(await again.get('transit/policy/k'))).toBe('acknowledged value');
      expect(await again.list('')).toEqual(['transit/policy/k']);
      await again.delete('transit/policy/k');
      expect(await again.get('transit/policy/k')).toBeUndefined();
    } finally {
      await again.close();
    }
  });
});
