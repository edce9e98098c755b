/**
 * `FileStorage`: a durable, single-process storage adapter on one directory.
 *
 * Layout: one file per key, named by the injective encoding of key-codec.ts, in
 * one flat directory, plus `.lock` (held with a kernel lock, file-lock.ts) and,
 * after a crash, `.tmp-*` files. A key whose encoded name would pass 255 bytes
 * gets a hashed name, `@sha256-<hex>`, and its file holds the key before the
 * value; so every key works, however long.
 *
 * Shape, and why:
 * - Every write goes through atomic-write.ts (temp + fsync + rename + fsync dir):
 *   a crash leaves the old value or the new one, never a torn file.
 * - The sorted key index ({@link SortedKeys}) is built by one `readdir` at open and
 *   kept up to date by this instance, so `list` pages are O(log n + page) with no
 *   I/O. That is only sound with a single writer, hence file-lock.ts: one open
 *   instance per directory, across the process and across processes.
 * - With a single writer, `compareAndSet` needs no file lock: a per-key async
 *   mutex serialises read-compare-write. `put` and `delete` take the same mutex so
 *   the file and the index always change together.
 * - Leases (`lock`) live in memory ({@link LeaseTable}), read from the injected clock.
 * - No `watch`: there is no other instance to hear from.
 * - File-system failures surface as `TransitError` `internal` (with the cause).
 *
 * @module
 */
import { mkdir, open, readdir, readFile, realpath, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
// Public types come from the package entry, so the built declarations of this
// subpath refer to `transitkit` instead of carrying copies of them.
import type { Clock, ListOptions, LockHandle, StorageAdapter, StorageLock } from 'transitkit';
import { systemClock } from '../../src/clock.js';
import { internal, invalidRequest, isTransitError } from '../../src/errors.js';
import {
  checkBytes,
  checkListArgs,
  copyBytes,
  LeaseTable,
  SortedKeys,
  sameValue,
} from '../../src/storage/kit.js';
import {
  errnoCode,
  fsyncDir,
  removeFileDurable,
  TEMP_PREFIX,
  writeFileAtomic,
} from './atomic-write.js';
import { type DirLock, lockDirectory } from './file-lock.js';
import {
  decodeFileName,
  ENTRY_HEADER_BYTES,
  entryKeyLength,
  fileNameFor,
  isHashedName,
  unwrapEntry,
  wrapEntry,
} from './key-codec.js';

/** Options of {@link FileStorage.open}. @public */
export interface FileStorageOptions {
  /** Time source for lock leases (default: the system clock). */
  clock?: Clock;
}

/**
 * A storage adapter that keeps each key in its own file under one directory.
 *
 * One process, one instance per directory (enforced). Keys may contain any
 * well-formed Unicode including `/` and `..`; they cannot escape the directory.
 *
 * @throws `TransitError` `invalid_request` for an empty key, NUL, a lone surrogate,
 * or bad list/lock arguments;
 * `conflict` from {@link FileStorage.open} when the directory is in use;
 * `internal` for file-system failures and for use after `close`.
 *
 * @example
 * ```ts
 * const storage = await FileStorage.open('./data/transit');
 * await storage.put('policy/k1', new TextEncoder().encode('{}'));
 * await storage.list('policy/'); // ['k1']
 * await storage.close();
 * ```
 * @public
 */
export class FileStorage implements StorageAdapter, StorageLock {
  /** The real path of the storage directory. */
  readonly dir: string;
  readonly #keys: SortedKeys;
  readonly #leases: LeaseTable;
  readonly #mutex = new KeyMutex();
  readonly #dirLock: DirLock;
  #closing: Promise<void> | undefined;

  private constructor(dir: string, keys: SortedKeys, dirLock: DirLock, clock: Clock) {
    this.dir = dir;
    this.#keys = keys;
    this.#dirLock = dirLock;
    this.#leases = new LeaseTable(clock);
  }

  /**
   * Open (creating if needed) the storage directory `dir`: take its lock, remove
   * temp files left by a crash, and index the keys.
   * @throws `TransitError` `conflict` when another instance or live process has it open.
   */
  static async open(dir: string, options: FileStorageOptions = {}): Promise<FileStorage> {
    if (typeof dir !== 'string' || dir.length === 0) {
      throw invalidRequest('FileStorage.open: dir must be a non-empty path');
    }
    let real: string;
    try {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      real = await realpath(dir);
    } catch (e) {
      throw internal(
        `FileStorage: cannot create or resolve the directory ${dir}: ${describe(e)}`,
        e,
      );
    }
    const dirLock = await lockDirectory(real);
    try {
      const keys = await scanDirectory(real);
      return new FileStorage(real, keys, dirLock, options.clock ?? systemClock);
    } catch (e) {
      await dirLock.release();
      throw isTransitError(e) ? e : internal(`FileStorage: cannot read ${real}: ${describe(e)}`, e);
    }
  }

  /** The value at `key`, or `undefined`. */
  async get(key: string): Promise<Uint8Array | undefined> {
    this.#checkOpen();
    const name = fileNameFor(key);
    return this.#io('read', () => this.#read(key, name));
  }

  /** Durably replace the value at `key` (the bytes are captured at call time). */
  async put(key: string, value: Uint8Array): Promise<void> {
    this.#checkOpen();
    const name = fileNameFor(key);
    const data = copyBytes(value);
    await this.#mutex.run(key, () => this.#write(key, name, data));
  }

  /** Durably remove `key`; a missing key is fine. */
  async delete(key: string): Promise<void> {
    this.#checkOpen();
    const name = fileNameFor(key);
    await this.#mutex.run(key, () => this.#write(key, name, undefined));
  }

  /** Keys under `prefix`, sorted, without the prefix; from the in-memory index. */
  async list(prefix: string, options?: ListOptions): Promise<string[]> {
    this.#checkOpen();
    const { after, limit } = checkListArgs(prefix, options);
    return this.#keys.page(prefix, after, limit);
  }

  /** Swap `expected` for `next` (`undefined` = absent / delete) under the key's mutex. */
  async compareAndSet(
    key: string,
    expected: Uint8Array | undefined,
    next: Uint8Array | undefined,
  ): Promise<boolean> {
    this.#checkOpen();
    const name = fileNameFor(key);
    if (expected !== undefined) checkBytes(expected, 'expected');
    const want = expected === undefined ? undefined : new Uint8Array(expected);
    const data = next === undefined ? undefined : copyBytes(next, 'next');
    return this.#mutex.run(key, async () => {
      const current = await this.#io('read', () => this.#read(key, name));
      if (!sameValue(current, want)) return false;
      await this.#write(key, name, data);
      return true;
    });
  }

  /** Take the in-memory lease `name` for `ttlMs`, or `undefined` while it is held. */
  async lock(name: string, ttlMs: number): Promise<LockHandle | undefined> {
    this.#checkOpen();
    return this.#leases.acquire(name, ttlMs);
  }

  /** Wait for writes in flight, drop leases and release the directory. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#mutex.idle();
      this.#leases.clear();
      await this.#dirLock.release();
    })();
    return this.#closing;
  }

  #checkOpen(): void {
    if (this.#closing !== undefined) throw internal(`FileStorage for ${this.dir} is closed`);
  }

  async #read(key: string, name: string): Promise<Uint8Array | undefined> {
    let buf: Buffer;
    try {
      buf = await readFile(join(this.dir, name));
    } catch (e) {
      if (errnoCode(e) === 'ENOENT') return undefined;
      throw e;
    }
    if (isHashedName(name)) return unwrapEntry(key, buf); // a copy, checked to be key's
    // readFile may hand out a slice of a shared pool; never expose that memory.
    const exclusive = buf.byteOffset === 0 && buf.buffer.byteLength === buf.byteLength;
    return exclusive ? new Uint8Array(buf.buffer, 0, buf.byteLength) : new Uint8Array(buf);
  }

  /** Write (or remove, for `undefined`) the file, then update the index. Under the mutex. */
  async #write(key: string, name: string, data: Uint8Array | undefined): Promise<void> {
    try {
      if (data === undefined) await removeFileDurable(this.dir, name);
      else await writeFileAtomic(this.dir, name, isHashedName(name) ? wrapEntry(key, data) : data);
    } catch (e) {
      await this.#resync(key, name);
      throw internal(`FileStorage: cannot write in ${this.dir}: ${describe(e)}`, e);
    }
    if (data === undefined) this.#keys.remove(key);
    else this.#keys.insert(key);
  }

  /**
   * After a failed write, make the index match what is on disk. Only "no such
   * file" says the key is absent: another failure (EACCES, EIO) leaves its
   * existence unknown, and a key listed that then fails to read is better
   * than a stored key that `list` no longer shows.
   */
  async #resync(key: string, name: string): Promise<void> {
    const exists = await stat(join(this.dir, name)).then(
      () => true,
      (e: unknown) => (e as { code?: unknown }).code !== 'ENOENT',
    );
    if (exists) this.#keys.insert(key);
    else this.#keys.remove(key);
  }

  async #io<T>(op: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      throw internal(`FileStorage: cannot ${op} in ${this.dir}: ${describe(e)}`, e);
    }
  }
}

/** One `readdir`: delete crash leftovers (`.tmp-*`), index the canonical key files. */
async function scanDirectory(dir: string): Promise<SortedKeys> {
  const keys: string[] = [];
  let removed = false;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name.startsWith(TEMP_PREFIX)) {
      await unlink(join(dir, entry.name)).catch(() => {});
      removed = true;
      continue;
    }
    if (!entry.isFile()) continue;
    const key = isHashedName(entry.name)
      ? await hashedKey(dir, entry.name)
      : decodeFileName(entry.name);
    if (key !== undefined) keys.push(key); // otherwise: `.lock` or a foreign file, left alone
  }
  if (removed) await fsyncDir(dir);
  return SortedKeys.from(keys);
}

/**
 * The key held in the hashed file `name` (its header only is read), or
 * `undefined` when the file is not a valid entry of the key its name hashes.
 */
async function hashedKey(dir: string, name: string): Promise<string | undefined> {
  const fh = await open(join(dir, name), 'r');
  try {
    const head = new Uint8Array(ENTRY_HEADER_BYTES);
    const { bytesRead } = await fh.read(head, 0, ENTRY_HEADER_BYTES, 0);
    const length = entryKeyLength(head.subarray(0, bytesRead));
    if (length === undefined || length > (await fh.stat()).size) return undefined;
    const raw = new Uint8Array(length);
    const got = await fh.read(raw, 0, length, ENTRY_HEADER_BYTES);
    if (got.bytesRead !== length) return undefined;
    let key: string;
    try {
      key = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(raw);
      return fileNameFor(key) === name ? key : undefined;
    } catch {
      return undefined; // not UTF-8, or not a valid key
    }
  } finally {
    await fh.close();
  }
}

function describe(e: unknown): string {
  return errnoCode(e) ?? (e instanceof Error ? e.message : String(e));
}

/**
 * Per-key async mutex: `run(key, fn)` calls start in order, one at a time per key.
 * Entries are dropped as soon as a key's queue empties.
 */
class KeyMutex {
  readonly #tails = new Map<string, Promise<void>>();

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.#tails.get(key);
    let done!: () => void;
    const mine = new Promise<void>((resolve) => {
      done = resolve;
    });
    this.#tails.set(key, mine); // `mine` settles after `prev`, so it is the new tail
    try {
      if (prev !== undefined) await prev;
      return await fn();
    } finally {
      done();
      if (this.#tails.get(key) === mine) this.#tails.delete(key);
    }
  }

  /** Resolves when no call is queued or running. */
  async idle(): Promise<void> {
    while (this.#tails.size > 0) await Promise.all(this.#tails.values());
  }
}
