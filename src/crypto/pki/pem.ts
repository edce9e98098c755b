/**
 * PEM armouring (RFC 7468): 64-column base64 lines, `\n` line ends, and (for
 * {@link pemEncode}) a trailing `\n` after the END line, which is what Go's
 * `pem.EncodeToMemory` writes (Vault trims it for some exports; that is the
 * engine's business, §8 of the reference).
 *
 * PEM is text framing around base64, not ASN.1: the base64 goes through the
 * strict Go-compatible codec of `../../encoding.ts` (`@scure/base`), and the
 * framing is read with one regular expression of the RFC 7468 grammar (with
 * RFC 1421 headers recognised so they can be refused). This used to be
 * `@peculiar/x509`'s `PemConverter`; that package installs a global
 * `Reflect.getMetadata` polyfill when loaded (issue 22), so the core no
 * longer depends on it. The grammar below is the one `PemConverter` used, so
 * the same inputs are accepted and refused.
 *
 * Labels transit uses: `RSA PRIVATE KEY` (PKCS#1), `EC PRIVATE KEY` (SEC 1),
 * `PRIVATE KEY` (PKCS#8), `PUBLIC KEY` (SPKI), `CERTIFICATE`, `CERTIFICATE REQUEST`.
 *
 * @module
 */
import { encodeBase64, tryDecodeBase64 } from '../../encoding.js';
import { invalidRequest } from '../../errors.js';

/**
 * One PEM block: `-----BEGIN <label>-----`, optional `Key: value` header lines
 * (RFC 1421, with continuation lines) and a blank line, base64 lines, and
 * `-----END <label>-----` with the same label.
 */
const PEM_BLOCK =
  /-{5}BEGIN ([^\n]+(?=-{5}))-{5}\n((?:[^:\n]+: (?:[^\n]+\n(?: +[^\n]+\n)*))+)?\n?((?:[a-zA-Z0-9=+/]+\n)+)-{5}END \1-{5}/g;

/** One decoded PEM block. @internal */
export interface PemBlock {
  /** The label between `BEGIN ` and the dashes. */
  readonly label: string;
  /** The block has RFC 1421 header lines (`Proc-Type`, `DEK-Info`, …). */
  readonly hasHeaders: boolean;
  /** The decoded body. */
  readonly der: Uint8Array;
}

/**
 * Every well-formed PEM block of `text`, in order; text between blocks, and a
 * block that does not match the grammar, is skipped (as Go's `pem.Decode` loop
 * and `PemConverter` do). `\r` is ignored.
 * @throws TransitError `invalid_request` when a block's body is not strict base64.
 * @internal
 */
export function pemBlocks(text: string): PemBlock[] {
  const blocks: PemBlock[] = [];
  for (const m of text.replace(/\r/g, '').matchAll(PEM_BLOCK)) {
    const der = tryDecodeBase64((m[3] as string).replace(/\n/g, ''));
    if (der === undefined) throw invalidRequest('malformed PEM block');
    blocks.push({ label: m[1] as string, hasHeaders: m[2] !== undefined, der });
  }
  return blocks;
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
