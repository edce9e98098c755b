/**
 * `transitkit inspect [FILE...]`: the header of TKS1 envelopes, read locally
 * with no server, no token and no key — one JSON line per object with the
 * version of the transit key that wrapped its data key. Shell rotation scans
 * use it to find the objects still wrapped by a version they are about to
 * retire with `min_decryption_version`:
 *
 * ```sh
 * transitkit inspect backups/*.tks1 | jq -r 'select(.key_version < 3) | .file'
 * ```
 *
 * Only the header is read (two small reads per file; from stdin, at most its
 * first 64 KiB). A file that cannot be read or is not an envelope gets one
 * line on stderr and the scan goes on; the exit status is then 1.
 * @module
 */
import { open } from 'node:fs/promises';
import type { Readable, Writable } from 'node:stream';
import { isTransitError } from '../../src/errors.js';
import { readEnvelopeHeader } from '../../src/stream/header.js';
import { UsageError } from './flags.js';

/** The `--help` section of `transitkit inspect`. */
export const INSPECT_USAGE = `
Usage: transitkit inspect [FILE...]

Print the header of TKS1 envelopes (as written by encrypt and encryptStream)
as one JSON line each: {"file", "key_version", "wrapped_key", "header_length"}.
Read locally: no server, token or key is needed, and nothing is decrypted, so
the header is what the envelope claims until it is decrypted. With no FILE,
or FILE -, reads stdin. Exits 1 if any FILE could not be read as an envelope.
`;

/** Most bytes a header takes: magic, length field and a 65,535-byte wrapped key. */
const MAX_HEADER = 6 + 0xffff;

/**
 * Parse the arguments of `transitkit inspect` (after the command): files, or
 * none for stdin.
 * @throws UsageError for a flag.
 */
export function parseInspectArgs(rest: readonly string[]): string[] {
  for (const arg of rest) {
    if (arg.startsWith('--') || (arg.startsWith('-') && arg !== '-')) {
      throw new UsageError(`unknown flag ${arg} for inspect`);
    }
  }
  return rest.length === 0 ? ['-'] : [...rest];
}

/** The first bytes of `stream`, up to the longest possible header. */
async function headOf(stream: Readable): Promise<Uint8Array> {
  const parts: Buffer[] = [];
  let n = 0;
  for await (const chunk of stream) {
    const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    parts.push(b);
    n += b.length;
    if (n >= MAX_HEADER) break; // leaving the loop stops reading
  }
  return Buffer.concat(parts, Math.min(n, MAX_HEADER));
}

async function headerOf(file: string, stdin: Readable) {
  if (file === '-') return readEnvelopeHeader(await headOf(stdin));
  const handle = await open(file);
  try {
    // A pipe, FIFO or device (`<(…)`, /dev/stdin) has no size to read at: its head, as stdin's.
    if (!(await handle.stat()).isFile()) {
      return readEnvelopeHeader(await headOf(handle.createReadStream({ autoClose: false })));
    }
    return await readEnvelopeHeader(handle);
  } finally {
    await handle.close();
  }
}

/** Why `file` could not be inspected, in one line (the library's message, or the system's). */
function reason(e: unknown): string {
  if (isTransitError(e)) return e.message;
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EISDIR') return 'is a directory';
  if (code === 'EACCES') return 'permission denied';
  return e instanceof Error ? e.message : String(e);
}

/**
 * Print the header of each file (stdin for `-`) as a JSON line on `stdout`;
 * a failure is a line on `stderr`. Returns the exit status: 0 when every
 * file was an envelope, else 1.
 */
export async function runInspect(
  files: readonly string[],
  io: { stdin: Readable; stdout: Writable; stderr: Writable },
): Promise<number> {
  let status = 0;
  for (const file of files) {
    try {
      const h = await headerOf(file, io.stdin);
      const line = {
        file,
        key_version: h.keyVersion,
        wrapped_key: h.wrappedKey,
        header_length: h.headerLength,
      };
      io.stdout.write(`${JSON.stringify(line)}\n`);
    } catch (e) {
      status = 1;
      io.stderr.write(`transitkit inspect: ${file === '-' ? 'stdin' : file}: ${reason(e)}\n`);
    }
  }
  return status;
}
