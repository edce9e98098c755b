/**
 * Vault's `file` audit device, for Node: each entry is one line appended to
 * `file_path` (created with `mode`, default `0600`; `0000` leaves the mode of
 * an existing file alone, as Vault). `file_path=stdout` writes to the
 * process's standard output and `file_path=discard` drops every entry (both
 * as Vault).
 *
 * Entries go through a bounded, ordered buffer (src/audit/queue.ts): lines
 * that arrive while a write is in flight are appended together by the next
 * write, and each request waits for the write carrying its entry. `reopen`
 * (SIGHUP on the CLI server) closes and reopens the file after a log
 * rotation, between two writes.
 *
 * Node only.
 * @module
 */
import { chmod, type FileHandle, open } from 'node:fs/promises';
import { LineQueue } from '../../src/audit/queue.js';
import type { AuditDevice, AuditDeviceFactory } from '../../src/audit/types.js';
import { invalidRequest } from '../../src/errors.js';
import { bufferOptions } from './device-options.js';

/** `mode`: an octal string (`0600`, `640`); `undefined` for `0000` (leave the mode alone). */
function parseMode(value: string | undefined): number | undefined {
  const v = value === undefined || value === '' ? '0600' : value;
  if (!/^[0-7]{3,4}$/.test(v)) {
    throw invalidRequest(
      `options.mode must be an octal file mode such as 0600, got ${JSON.stringify(v)}`,
    );
  }
  const mode = Number.parseInt(v, 8);
  return mode === 0 ? undefined : mode;
}

class FileDevice implements AuditDevice {
  readonly #path: string;
  readonly #mode: number | undefined;
  #fh: FileHandle | undefined;
  #reopen = false;
  readonly #queue: LineQueue;

  private constructor(
    path: string,
    mode: number | undefined,
    fh: FileHandle,
    o: Record<string, string>,
  ) {
    this.#path = path;
    this.#mode = mode;
    this.#fh = fh;
    this.#queue = new LineQueue({ ...bufferOptions(o), write: (batch) => this.#append(batch) });
  }

  static async open(path: string, o: Readonly<Record<string, string>>): Promise<FileDevice> {
    const mode = parseMode(o.mode);
    const fh = await FileDevice.#openFile(path, mode);
    return new FileDevice(path, mode, fh, { ...o });
  }

  static async #openFile(path: string, mode: number | undefined): Promise<FileHandle> {
    const fh = await open(path, 'a', mode ?? 0o600);
    if (mode !== undefined) {
      try {
        await chmod(path, mode);
      } catch (e) {
        await fh.close().catch(() => undefined);
        throw e;
      }
    }
    return fh;
  }

  async #append(batch: string): Promise<void> {
    if (this.#reopen || !this.#fh) {
      this.#reopen = false;
      const old = this.#fh;
      this.#fh = undefined;
      await old?.close().catch(() => undefined);
      this.#fh = await FileDevice.#openFile(this.#path, this.#mode);
    }
    await this.#fh.appendFile(batch);
  }

  write(line: string): Promise<void> {
    return this.#queue.push(line);
  }

  flush(): Promise<void> {
    return this.#queue.flush();
  }

  async reopen(): Promise<void> {
    this.#reopen = true;
    // An idle device reopens now, so a rotated file is released at once.
    if (this.#queue.waiting === 0) await this.#queue.push('').catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.#queue.close();
    const fh = this.#fh;
    this.#fh = undefined;
    await fh?.close();
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
 * `discard`), `mode`, `buffer_entries`, `buffer_bytes`.
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
