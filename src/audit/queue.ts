/**
 * The bounded, ordered write buffer of a device.
 *
 * Lines are written in the order they were accepted, in batches: while one
 * write is in flight, the lines that arrive meanwhile wait and go out
 * together in the next one (group commit), so a busy server makes one write
 * per batch, not per entry. Each line's promise settles when the write that
 * carried it did — a request is answered only after its entries are written.
 *
 * Bounded: at most `maxEntries` lines and `maxBytes` characters wait besides
 * the batch in flight. **When full, a new line is refused at once** (its
 * promise rejects with `audit buffer full`): the device has failed for that
 * entry, and the broker refuses the request unless another device recorded
 * it (fail closed), so a stalled output costs errors, not memory.
 *
 * With `timeoutMs`, a write that has not completed in time fails every line
 * it carries, and `onTimeout` is called (a socket device drops its
 * connection there); the next batch starts then. A line therefore waits at
 * most about two timeouts (the batch in flight, then its own).
 *
 * Runtime-neutral.
 * @module
 */

/** Options of a {@link LineQueue}. @internal */
export interface LineQueueOptions {
  /** Write one batch (lines concatenated); resolves once written. */
  write(batch: string): Promise<void>;
  /** Write each line on its own (datagrams). */
  oneLinePerWrite?: boolean;
  /** Lines that may wait (default 8,192). */
  maxEntries?: number;
  /** Characters that may wait (default 16 MiB). */
  maxBytes?: number;
  /** Fail a write that has not completed after this many ms. */
  timeoutMs?: number;
  /** Called when a write timed out, before the next batch. */
  onTimeout?(): void;
}

interface Waiting {
  line: string;
  resolve(): void;
  reject(e: Error): void;
}

/** Default number of lines that may wait. @internal */
export const DEFAULT_BUFFER_ENTRIES = 8192;
/** Default characters that may wait. @internal */
export const DEFAULT_BUFFER_BYTES = 16 * 1024 * 1024;

/** The ordered, bounded buffer of one device. @internal */
export class LineQueue {
  readonly #o: LineQueueOptions;
  readonly #maxEntries: number;
  readonly #maxBytes: number;
  #pending: Waiting[] = [];
  #bytes = 0;
  #running: Promise<void> | undefined;
  #closed = false;

  constructor(o: LineQueueOptions) {
    this.#o = o;
    this.#maxEntries = o.maxEntries ?? DEFAULT_BUFFER_ENTRIES;
    this.#maxBytes = o.maxBytes ?? DEFAULT_BUFFER_BYTES;
  }

  /** Lines waiting (not counting the batch in flight). */
  get waiting(): number {
    return this.#pending.length;
  }

  /** Queue a line; settles when it is written, or rejects (buffer full, write failed, closed). */
  push(line: string): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('audit device closed'));
    if (
      this.#pending.length >= this.#maxEntries ||
      (this.#pending.length > 0 && this.#bytes + line.length > this.#maxBytes)
    ) {
      return Promise.reject(new Error('audit buffer full'));
    }
    return new Promise<void>((resolve, reject) => {
      this.#pending.push({ line, resolve, reject });
      this.#bytes += line.length;
      this.#running ??= this.#drain();
    });
  }

  /** Resolves once every accepted line was written (or failed). */
  async flush(): Promise<void> {
    while (this.#running) await this.#running;
  }

  /** Refuse new lines, then flush. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.flush();
  }

  async #drain(): Promise<void> {
    try {
      while (this.#pending.length > 0) {
        const batch = this.#o.oneLinePerWrite ? this.#pending.splice(0, 1) : this.#pending;
        if (!this.#o.oneLinePerWrite) this.#pending = [];
        let text = '';
        for (const w of batch) text += w.line;
        this.#bytes -= text.length;
        try {
          await this.#timed(this.#o.write(text));
          for (const w of batch) w.resolve();
        } catch (e) {
          const err = e instanceof Error ? e : new Error(String(e));
          for (const w of batch) w.reject(err);
        }
      }
    } finally {
      this.#running = undefined;
    }
  }

  #timed(p: Promise<void>): Promise<void> {
    const ms = this.#o.timeoutMs;
    if (ms === undefined) return p;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`audit write timed out after ${ms} ms`));
        this.#o.onTimeout?.();
      }, ms);
      p.then(
        () => {
          clearTimeout(timer);
          resolve();
        },
        (e: unknown) => {
          clearTimeout(timer);
          reject(e);
        },
      );
    });
  }
}
