/**
 * One `FileStorage` per directory: an in-process registry plus a `.lock` file.
 *
 * `FileStorage` serialises compare-and-set with in-memory mutexes and keeps its
 * key index in memory, so a second writer on the same directory — another
 * instance in this process or another process — would silently break both.
 * Opening therefore takes:
 * 1. a slot in a process-wide set of open directories (real paths, so `dir/./`
 *    and symlinks count as the same directory), then
 * 2. `.lock`, created with the `wx` flag (O_EXCL) and holding `pid\nhostname\n`.
 *
 * An existing `.lock` is honoured while its owner may be alive: same host and
 * `process.kill(pid, 0)` succeeds, or another host (a pid there cannot be probed,
 * e.g. a shared volume or another container). Otherwise it is stale (the owner
 * crashed) and is taken over: it is first renamed aside under a unique name, so
 * that when several processes race for a stale lock only the one that moved the
 * stale file proceeds (a fresh lock moved by mistake is linked back). A lock
 * naming our own pid is stale too: the registry already rules out a live
 * instance here, and containers reuse low pids across restarts.
 *
 * @module
 */

import { link, open, readFile, rename, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { conflict } from '../../src/errors.js';
import { errnoCode, tempName } from './atomic-write.js';

/** Name of the lock file inside the storage directory. @internal */
export const LOCK_FILE = '.lock';

/** A held directory lock. @internal */
export interface DirLock {
  /** Remove `.lock` (if still ours) and free the in-process slot. Idempotent. */
  release(): Promise<void>;
}

/** Real paths of the directories open in this process. */
const openDirs = new Set<string>();

/** How long a just-created, still empty `.lock` is given to receive its pid. */
const PARTIAL_LOCK_RETRIES = 10;
const PARTIAL_LOCK_DELAY_MS = 20;

/**
 * Take the directory `dir` (a real path) for this instance.
 * @throws `TransitError` `conflict` when another instance or live process holds it.
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
  const mine = `${process.pid}\n${hostname()}\n`;
  try {
    await acquireLockFile(dir, path, mine);
  } catch (e) {
    openDirs.delete(dir);
    throw e;
  }
  let released = false;
  return {
    async release() {
      if (released) return;
      released = true;
      try {
        const content = await readFile(path, 'utf8').catch(() => undefined);
        if (content === mine) await unlink(path).catch(() => {});
      } finally {
        openDirs.delete(dir);
      }
    },
  };
}

async function acquireLockFile(dir: string, path: string, mine: string): Promise<void> {
  for (let attempt = 0; attempt < 10; attempt++) {
    if (await tryCreate(path, mine)) return;
    const content = await readSettled(path);
    if (content === undefined) continue; // released meanwhile: try again
    const owner = parseOwner(content);
    if (owner !== undefined && mayBeAlive(owner)) {
      throw conflict(
        `storage directory ${dir} is in use by process ${owner.pid} on host ${owner.host} ` +
          `(lock file ${path}); FileStorage allows one process per directory. ` +
          'If that process is gone, delete the lock file.',
      );
    }
    await removeStale(dir, path, content);
  }
  throw conflict(
    `could not take the lock file ${path}: it keeps changing; is another process starting?`,
  );
}

/** Create `path` exclusively with `content`; false when it already exists. */
async function tryCreate(path: string, content: string): Promise<boolean> {
  let fh: Awaited<ReturnType<typeof open>>;
  try {
    fh = await open(path, 'wx', 0o644);
  } catch (e) {
    if (errnoCode(e) === 'EEXIST') return false;
    throw e;
  }
  try {
    await fh.writeFile(content);
    await fh.sync();
    await fh.close();
  } catch (e) {
    await fh.close().catch(() => {});
    await unlink(path).catch(() => {});
    throw e;
  }
  return true;
}

/**
 * Read `.lock`, waiting briefly while it is empty or partial (its creator is
 * between `open` and `write`). `undefined` when it no longer exists.
 */
async function readSettled(path: string): Promise<string | undefined> {
  let content: string | undefined;
  for (let i = 0; i <= PARTIAL_LOCK_RETRIES; i++) {
    try {
      content = await readFile(path, 'utf8');
    } catch (e) {
      if (errnoCode(e) === 'ENOENT') return undefined;
      throw e;
    }
    if (parseOwner(content) !== undefined) return content;
    if (i < PARTIAL_LOCK_RETRIES) await new Promise((r) => setTimeout(r, PARTIAL_LOCK_DELAY_MS));
  }
  return content; // still unreadable: its creator died mid-create, treat as stale
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

function mayBeAlive(owner: Owner): boolean {
  if (owner.host !== hostname()) return true; // cannot probe another host's pids
  if (owner.pid === process.pid) return false; // see header: the registry covers this process
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (e) {
    return errnoCode(e) === 'EPERM'; // exists but belongs to another user
  }
}

/** Move the stale lock (with content `seen`) aside and delete it; see header. */
async function removeStale(dir: string, path: string, seen: string): Promise<void> {
  const aside = join(dir, tempName()); // a `.tmp-` name: cleaned at open if we crash here
  try {
    await rename(path, aside);
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return;
    throw e;
  }
  const moved = await readFile(aside, 'utf8').catch(() => undefined);
  if (moved !== seen) {
    // Someone replaced the stale lock in between: restore theirs (unless yet another exists).
    await link(aside, path).catch(() => {});
  }
  await unlink(aside).catch(() => {});
}
