/**
 * Vault clients send the non-standard `LIST` method (hvac, the Vault CLI,
 * node-vault); Node's HTTP parser (llhttp) has a fixed method set and answers
 * `LIST` with 400 before any JavaScript runs. Vault defines `GET ?list=true`
 * as the same request, so this rewriter turns each request line
 * `LIST /p?q HTTP/1.1` into `GET /p?q&list=true HTTP/1.1` on the raw byte
 * stream, before Node's parser sees it.
 *
 * To touch request lines only, it follows HTTP/1.1 message framing (RFC 9112
 * §6): headers up to the empty line, then `Content-Length` bytes or chunked
 * coding (sizes, data, trailers). Bodies pass through as slices without
 * copying. Anything it does not understand (oversized lines, bad chunk sizes,
 * upgrades, CONNECT) switches it to pass-through, so Node's own parser
 * decides — it never makes a stream more permissive than Node is.
 * @module
 */
import { Buffer } from 'node:buffer';

type State = 'line' | 'headers' | 'body' | 'size' | 'data' | 'trailer' | 'pass';

const MAX_LINE = 16 * 1024;
const MAX_HEADERS = 64 * 1024;
const LF = 0x0a;
const EMPTY = Buffer.alloc(0);
const LIST_PREFIX = Buffer.from('LIST ', 'latin1');

const CONNECT_PREFIX = Buffer.from('CONNECT ', 'latin1');
/** First bytes of the headers that frame a request: Content-Length, Transfer-Encoding, Upgrade. */
const FRAMING_INITIALS = new Set([0x43, 0x63, 0x54, 0x74, 0x55, 0x75]);

/** A line (ending in LF) without its `\r?\n`, as text. */
function bareText(line: Buffer): string {
  const end =
    line.length >= 2 && line[line.length - 2] === 0x0d ? line.length - 2 : line.length - 1;
  return line.toString('latin1', 0, Math.max(end, 0));
}

/** Whether a line (ending in LF) is empty: `\n` or `\r\n`. */
const isBlank = (line: Buffer): boolean =>
  line.length === 1 || (line.length === 2 && line[0] === 0x0d);

/** Whether `line` starts with `prefix`. */
const startsWith = (line: Buffer, prefix: Buffer): boolean =>
  line.length >= prefix.length && line.compare(prefix, 0, prefix.length, 0, prefix.length) === 0;

/** Whether a (possibly partial) line could be a `LIST` request line. */
function mayBeList(part: Buffer): boolean {
  const n = Math.min(part.length, LIST_PREFIX.length);
  return part.compare(LIST_PREFIX, 0, n, 0, n) === 0;
}

/**
 * Incremental `LIST` → `GET ?list=true` rewriter for one connection.
 * @internal
 */
export class ListMethodRewriter {
  #state: State = 'line';
  #pending: Buffer[] = [];
  #pendingLength = 0;
  #remaining = 0;
  #headerBytes = 0;
  #contentLength = 0;
  #chunked = false;
  #upgrade = false;
  #connect = false;

  /** A partial request line that may be `LIST`, withheld until its end. */
  #held: Buffer | undefined;

  /**
   * Bytes to forward for one received chunk: the chunk itself (no copy)
   * unless it holds a `LIST` request line, or ends inside a request line
   * that may be one (withheld until the line is complete).
   */
  feed(input: Buffer): Buffer {
    if (this.#state === 'pass') return input;
    let chunk = input;
    if (this.#held !== undefined) {
      chunk = Buffer.concat([this.#held, input]);
      this.#held = undefined;
    }
    // Spans of `chunk` replaced in the output: [start, end, replacement].
    const edits: [number, number, Buffer][] = [];
    let i = 0;
    while (i < chunk.length && this.#state !== 'pass') {
      if (this.#state === 'body' || this.#state === 'data') {
        const n = Math.min(this.#remaining, chunk.length - i);
        i += n;
        this.#remaining -= n;
        if (this.#remaining === 0) this.#state = this.#state === 'body' ? 'line' : 'size';
        continue;
      }
      const nl = chunk.indexOf(LF, i);
      const end = nl < 0 ? chunk.length : nl + 1;
      const part = chunk.subarray(i, end);
      if (this.#state === 'line' && this.#pendingLength === 0 && mayBeList(part)) {
        // A request line that is (or may still be) LIST: rewrite it whole,
        // or withhold it whole until it ends.
        if (part.length > MAX_LINE) {
          this.#state = 'pass';
          break;
        }
        if (nl < 0) {
          this.#held = Buffer.from(part);
          edits.push([i, end, EMPTY]);
          break;
        }
        const line = this.#line(part);
        if (line !== part) edits.push([i, end, line]);
        i = end;
        continue;
      }
      this.#pending.push(part);
      this.#pendingLength += part.length;
      i = end;
      if (this.#pendingLength > MAX_LINE) this.#state = 'pass';
      else if (nl >= 0) this.#line(this.#take());
    }
    if (edits.length === 0) return chunk;
    const out: Buffer[] = [];
    let at = 0;
    for (const [from, to, bytes] of edits) {
      out.push(chunk.subarray(at, from), bytes);
      at = to;
    }
    out.push(chunk.subarray(at));
    return Buffer.concat(out);
  }

  #take(): Buffer {
    const line =
      this.#pending.length === 1 ? (this.#pending[0] as Buffer) : Buffer.concat(this.#pending);
    this.#pending = [];
    this.#pendingLength = 0;
    return line;
  }

  /** Handle one complete line (ending in LF); returns the bytes to forward. */
  #line(line: Buffer): Buffer {
    switch (this.#state) {
      case 'line':
        return this.#requestLine(line);
      case 'headers':
        this.#headerBytes += line.length;
        if (this.#headerBytes > MAX_HEADERS) this.#state = 'pass';
        else if (isBlank(line)) this.#endOfHeaders();
        // Only three headers frame a request: the others are not even decoded.
        else if (FRAMING_INITIALS.has(line[0] as number)) this.#header(bareText(line));
        return line;
      case 'size': {
        const m = /^([0-9A-Fa-f]{1,15})[ \t]*(?:;.*)?$/.exec(bareText(line));
        if (!m) this.#state = 'pass';
        else {
          const size = Number.parseInt(m[1] as string, 16);
          if (size === 0) this.#state = 'trailer';
          else {
            this.#remaining = size + 2; // data and its CRLF
            this.#state = 'data';
          }
        }
        return line;
      }
      case 'trailer':
        if (isBlank(line)) this.#state = 'line';
        return line;
      default:
        return line;
    }
  }

  #requestLine(line: Buffer): Buffer {
    if (isBlank(line)) return line; // empty lines before a request are tolerated
    this.#state = 'headers';
    this.#headerBytes = line.length;
    this.#contentLength = 0;
    this.#chunked = false;
    this.#upgrade = false;
    this.#connect = startsWith(line, CONNECT_PREFIX);
    if (!startsWith(line, LIST_PREFIX)) return line;
    const m = /^LIST ([^ ]+) (HTTP\/1\.[01])$/.exec(bareText(line));
    if (!m) return line;
    // `list=true` goes first in the query, where the dispatcher reads it (the first
    // value, as Go's Query().Get): a LIST is a list whatever `list` the URL also has,
    // as in Vault. It goes before a fragment too, which the dispatcher drops.
    const whole = m[1] as string;
    const hash = whole.indexOf('#');
    const target = hash < 0 ? whole : whole.slice(0, hash);
    const fragment = hash < 0 ? '' : whole.slice(hash);
    const q = target.indexOf('?');
    const query = q < 0 ? '' : `&${target.slice(q + 1)}`;
    const path = q < 0 ? target : target.slice(0, q);
    const rewritten = `GET ${path}?list=true${query}${fragment} ${m[2]}\r\n`;
    return Buffer.from(rewritten, 'latin1');
  }

  #header(bare: string): void {
    const colon = bare.indexOf(':');
    if (colon <= 0) return;
    const name = bare.slice(0, colon).trim().toLowerCase();
    const value = bare
      .slice(colon + 1)
      .trim()
      .toLowerCase();
    if (name === 'content-length') {
      const n = Number(value);
      if (!/^[0-9]+$/.test(value) || !Number.isSafeInteger(n)) this.#state = 'pass';
      else this.#contentLength = n;
    } else if (name === 'transfer-encoding') {
      const codings = value.split(',').map((c) => c.trim());
      this.#chunked = codings[codings.length - 1] === 'chunked';
      if (!this.#chunked) this.#state = 'pass'; // a body delimited by close: leave it to Node
    } else if (name === 'upgrade') {
      this.#upgrade = true;
    }
  }

  #endOfHeaders(): void {
    if (this.#upgrade || this.#connect) this.#state = 'pass';
    else if (this.#chunked) this.#state = 'size';
    else if (this.#contentLength > 0) {
      this.#remaining = this.#contentLength;
      this.#state = 'body';
    } else this.#state = 'line';
  }
}
