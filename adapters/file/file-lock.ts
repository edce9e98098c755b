/**
 * One `FileStorage` per directory: an in-process registry plus a kernel lock
 * on `.lock`.
 *
 * `FileStorage` serialises compare-and-set with in-memory mutexes and keeps its
 * key index in memory, so a second writer on the same directory — another
 * instance in this process or another process — would silently break both.
 * Opening therefore takes:
 * 1. a slot in a process-wide set of open directories (real paths, so `dir/./`
 *    and symlinks count as the same directory), then
 * 2. an exclusive, non-blocking open-file-description lock on `.lock`
 *    (`fcntl(F_OFD_SETLK)` on Linux, `flock` on macOS, `LockFileEx` on
 *    Windows, through `fs-native-extensions`), held through an open file
 *    handle for the life of the instance.
 *
 * Why a kernel lock: the kernel drops it when the holder's last descriptor
 * closes — on `close()`, on exit, on SIGKILL — and at no other time. Nothing
 * is inferred from pids or host names, so processes in other PID namespaces
 * (containers, `unshare --pid`, where everyone is pid 1) and hosts with the
 * same name are refused like any other, and a crashed holder is recovered at
 * once. A paused holder (SIGSTOP, a frozen VM) keeps the lock, so no one takes
 * over while it lives and there is no stale writer to fence when it resumes.
 * On NFS the lock is the server's (NLM or NFSv4 byte-range locks): a client
 * that loses its NFS lease loses the lock; see SECURITY.md.
 *
 * `.lock` holds `pid\nhostname (flock)\n` for error messages only, and is
 * never unlinked (unlinking a lock file races with a process that opened it
 * just before); `close` empties it. Earlier versions wrote `pid\nhostname\n`
 * and took no kernel lock: such content (without the ` (flock)` mark) is
 * honoured while its process may be alive (same host and `kill(pid, 0)`
 * succeeds, or another host), so an old version still running is not
 * joined by a new one. Old versions in turn refuse the new content (the
 * marked host name is never theirs).
 *
 * @module
 */

import { constants, type FileHandle, open, readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { tryLock } from 'fs-native-extensions';
import { conflict, internal, isTransitError } from '../../src/errors.js';
import { errnoCode } from './atomic-write.js';

/** Name of the lock file inside the storage directory. @internal */
export const LOCK_FILE = '.lock';

/** Marks the host name in `.lock` content written under a kernel lock. */
const MARK = ' (flock)';

/** A held directory lock. @internal */
export interface DirLock {
  /** Empty `.lock`, drop the kernel lock and free the in-process slot. Idempotent. */
  release(): Promise<void>;
}

/** Real paths of the directories open in this process. */
const openDirs = new Set<string>();

/**
 * Take the directory `dir` (a real path) for this instance.
 * @throws `TransitError` `conflict` when another instance or process holds it;
 * `internal` when the lock file cannot be opened or locked.
 * @internal
 */
export async function lockDirectory(dir: string): Promise<DirLock> {
  if (openDirs.has(dir)) {
    throw conflict(
      `storage directory ${dir} is already open by another FileStorage in this process; ` +
        'share that instance or close it first',
    );
  }
  openDirs.add(dir);
  const path = join(dir, LOCK_FILE);
  let fh: FileHandle;
  try {
    fh = await takeLockFile(dir, path);
  } catch (e) {
    openDirs.delete(dir);
    if (isTransitError(e)) throw e;
    throw internal(`FileStorage: cannot lock ${path}: ${errnoCode(e) ?? String(e)}`, e);
  }
  let released: Promise<void> | undefined;
  return {
    release() {
      released ??= (async () => {
        try {
          await fh.truncate(0).catch(() => {});
        } finally {
          await fh.close().catch(() => {}); // the kernel drops the lock with the descriptor
          openDirs.delete(dir);
        }
      })();
      return released;
    },
  };
}

async function takeLockFile(dir: string, path: string): Promise<FileHandle> {
  const fh = await open(path, constants.O_RDWR | constants.O_CREAT, 0o644);
  try {
    if (!tryLock(fh.fd)) {
      const owner = parseOwner(await readFile(path, 'utf8').catch(() => ''));
      const who =
        owner === undefined ? 'another process' : `process ${owner.pid} on host ${owner.host}`;
      throw conflict(
        `storage directory ${dir} is in use by ${who} (it holds a lock on ${path}); ` +
          'FileStorage allows one process per directory. The lock ends with that process.',
      );
    }
    // Ours now. Content without the mark comes from an earlier version, which
    // took no kernel lock: honour it while its process may still be writing.
    const legacy = parseOwner(await fh.readFile('utf8'));
    if (legacy !== undefined && !legacy.host.endsWith(MARK) && mayBeAlive(legacy)) {
      throw conflict(
        `storage directory ${dir} is in use by process ${legacy.pid} on host ${legacy.host} ` +
          `(lock file ${path}, written by an earlier transitkit version). ` +
          'If that process is gone, delete the lock file.',
      );
    }
    // Who holds it, for other processes' error messages only: the kernel lock is
    // the guard. Best effort, so a full disk (which this write may need a block
    // of) does not keep a store from opening to read and delete.
    await fh.truncate(0).catch(() => undefined);
    await fh.write(`${process.pid}\n${hostname()}${MARK}\n`, 0).catch(() => undefined);
    return fh;
  } catch (e) {
    await fh.close().catch(() => {});
    throw e;
  }
}

interface Owner {
  pid: number;
  host: string;
}

function parseOwner(content: string): Owner | undefined {
  const m = /^([0-9]{1,10})\n([^\n]*)\n$/.exec(content);
  if (m === null) return undefined;
  const pid = Number(m[1]);
  return pid > 0 ? { pid, host: m[2] ?? '' } : undefined;
}

/** For an earlier version's `.lock` only: whether its writer may be alive. */
function mayBeAlive(owner: Owner): boolean {
  if (owner.host !== hostname()) return true; // cannot probe another host's pids
  if (owner.pid === process.pid) return false; // the registry rules out a live instance here
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (e) {
    return errnoCode(e) === 'EPERM'; // exists but belongs to another user
  }
}
