/**
 * Crash-safe file replacement and removal, for `FileStorage`.
 *
 * A write is: create a uniquely named temp file in the *same* directory (so the
 * rename cannot cross file systems), write, fsync the file, rename it over the
 * target, fsync the directory. POSIX rename is atomic, so after a crash a reader
 * sees either the old file or the new one, never a torn one; the directory fsync
 * makes the rename itself durable before the promise resolves. A crash can
 * leave a temp file behind: temp names start with {@link TEMP_PREFIX}, which no
 * encoded key can (see key-codec.ts), so `FileStorage` ignores them and removes
 * them at open.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { open, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/** Prefix of temp files; never the start of an encoded key. @internal */
export const TEMP_PREFIX = '.tmp-';

/** File mode of stored values: they may hold (wrapped) key material. */
const FILE_MODE = 0o600;

/** A fresh temp file name. @internal */
export function tempName(): string {
  return `${TEMP_PREFIX}${randomBytes(12).toString('hex')}`;
}

/** The error code of a Node system error, if any. @internal */
export function errnoCode(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * fsync a directory so that renames and unlinks in it are durable. Platforms
 * that cannot open or sync a directory (Windows) make this a no-op.
 * @internal
 */
export async function fsyncDir(dir: string): Promise<void> {
  let fh: Awaited<ReturnType<typeof open>> | undefined;
  try {
    fh = await open(dir, 'r');
    await fh.sync();
  } catch (e) {
    const code = errnoCode(e);
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL' && code !== 'EACCES') throw e;
  } finally {
    await fh?.close();
  }
}

/**
 * Atomically replace `dir/name` with `data`: temp + fsync + rename + fsync(dir).
 * On failure the temp file is removed and the old content is untouched.
 * @internal
 */
export async function writeFileAtomic(dir: string, name: string, data: Uint8Array): Promise<void> {
  const tmp = join(dir, tempName());
  try {
    const fh = await open(tmp, 'wx', FILE_MODE);
    try {
      await fh.writeFile(data);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, join(dir, name));
  } catch (e) {
    await unlink(tmp).catch(() => {});
    throw e;
  }
  await fsyncDir(dir);
}

/**
 * Remove `dir/name` durably. Returns false when it did not exist.
 * @internal
 */
export async function removeFileDurable(dir: string, name: string): Promise<boolean> {
  try {
    await unlink(join(dir, name));
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return false;
    throw e;
  }
  await fsyncDir(dir);
  return true;
}
