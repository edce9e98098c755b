/**
 * Vault's `file` audit device, for Node: each entry is one line appended to
 * `file_path` (created with `mode`, default `0600`; `0000` leaves the mode of
 * an existing file alone, as Vault). `file_path=stdout` writes to the
 * process's standard output and `file_path=discard` drops every entry (both
 * as Vault).
 *
 * Entries are appended with synchronous writes, one per event-loop turn for
 * all the entries of that turn, and a request goes on only once its entry
 * is written (as Vault's file device, which writes before answering): order
 * is the order of the requests, and a SIGTERM or even a SIGKILL loses no
 * entry of a request that ran. A write reaches the page cache (no `fsync`).
 * `stdout` goes through the bounded, ordered buffer of src/audit/queue.ts
 * (a pipe may block). `reopen` (SIGHUP on the CLI server) opens the path
 * again after a log rotation.
 *
 * Node only.
 * @module
 */
import { closeSync, fchmodSync, openSync, writeSync } from 'node:fs';
import type { AuditDevice, AuditDeviceFactory } from 'transitkit';
import { LineQueue } from '../../src/audit/queue.js';
import { invalidRequest } from '../../src/errors.js';
import { bufferOptions } from './device-options.js';

/**
 * `mode`: an octal string (`0600`, `640`) without executable bits;
 * `undefined` for `0000` (leave the mode alone).
 */
function parseMode(value: string | undefined): number | undefined {
  const v = value === undefined || value === '' ? '0600' : value;
  if (!/^[0-7]{3,4}$/.test(v)) {
    throw invalidRequest(
      `options.mode must be an octal file mode such as 0600, got ${JSON.stringify(v)}`,
    );
  }
  const mode = Number.parseInt(v, 8);
  // As Vault's file device: an audit log is never made executable.
  if ((mode & 0o111) !== 0) {
    throw invalidRequest(
      `options.mode must not make the file executable, got ${JSON.stringify(v)}`,
    );
  }
  return mode === 0 ? undefined : mode;
}

/**
 * A file written with synchronous appends, batched per event-loop turn: the
 * first entry of a turn is written at once; the ones that follow in the same
 * turn (a busy server's concurrent requests) are written together by one
 * `write(2)` when it ends (`setImmediate`). Each request goes on only once
 * the write that carried its entry returned. Order is the call order, nothing waits longer
 * than one turn, and an entry whose `write` resolved is in the file even if
 * the process is killed next. At most `buffer_entries` lines wait for their
 * turn; past that a line is refused at once (the entry is not recorded).
 */
class FileDevice implements AuditDevice {
  readonly #path: string;
  readonly #mode: number | undefined;
  readonly #maxEntries: number;
  #fd: number | undefined;
  #closed = false;
  #lines: string[] = [];
  #waiters: Array<{ resolve(): void; reject(e: unknown): void }> = [];
  #scheduled = false;

  private constructor(path: string, mode: number | undefined, fd: number, maxEntries: number) {
    this.#path = path;
    this.#mode = mode;
    this.#fd = fd;
    this.#maxEntries = maxEntries;
  }

  static open(path: string, o: Readonly<Record<string, string>>): FileDevice {
    const mode = parseMode(o.mode);
    const { maxEntries } = bufferOptions(o);
    return new FileDevice(path, mode, FileDevice.#openFile(path, mode), maxEntries);
  }

  static #openFile(path: string, mode: number | undefined): number {
    const fd = openSync(path, 'a', mode ?? 0o600);
    if (mode !== undefined) {
      try {
        fchmodSync(fd, mode);
      } catch (e) {
        closeSync(fd);
        throw e;
      }
    }
    return fd;
  }

  write(line: string): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('audit device closed'));
    if (!this.#scheduled) {
      // The first entry of a turn is written at once; the turn's later ones wait for its end.
      this.#scheduled = true;
      setImmediate(() => this.#flushNow());
      try {
        this.#append(line);
        return Promise.resolve();
      } catch (e) {
        return Promise.reject(e);
      }
    }
    if (this.#lines.length >= this.#maxEntries) {
      return Promise.reject(new Error('audit buffer full'));
    }
    return new Promise<void>((resolve, reject) => {
      this.#lines.push(line);
      this.#waiters.push({ resolve, reject });
    });
  }

  /** One synchronous append of `text` (the rest too after a short write). */
  #append(text: string): void {
    this.#fd ??= FileDevice.#openFile(this.#path, this.#mode);
    const n = writeSync(this.#fd, text);
    // A short write (rare on a regular file): the rest, by bytes.
    if (n !== Buffer.byteLength(text)) {
      const bytes = Buffer.from(text, 'utf8');
      for (let off = n; off < bytes.length; ) off += writeSync(this.#fd, bytes, off);
    }
  }

  /** Write every waiting line with one append; settle their promises. */
  #flushNow(): void {
    this.#scheduled = false;
    const lines = this.#lines;
    const waiters = this.#waiters;
    if (lines.length === 0) return;
    this.#lines = [];
    this.#waiters = [];
    try {
      this.#append(lines.length === 1 ? (lines[0] as string) : lines.join(''));
      for (const w of waiters) w.resolve();
    } catch (e) {
      for (const w of waiters) w.reject(e);
    }
  }

  async flush(): Promise<void> {
    this.#flushNow();
  }

  async reopen(): Promise<void> {
    if (this.#closed) return;
    this.#flushNow();
    const old = this.#fd;
    this.#fd = FileDevice.#openFile(this.#path, this.#mode);
    if (old !== undefined) closeSync(old);
  }

  async close(): Promise<void> {
    this.#flushNow();
    this.#closed = true;
    const fd = this.#fd;
    this.#fd = undefined;
    if (fd !== undefined) closeSync(fd);
  }
}

/** Standard output through the same ordered buffer. */
function stdoutDevice(o: Readonly<Record<string, string>>): AuditDevice {
  const queue = new LineQueue({
    ...bufferOptions(o),
    write: (batch) =>
      new Promise<void>((resolve, reject) =>
        process.stdout.write(batch, (e) => (e ? reject(e) : resolve())),
      ),
  });
  return {
    write: (line) => queue.push(line),
    flush: () => queue.flush(),
    close: () => queue.close(),
  };
}

const discard: AuditDevice = {
  write: () => Promise.resolve(),
  flush: () => Promise.resolve(),
  close: () => Promise.resolve(),
};

/**
 * The `file` device type: options `file_path` (required; `stdout`,
 * `discard`), `mode`, `buffer_entries` (lines waiting for the next write,
 * default 8,192), `buffer_bytes` (for `stdout`).
 * @public
 */
export const fileAuditDevice: AuditDeviceFactory = {
  options: ['file_path', 'path', 'mode', 'buffer_entries', 'buffer_bytes'],
  async create({ options }) {
    const path = options.file_path ?? options.path;
    if (path === undefined || path === '') throw invalidRequest('options.file_path is required');
    bufferOptions(options);
    if (path === 'discard') return discard;
    if (path === 'stdout') return stdoutDevice(options);
    return FileDevice.open(path, options);
  },
};
