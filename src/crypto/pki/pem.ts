/**
 * PEM armouring (RFC 7468) through `@peculiar/x509`'s `PemConverter`: 64-column
 * base64 lines, `\n` line ends, and a trailing `\n` after the END line, which is
 * what Go's `pem.EncodeToMemory` writes (Vault trims it for some exports; that
 * is the engine's business, §8 of the reference).
 *
 * Labels transit uses: `RSA PRIVATE KEY` (PKCS#1), `EC PRIVATE KEY` (SEC 1),
 * `PRIVATE KEY` (PKCS#8), `PUBLIC KEY` (SPKI).
 *
 * @module
 */
import { PemConverter } from '@peculiar/x509';
import { invalidRequest } from '../../errors.js';
import { bytesOf } from './der.js';

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
  return `${PemConverter.encode(der as Uint8Array<ArrayBuffer>, label)}\n`;
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
  let blocks: ReturnType<typeof PemConverter.decodeWithHeaders>;
  try {
    blocks = PemConverter.decodeWithHeaders(pem);
  } catch {
    throw invalidRequest('malformed PEM block');
  }
  if (blocks.length === 0) throw invalidRequest('no PEM block found');
  const block = blocks[0];
  if (block === undefined || !(labels as readonly string[]).includes(block.type)) {
    throw invalidRequest(`unexpected PEM block type: expected ${labels.join(' or ')}`);
  }
  if (block.headers.length > 0)
    throw invalidRequest('encrypted or annotated PEM blocks are not supported');
  const der = bytesOf(block.rawData);
  if (der.length === 0) throw invalidRequest('empty PEM block');
  return { label: block.type as L, der };
}
