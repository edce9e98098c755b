/**
 * Storage key <-> file name, for `FileStorage` (one file per key, one directory).
 *
 * The encoding is percent-encoding of the key's UTF-8 bytes with a deliberately
 * tiny safe set, `[a-z0-9_-]`; every other byte becomes `%xx` (lowercase hex).
 * Why so strict:
 * - `/`, `\`, `.` and NUL are always escaped, so no key can name a path outside the
 *   directory (`../../etc/passwd` becomes one flat name) nor be `.`/`..`;
 * - names never start with `.`, so dot-names (`.lock`, `.tmp-*`) are reserved for
 *   the adapter and can never collide with a key;
 * - names are all lowercase ASCII: two keys differing only in case (`A`/`a`) or in
 *   Unicode normalization (NFC/NFD) stay two files on case-insensitive or
 *   normalizing file systems (macOS, Windows);
 * - Windows device names (`con`, `nul`, `com1`…) get their first letter escaped.
 *
 * The encoding is injective and canonical: {@link decodeFileName} accepts a name
 * only if re-encoding its result gives the same name, so foreign files in the
 * directory are ignored rather than misread. Keys must be well-formed Unicode
 * (checked by `checkKey`), which is what makes UTF-8 injective.
 *
 * @module
 */
import { invalidRequest } from '../../src/errors.js';
import { checkKey } from '../memory/index.js';

/** The longest file name (in bytes) that common file systems accept. @internal */
export const MAX_FILE_NAME_BYTES = 255;

const utf8 = new TextEncoder();
const HEX = '0123456789abcdef';
const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/;

function isSafeByte(b: number): boolean {
  return (
    (b >= 0x61 && b <= 0x7a) || // a-z
    (b >= 0x30 && b <= 0x39) || // 0-9
    b === 0x5f || // _
    b === 0x2d // -
  );
}

function escapeByte(b: number): string {
  return `%${HEX[b >> 4]}${HEX[b & 15]}`;
}

/** Percent-encode `key` (no validation). @internal */
export function encodeKey(key: string): string {
  let out = '';
  for (const b of utf8.encode(key)) out += isSafeByte(b) ? String.fromCharCode(b) : escapeByte(b);
  if (WINDOWS_DEVICE.test(out)) out = escapeByte(out.charCodeAt(0)) + out.slice(1);
  return out;
}

/**
 * The file name for `key`.
 * @throws `TransitError` `invalid_request` when the key is invalid (see `checkKey`)
 * or its file name would exceed {@link MAX_FILE_NAME_BYTES}.
 * @internal
 */
export function fileNameFor(key: string): string {
  checkKey(key);
  const name = encodeKey(key);
  if (name.length > MAX_FILE_NAME_BYTES) {
    throw invalidRequest(
      `storage key is too long for FileStorage: its file name would be ${name.length} bytes, ` +
        `the limit is ${MAX_FILE_NAME_BYTES} (bytes other than a-z 0-9 _ - take 3 bytes each)`,
    );
  }
  return name;
}

// ignoreBOM: keep a leading U+FEFF (it is part of the key), do not strip it.
const utf8Strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The key stored in the file `name`, or `undefined` when `name` is not a canonical
 * encoding produced by {@link encodeKey} (temp files, `.lock`, foreign files).
 * @internal
 */
export function decodeFileName(name: string): string | undefined {
  if (name.length === 0 || name.length > MAX_FILE_NAME_BYTES || !/^[a-z0-9_%-]+$/.test(name)) {
    return undefined;
  }
  const bytes: number[] = [];
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c !== 0x25) {
      bytes.push(c);
      continue;
    }
    const hex = name.slice(i + 1, i + 3);
    if (!/^[0-9a-f]{2}$/.test(hex)) return undefined;
    bytes.push(Number.parseInt(hex, 16));
    i += 2;
  }
  let key: string;
  try {
    key = utf8Strict.decode(new Uint8Array(bytes));
  } catch {
    return undefined;
  }
  if (key.length === 0 || key.includes('\0') || encodeKey(key) !== name) return undefined;
  return key;
}
