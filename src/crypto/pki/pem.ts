/**
 * PEM armouring (RFC 7468): 64-column base64 lines, `\n` line ends, and (for
 * {@link pemEncode}) a trailing `\n` after the END line, which is what Go's
 * `pem.EncodeToMemory` writes (Vault trims it for some exports; that is the
 * engine's business, §8 of the reference).
 *
 * PEM is text framing around base64, not ASN.1: the base64 goes through the
 * strict Go-compatible codec of `../../encoding.ts` (`@scure/base`), and the
 * framing is read line by line with the RFC 7468 grammar (RFC 1421 headers
 * recognised so they can be refused). This used to be `@peculiar/x509`'s
 * `PemConverter`; that package installs a global `Reflect.getMetadata`
 * polyfill when loaded (issue 22), so the core no longer depends on it. The
 * grammar is the one `PemConverter`'s regular expression used, read in one
 * pass: that expression backtracked exponentially on header lines that read
 * as continuation lines too, and quadratically on a line of repeated
 * `-----BEGIN ` (a few hundred bytes held the event loop for hours).
 *
 * Labels transit uses: `RSA PRIVATE KEY` (PKCS#1), `EC PRIVATE KEY` (SEC 1),
 * `PRIVATE KEY` (PKCS#8), `PUBLIC KEY` (SPKI), `CERTIFICATE`, `CERTIFICATE REQUEST`.
 *
 * @module
 */
import { encodeBase64, tryDecodeBase64 } from '../../encoding.js';
import { invalidRequest } from '../../errors.js';

/** One decoded PEM block. @internal */
export interface PemBlock {
  /** The label between `BEGIN ` and the dashes. */
  readonly label: string;
  /** The block has RFC 1421 header lines (`Proc-Type`, `DEK-Info`, …). */
  readonly hasHeaders: boolean;
  /** The decoded body. */
  readonly der: Uint8Array;
}

const BEGIN = '-----BEGIN ';
const DASHES = '-----';
/** An RFC 1421 header line (`Key: value`; the key does not start with a space). */
const HEADER = /^[^: ][^:]*: ./;
/** A header's continuation line. */
const CONTINUATION = /^ +./;
const BASE64_LINE = /^[a-zA-Z0-9=+/]+$/;

/**
 * The label of a BEGIN line (`-----BEGIN <label>-----`, after any text),
 * or `undefined`.
 */
function beginLabel(line: string): string | undefined {
  const at = line.indexOf(BEGIN);
  if (at < 0 || !line.endsWith(DASHES)) return undefined;
  const label = line.slice(at + BEGIN.length, line.length - DASHES.length);
  return label === '' ? undefined : label;
}

/** Where an attempt at a block stopped. */
type Attempt =
  | { readonly ok: true; readonly block: PemBlock; readonly end: number }
  | {
      readonly ok: false;
      readonly at: number;
      readonly headersEnd: number;
      /** It read a body and stopped at an END line of another label. */
      readonly otherEnd: boolean;
    };

/**
 * Read the block whose BEGIN line is `lines[i]`: optional header lines
 * (`Key: value`, with continuation lines) and a blank line, base64 lines, and
 * the END line with the same label (followed by anything). One pass over the
 * lines it reads.
 */
function attempt(lines: readonly string[], i: number, label: string): Attempt {
  let j = i + 1;
  let hasHeaders = false;
  if (HEADER.test(lines[j] ?? '')) {
    hasHeaders = true;
    j++;
    while (
      j < lines.length &&
      (HEADER.test(lines[j] as string) || CONTINUATION.test(lines[j] as string))
    )
      j++;
  }
  const headersEnd = j;
  if (lines[j] === '') j++;
  const bodyStart = j;
  while (j < lines.length && BASE64_LINE.test(lines[j] as string)) j++;
  const end = lines[j];
  if (j === bodyStart || end === undefined || !end.startsWith(`-----END ${label}${DASHES}`)) {
    const otherEnd = j > bodyStart && end !== undefined && end.startsWith('-----END ');
    return { ok: false, at: j, headersEnd, otherEnd };
  }
  const der = tryDecodeBase64(lines.slice(bodyStart, j).join(''));
  if (der === undefined) throw invalidRequest('malformed PEM block');
  return { ok: true, block: { label, hasHeaders, der }, end: j };
}

/**
 * After the block at line `i` failed only at `endLine`, an END line of
 * another label: the first BEGIN line among its header lines that starts a
 * block ending there, if any. Such a line reads the same lines the same way
 * from the next one on (a header line, not a continuation line, must follow
 * it), so it starts a block exactly when the END line names its label:
 * nothing is read twice.
 */
function innerBegin(
  lines: readonly string[],
  i: number,
  headersEnd: number,
  endLine: string,
): number | undefined {
  for (let k = i + 1; k < headersEnd; k++) {
    const inner = beginLabel(lines[k] as string);
    if (inner === undefined || !endLine.startsWith(`-----END ${inner}${DASHES}`)) continue;
    if (k + 1 === headersEnd || HEADER.test(lines[k + 1] as string)) return k;
  }
  return undefined;
}

/**
 * Every well-formed PEM block of `text`, in order; text between blocks, and a
 * block that does not match the grammar, is skipped (as Go's `pem.Decode` loop
 * and `PemConverter` do). `\r` is ignored, and so are spaces and tabs at the
 * end of a line.
 *
 * Linear in the text: a failed block is not read again from each line inside
 * it. Only BEGIN lines among its header lines could still start a block
 * (other lines of a block are never BEGIN lines), and only when it failed at
 * an END line of another label: one of those is tried ({@link innerBegin}).
 * @throws TransitError `invalid_request` when a block's body is not strict base64.
 * @internal
 */
export function pemBlocks(text: string): PemBlock[] {
  return readPem(text).blocks;
}

/**
 * {@link pemBlocks}, and the text after the last block's END marker (all of
 * `text`, `\r` removed, when there is no block).
 * @internal
 */
export function readPem(text: string): { blocks: PemBlock[]; after: string } {
  // Spaces and tabs before each line's end are allowed (RFC 7468's `*WSP eol`;
  // Go's pem.Decode trims them, as OpenSSL reads them): text copied from a
  // terminal or a form often has them. Trimmed by a loop, not a regular
  // expression (linear on a long run of spaces).
  const lines = text.replace(/\r/g, '').split('\n').map(trimLineEnd);
  const blocks: PemBlock[] = [];
  let last: { line: number; marker: number } | undefined;
  let i = 0;
  while (i < lines.length) {
    const label = beginLabel(lines[i] as string);
    if (label === undefined) {
      i++;
      continue;
    }
    let tried = attempt(lines, i, label);
    if (!tried.ok && tried.otherEnd) {
      const k = innerBegin(lines, i, tried.headersEnd, lines[tried.at] as string);
      if (k !== undefined) tried = attempt(lines, k, beginLabel(lines[k] as string) as string);
    }
    if (tried.ok) {
      blocks.push(tried.block);
      last = { line: tried.end, marker: `-----END ${tried.block.label}${DASHES}`.length };
      i = tried.end + 1;
    } else i = Math.max(tried.at, i + 1);
  }
  const after =
    last === undefined
      ? lines.join('\n')
      : [(lines[last.line] as string).slice(last.marker), ...lines.slice(last.line + 1)].join('\n');
  return { blocks, after };
}

/** `line` without the spaces and tabs it ends with. */
function trimLineEnd(line: string): string {
  let end = line.length;
  while (end > 0) {
    const c = line.charCodeAt(end - 1);
    if (c !== 32 && c !== 9) break;
    end--;
  }
  return end === line.length ? line : line.slice(0, end);
}

/**
 * Armour DER bytes as one PEM block, without a trailing newline.
 * @internal
 */
export function pemArmor(der: Uint8Array, label: string): string {
  const base64 = encodeBase64(der);
  const lines = [`-----BEGIN ${label}-----`];
  for (let i = 0; i < base64.length; i += 64) lines.push(base64.slice(i, i + 64));
  lines.push(`-----END ${label}-----`);
  return lines.join('\n');
}

/** PEM labels transit reads and writes. @public */
export type PemLabel = 'RSA PRIVATE KEY' | 'EC PRIVATE KEY' | 'PRIVATE KEY' | 'PUBLIC KEY';

/**
 * Armour DER bytes as PEM with a trailing newline (Go `pem.EncodeToMemory`).
 *
 * @example
 * ```ts
 * pemEncode(spkiDer, 'PUBLIC KEY'); // "-----BEGIN PUBLIC KEY-----\nMFkw…\n-----END PUBLIC KEY-----\n"
 * ```
 * @public
 */
export function pemEncode(der: Uint8Array, label: PemLabel): string {
  return `${pemArmor(der, label)}\n`;
}

/**
 * The first PEM block of `pem` whose label is one of `labels` (Go's
 * `pem.Decode` also takes the first block). Encrypted PEM (with headers such as
 * `Proc-Type`) is refused.
 *
 * @throws TransitError `invalid_request` when there is no such block.
 * @public
 */
export function pemDecode<L extends string>(
  pem: string,
  labels: readonly L[],
): { readonly label: L; readonly der: Uint8Array } {
  if (typeof pem !== 'string') throw invalidRequest('PEM input must be a string');
  const blocks = pemBlocks(pem);
  if (blocks.length === 0) throw invalidRequest('no PEM block found');
  const block = blocks[0];
  if (block === undefined || !(labels as readonly string[]).includes(block.label)) {
    throw invalidRequest(`unexpected PEM block type: expected ${labels.join(' or ')}`);
  }
  if (block.hasHeaders) throw invalidRequest('encrypted or annotated PEM blocks are not supported');
  const der = block.der;
  if (der.length === 0) throw invalidRequest('empty PEM block');
  return { label: block.label as L, der };
}

/**
 * The read-body form of a stored chain: each certificate as a PEM
 * `CERTIFICATE` block without trailing newline, joined by `\n` (Vault's
 * `strings.Join(TrimSpace(pem.EncodeToMemory(…)), "\n")`); `''` for none.
 * Here, not in `./chain.ts`, so reading a key does not load the certificate parser.
 * @public
 */
export function chainToPem(ders: readonly Uint8Array[]): string {
  return ders.map((der) => pemArmor(der, 'CERTIFICATE')).join('\n');
}
