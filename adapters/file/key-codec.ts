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
 * Long keys: when the encoding would pass {@link MAX_FILE_NAME_BYTES}, the
 * file is named `@sha256-<hex of SHA-256(UTF-8 key)>` (72 bytes) and holds the
 * key itself before the value ({@link wrapEntry}), so the index can be rebuilt
 * at open and a read checks that the file is the key's. `@` is outside the
 * encoding's alphabet, so the two kinds of names never meet; keys whose
 * encoding fits keep their name, so stores written before open unchanged.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import { internal } from '../../src/errors.js';
import { checkKey } from '../../src/storage/kit.js';

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

/** Prefix of hashed file names (long keys). @internal */
export const HASHED_PREFIX = '@sha256-';
const HASHED_NAME = /^@sha256-[0-9a-f]{64}$/;

/**
 * The file name for `key`: its encoding, or a hashed name when that would pass
 * {@link MAX_FILE_NAME_BYTES} (see the module header).
 * @throws `TransitError` `invalid_request` when the key is invalid (see `checkKey`).
 * @internal
 */
export function fileNameFor(key: string): string {
  checkKey(key);
  const name = encodeKey(key);
  if (name.length <= MAX_FILE_NAME_BYTES) return name;
  return HASHED_PREFIX + createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Whether `name` is a hashed file name (its file holds the key). @internal */
export const isHashedName = (name: string): boolean => HASHED_NAME.test(name);

/** Magic of a hashed file: "TKH1", then the key's UTF-8 length (u32 BE), key, value. */
const MAGIC = [0x54, 0x4b, 0x48, 0x31];
/** Bytes before the key in a hashed file. @internal */
export const ENTRY_HEADER_BYTES = 8;

/** The content of a hashed file: header, key, value. @internal */
export function wrapEntry(key: string, value: Uint8Array): Uint8Array {
  const k = utf8.encode(key);
  const out = new Uint8Array(ENTRY_HEADER_BYTES + k.length + value.length);
  out.set(MAGIC, 0);
  new DataView(out.buffer).setUint32(4, k.length);
  out.set(k, ENTRY_HEADER_BYTES);
  out.set(value, ENTRY_HEADER_BYTES + k.length);
  return out;
}

/**
 * The length of the key in a hashed file from its first
 * {@link ENTRY_HEADER_BYTES} bytes, or `undefined` when they are not a header.
 * @internal
 */
export function entryKeyLength(head: Uint8Array): number | undefined {
  if (head.length < ENTRY_HEADER_BYTES || MAGIC.some((b, i) => head[i] !== b)) return undefined;
  return new DataView(head.buffer, head.byteOffset, head.byteLength).getUint32(4);
}

/**
 * The value in the hashed file `content` of `key` (a copy).
 * @throws `TransitError` `internal` when the file is not `key`'s (damaged, or
 * moved from another name).
 * @internal
 */
export function unwrapEntry(key: string, content: Uint8Array): Uint8Array {
  const length = entryKeyLength(content);
  const end = ENTRY_HEADER_BYTES + (length ?? 0);
  if (length === undefined || end > content.length) {
    throw internal('FileStorage: a long-key file has no valid header (damaged)');
  }
  let stored: string;
  try {
    stored = utf8Strict.decode(content.subarray(ENTRY_HEADER_BYTES, end));
  } catch {
    stored = '';
  }
  if (stored !== key) {
    throw internal('FileStorage: a long-key file holds another key (damaged or moved)');
  }
  return content.slice(end);
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
