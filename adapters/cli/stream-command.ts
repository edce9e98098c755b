/**
 * `transitkit encrypt|decrypt`: stream a file or stdin through a server's
 * `POST …/encrypt-stream/:name` or `decrypt-stream/:name` (issue 17) to a
 * file or stdout, in constant memory, over `node:http` / `node:https`.
 *
 * - Full duplex: the upload is written with backpressure while the response
 *   is read, so neither side ever holds the object.
 * - A failed read of the input aborts the request (never ends it), so the
 *   server cannot seal a truncated input as a whole envelope.
 * - `--out FILE` is written to a temporary file in the same directory
 *   (mode 0600), flushed and renamed over FILE only when the response ended
 *   cleanly; on any failure the temporary file is removed and FILE is left
 *   as it was. A link is followed (the file it names is replaced, the link
 *   stays); a device or FIFO (`/dev/null`) is written directly, never
 *   replaced. On stdout, a device or a FIFO, a failure leaves what was
 *   written (decryption writes only authenticated chunks) and exits 1.
 * - Failures are one line on stderr: the server's JSON `errors`, or what
 *   happened to the connection. The token is never printed.
 * - A progress line on stderr when it is a terminal and the input is large
 *   ({@link PROGRESS_MIN_BYTES}), redrawn at most four times a second.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, type WriteStream } from 'node:fs';
import { type FileHandle, open, readFile, realpath, rename, stat, unlink } from 'node:fs/promises';
import { type ClientRequest, request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { constants as osConstants } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import type { StreamArgs } from './stream-args.js';

/** Inputs at least this large (or unknown-size inputs past it) show progress on a TTY. */
export const PROGRESS_MIN_BYTES = 64 * 1024 * 1024;
/** Server address when neither `--addr` nor `VAULT_ADDR` gives one (`transitkit server`'s default). */
export const DEFAULT_ADDR = 'http://127.0.0.1:8200';

/** A failure of the command (exit 1), with a message fit for stderr. */
export class StreamCommandError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StreamCommandError';
  }
}

/** The process streams the command uses (injected for tests). */
export interface StreamIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable & { isTTY?: boolean };
  /** Milliseconds, for the progress rate. */
  now?: () => number;
}

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'] as const;

/** `1536` → `1.5 KiB`; three significant digits above 1 KiB. */
export function formatBytes(n: number): string {
  let v = n;
  let u = 0;
  while (v >= 1024 && u < UNITS.length - 1) {
    v /= 1024;
    u++;
  }
  if (u === 0) return `${n} B`;
  return `${v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)} ${UNITS[u]}`;
}

/**
 * The progress line: `encrypt: 1.50 GiB of 4.00 GiB (37%), 412 MiB/s`
 * (`of …` and the percentage only when the input size is known).
 */
export function formatProgress(
  op: 'encrypt' | 'decrypt',
  done: number,
  total: number | undefined,
  elapsedMs: number,
): string {
  const rate = elapsedMs > 0 ? `${formatBytes((done * 1000) / elapsedMs)}/s` : '—';
  const of =
    total === undefined
      ? ''
      : ` of ${formatBytes(total)} (${total === 0 ? 100 : Math.floor((done * 100) / total)}%)`;
  return `${op}: ${formatBytes(done)}${of}, ${rate}`;
}

/** Whether to show progress: stderr is a terminal and the input is (or has become) large. */
export function showsProgress(isTTY: boolean | undefined, size: number | undefined, done = 0) {
  return isTTY === true && (size ?? done) >= PROGRESS_MIN_BYTES;
}

/** The route URL of a command. */
export function streamUrl(args: StreamArgs, addr: string): URL {
  const mount = args.mount ?? '/v1/transit';
  const url = new URL(`${addr}${mount}/${args.op}-stream/${encodeURIComponent(args.key)}`);
  if (args.context !== undefined) url.searchParams.set('context', args.context);
  if (args.keyVersion !== undefined) url.searchParams.set('key_version', String(args.keyVersion));
  return url;
}

/** The server's `{"errors":[…]}` as one line (or the status alone). */
async function errorOf(res: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of res as AsyncIterable<Buffer>) {
    if (size < 64 * 1024) chunks.push(c);
    size += c.length;
  }
  let detail = '';
  try {
    const errors = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { errors?: unknown })
      .errors;
    if (Array.isArray(errors)) detail = errors.filter((e) => typeof e === 'string').join('; ');
  } catch {
    // not JSON: the status says it
  }
  return `server answered ${res.statusCode}${detail ? `: ${detail}` : ''}`;
}

/** An output file written whole or not at all. */
interface Output {
  stream: Writable;
  /** Flush and move into place. */
  commit(): Promise<void>;
  /** Remove whatever was written. */
  discard(): Promise<void>;
}

/**
 * Where `--out` writes: `path` itself when it is a device or a FIFO
 * (`/dev/null`, a pipe to another program), which must never be replaced;
 * else a regular file, through a link to its target, so a link stays a link.
 */
async function outputTarget(
  path: string,
  cannot: (e: NodeJS.ErrnoException) => never,
): Promise<{ direct: boolean; path: string }> {
  const found = await stat(path).catch((e: NodeJS.ErrnoException) =>
    e.code === 'ENOENT' ? undefined : cannot(e),
  );
  if (!found) return { direct: false, path };
  if (found.isDirectory()) cannot({ code: 'EISDIR' } as NodeJS.ErrnoException);
  if (!found.isFile()) return { direct: true, path };
  return { direct: false, path: await realpath(path).catch(cannot) };
}

/**
 * An {@link Output} over an open file: `settle` runs once the stream has
 * closed cleanly (rename into place), `cleanup` after a discard.
 */
function outputOn(
  handle: FileHandle,
  settle: () => Promise<void>,
  cleanup: () => Promise<void>,
): Output {
  const stream: WriteStream = handle.createWriteStream();
  const closed = new Promise<void>((resolve, reject) => {
    stream.once('close', resolve);
    stream.once('error', reject);
  });
  closed.catch(() => {}); // reported through the command's own error path
  return {
    stream,
    async commit() {
      await new Promise<void>((resolve, reject) => {
        stream.end(() => resolve());
        stream.once('error', reject);
      });
      await closed;
      await settle();
    },
    async discard() {
      stream.destroy();
      await closed.catch(() => undefined);
      await cleanup();
    },
  };
}

const nothing = async (): Promise<void> => {};

/**
 * `--out`: a regular file is written to a temporary file beside it, created
 * first (so a bad `--out` fails before anything is sent) and renamed over it
 * only on success; a device or FIFO is written directly, as stdout is.
 */
async function fileOutput(given: string): Promise<Output> {
  const cannot = (e: NodeJS.ErrnoException): never => {
    throw new StreamCommandError(`cannot write --out ${given}: ${e.code ?? e.message}`);
  };
  const target = await outputTarget(given, cannot);
  if (target.direct) return outputOn(await open(given, 'w').catch(cannot), nothing, nothing);
  const path = target.path;
  const tmp = join(
    dirname(path),
    `.${basename(path)}.transitkit-${randomBytes(6).toString('hex')}.tmp`,
  );
  return outputOn(
    await open(tmp, 'wx', 0o600).catch(cannot),
    async () => {
      // On disk before it takes the name, and the name on disk after: a power loss
      // leaves the old file or the whole new one, never an empty or short one.
      await syncPath(tmp, 'r+');
      await rename(tmp, path);
      await syncPath(dirname(path), 'r').catch(() => undefined);
    },
    () => unlink(tmp).catch(() => undefined),
  );
}

async function syncPath(path: string, flags: 'r' | 'r+'): Promise<void> {
  const h = await open(path, flags);
  try {
    await h.sync();
  } finally {
    await h.close();
  }
}

function stdoutOutput(stdout: Writable): Output {
  return {
    stream: stdout,
    commit: () =>
      new Promise<void>((resolve, reject) => {
        // Flush what is buffered; stdout itself stays open.
        if (stdout.write('')) resolve();
        else {
          stdout.once('drain', resolve);
          stdout.once('error', reject);
        }
      }),
    discard: async () => {},
  };
}

/** Why a connection-level failure happened, without any request detail. */
function describe(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  if (err?.code === 'ECONNREFUSED') return 'cannot connect to the server (connection refused)';
  if (err?.code === 'ENOTFOUND') return 'cannot resolve the server address';
  if (err?.code === 'ECONNRESET' || err?.message === 'aborted') {
    return 'the server aborted the stream (the input failed to decrypt, was cut short, or passed the server limit)';
  }
  return err?.message ?? String(e);
}

/**
 * Run `transitkit encrypt|decrypt`.
 * @throws StreamCommandError for any failure (the caller prints it and exits 1).
 */
export async function runStreamCommand(args: StreamArgs, io: StreamIo): Promise<void> {
  const addr = args.addr ?? DEFAULT_ADDR;
  if (args.token === undefined) {
    throw new StreamCommandError('no token: give --token, or set VAULT_TOKEN or TRANSITKIT_TOKEN');
  }
  const url = streamUrl(args, addr);
  const https = url.protocol === 'https:';
  let ca: Buffer | undefined;
  if (args.caCert !== undefined) {
    ca = await readFile(args.caCert).catch((e: NodeJS.ErrnoException) => {
      throw new StreamCommandError(`cannot read --ca-cert ${args.caCert}: ${e.code ?? e.message}`);
    });
  }
  let size: number | undefined;
  let input: Readable;
  if (args.in !== undefined) {
    const info = await stat(args.in).catch((e: NodeJS.ErrnoException) => {
      throw new StreamCommandError(`cannot read --in ${args.in}: ${e.code ?? e.message}`);
    });
    if (!info.isFile()) throw new StreamCommandError(`--in ${args.in} is not a file`);
    size = info.size;
    input = createReadStream(args.in);
  } else input = io.stdin;
  const output = args.out === undefined ? stdoutOutput(io.stdout) : await fileOutput(args.out);

  const now = io.now ?? (() => Date.now());
  const started = now();
  let sent = 0;
  let shown = 0;
  let drawn = false;
  const draw = (final: boolean) => {
    if (!showsProgress(io.stderr.isTTY, size, sent)) return;
    const t = now();
    if (!final && t - shown < 250) return;
    shown = t;
    drawn = true;
    io.stderr.write(`\r\x1b[K${formatProgress(args.op, sent, size, t - started)}`);
  };

  const headers: Record<string, string> = {
    'content-type': 'application/octet-stream',
    'x-vault-token': args.token,
  };
  if (size !== undefined) headers['content-length'] = String(size);
  const send = https ? httpsRequest : httpRequest;
  let req: ClientRequest | undefined;
  // Interrupted (Ctrl-C, a kill), the command still takes its temporary --out file
  // back: it holds plaintext (or ciphertext) of a run that did not finish.
  const stopInterrupts = onInterrupt(async (signal) => {
    req?.destroy();
    await output.discard();
    process.exit(128 + (osConstants.signals[signal] ?? 0));
  });
  try {
    await new Promise<void>((resolve, reject) => {
      let failed = false;
      const fail = (e: unknown) => {
        if (failed) return;
        failed = true;
        req?.destroy();
        input.unpipe?.();
        reject(e instanceof StreamCommandError ? e : new StreamCommandError(describe(e)));
      };
      req = send(url, { method: 'POST', headers, ...(ca ? { ca } : {}) }, (res) => {
        if (res.statusCode !== 200) {
          errorOf(res).then((m) => fail(new StreamCommandError(m)), fail);
          return;
        }
        res.on('error', fail);
        res.on('aborted', () => fail(new Error('aborted')));
        res.on('close', () => {
          if (!res.complete) fail(new Error('aborted'));
        });
        output.stream.on('error', (e: NodeJS.ErrnoException) =>
          fail(new StreamCommandError(`cannot write the output: ${e.code ?? e.message}`)),
        );
        res.pipe(output.stream, { end: false });
        res.on('end', () => {
          if (!res.complete) fail(new Error('aborted'));
          else if (!failed) resolve();
        });
      });
      req.on('error', fail);
      input.on('error', (e: NodeJS.ErrnoException) =>
        fail(new StreamCommandError(`cannot read the input: ${e.code ?? e.message}`)),
      );
      input.on('data', (c: Buffer) => {
        sent += c.length;
        // A file that grows while it is read: its bytes past the length sent would be
        // read by the server as another request.
        if (size !== undefined && sent > size) fail(changedSize(args.in));
        draw(false);
      });
      input.on('end', () => {
        // One that shrank: the server would wait for the rest until its own timeout.
        if (size !== undefined && sent !== size) fail(changedSize(args.in));
      });
      // A failed input destroys the request (above), so the upload is never ended early.
      input.pipe(req);
    });
    draw(true);
    await output.commit();
  } catch (e) {
    await output.discard();
    throw e instanceof StreamCommandError ? e : new StreamCommandError(describe(e));
  } finally {
    stopInterrupts();
    if (drawn) io.stderr.write('\n');
    if (args.in !== undefined) input.destroy();
  }
}

function changedSize(path: string | undefined): StreamCommandError {
  return new StreamCommandError(`--in ${path} changed size while it was read; nothing was written`);
}

const INTERRUPTS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** Run `cleanup` on the first interrupt signal until the returned function is called. */
function onInterrupt(cleanup: (signal: (typeof INTERRUPTS)[number]) => Promise<void>): () => void {
  const handlers = INTERRUPTS.map((signal) => {
    const handler = () => {
      stop();
      void cleanup(signal);
    };
    process.once(signal, handler);
    return [signal, handler] as const;
  });
  const stop = () => {
    for (const [signal, handler] of handlers) process.off(signal, handler);
  };
  return stop;
}
