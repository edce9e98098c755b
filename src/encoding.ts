/**
 * Byte encodings at the API boundary: strict standard base64 (as Go's
 * `base64.StdEncoding`: padding required, `\r`/`\n` skipped), URL-safe base64
 * without padding (JWS), hex and UTF-8.
 *
 * Uses `@scure/base` for base64 and `@noble/hashes`' table-based hex (its
 * `bytesToHex`/`hexToBytes`, smaller and faster than a radix conversion, and
 * already in every bundle), and the platform `Buffer` only as a faster
 * decoder after the input has been validated strictly (the core never imports
 * `node:*`; it only looks for the global).
 *
 * @module
 */
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { base64, base64urlnopad } from '@scure/base';
import { invalidRequest } from './errors.js';

/**
 * Binary input accepted by every method: a standard base64 string, or raw bytes.
 * @public
 */
export type BinaryInput = string | Uint8Array;

const STRICT_B64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const NEWLINES = /[\r\n]/g;
/**
 * A character above Latin-1 (which the native decoder would truncate to its
 * low byte instead of skipping). On a one-byte string V8 answers this without
 * scanning — no Latin-1 character can match — where a UTF-8 length scan cost
 * ≈ 0.15 ms per MiB, an eighth of a 1 MiB decrypt.
 */
const WIDE = /[^\0-\xff]/;

type BufferLike = {
  from(s: string, enc: string): Uint8Array & { buffer: ArrayBufferLike; byteOffset: number };
  from(b: ArrayBufferLike, offset: number, length: number): { toString(enc: string): string };
};
const NodeBuffer: BufferLike | undefined = (globalThis as { Buffer?: BufferLike }).Buffer;

/**
 * Strict standard base64 → bytes; `undefined` when malformed.
 *
 * With `Buffer` (Node) the check is by length instead of a regex (8–14 ms per
 * MiB): the lenient native decoder drops characters outside the alphabet
 * (Latin-1 ones included), so a strict input is exactly one that is Latin-1,
 * has no URL-safe characters, and decodes to
 * `3·len/4 − padding` bytes. A fuzz test pins this against the strict regex,
 * and a test tries every UTF-16 code unit in every position of a quartet.
 * @internal
 */
export function tryDecodeBase64(s: string): Uint8Array | undefined {
  return decodeStrict(s, true);
}

/**
 * {@link tryDecodeBase64} for bytes that live only inside one call: a
 * request's plaintext, ciphertext or input, handed to the backend and then
 * dropped, never returned or kept. On Node these are the decoder's own
 * `Buffer` (a `Uint8Array` subclass over Node's shared pool, as
 * `Buffer.from` gives) instead of a plain `Uint8Array` view made over it: the
 * view costs ≈ 55 ns, about a tenth of what `hmac` adds to the raw call.
 * @internal
 */
export function tryDecodeBase64Scratch(s: string): Uint8Array | undefined {
  return decodeStrict(s, false);
}

function decodeStrict(s: string, plain: boolean): Uint8Array | undefined {
  if (NodeBuffer) {
    // Fast path without looking for newlines first (two fewer scans of the
    // input): a newline is a character the native decoder skips, so an input
    // holding one always fails the length check and takes the second call.
    const fast = decodeWithBuffer(NodeBuffer, s, plain);
    if (fast || (s.indexOf('\n') < 0 && s.indexOf('\r') < 0)) return fast;
    return decodeWithBuffer(NodeBuffer, s.replace(NEWLINES, ''), plain);
  }
  const clean = s.indexOf('\n') >= 0 || s.indexOf('\r') >= 0 ? s.replace(NEWLINES, '') : s;
  if (!STRICT_B64.test(clean)) return undefined;
  try {
    return base64.decode(withoutTrailingBits(clean));
  } catch {
    return undefined;
  }
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const URL_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * An input with the unused bits of its last character cleared: Go's decoders
 * (`StdEncoding`, `RawURLEncoding`; so Vault) and Node's ignore them (`QR==`
 * is `A`), where `@scure/base` refuses them; the same request must decode on
 * every runtime.
 */
function withoutTrailingBits(s: string, alphabet = ALPHABET): string {
  const pad = s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0;
  const at = s.length - pad - 1;
  const rest = (at + 1) % 4; // characters in the last quartet: 2 or 3 leave bits unused
  if (rest < 2) return s;
  const sextet = alphabet.indexOf(s.charAt(at));
  const kept = sextet & (rest === 3 ? 0x3c : 0x30);
  return sextet < 0 || kept === sextet
    ? s
    : s.slice(0, at) + alphabet.charAt(kept) + s.slice(at + 1);
}

function decodeWithBuffer(B: BufferLike, s: string, plain: boolean): Uint8Array | undefined {
  const n = s.length;
  if (n % 4 !== 0 || WIDE.test(s)) return undefined;
  if (s.indexOf('-') >= 0 || s.indexOf('_') >= 0) return undefined;
  // Padding is read off the tail only: an `=` anywhere else gives no sextet
  // (Node's decoder stops there), so the output comes out short.
  const pad = s.charCodeAt(n - 1) !== 61 ? 0 : s.charCodeAt(n - 2) === 61 ? 2 : 1;
  const b = B.from(s, 'base64');
  if (b.length !== (n / 4) * 3 - pad) return undefined;
  return plain ? new Uint8Array(b.buffer, b.byteOffset, b.length) : b;
}

/**
 * Go's message for a bad base64 input: `illegal base64 data at input byte N`,
 * with N the first offending position (the length when only the padding is off).
 * @internal
 */
export function base64ErrorPosition(s: string): number {
  const clean = s.replace(NEWLINES, '');
  const bad = clean.search(/[^A-Za-z0-9+/=]/);
  if (bad >= 0) return bad;
  const pad = clean.indexOf('=');
  if (pad >= 0 && pad < clean.length - 2) return pad;
  return clean.length - (clean.length % 4 === 0 ? 1 : 0);
}

/** Bytes → standard base64 with padding. @internal */
export function encodeBase64(bytes: Uint8Array): string {
  // A Buffer view over the same memory: no copy before encoding.
  return NodeBuffer
    ? NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('base64')
    : base64.encode(bytes);
}

/** Bytes → URL-safe base64 without padding (JWS). @internal */
export function encodeBase64Url(bytes: Uint8Array): string {
  return base64urlnopad.encode(bytes);
}

/** URL-safe base64 without padding → bytes; `undefined` when malformed. @internal */
export function tryDecodeBase64Url(s: string): Uint8Array | undefined {
  try {
    // Go's RawURLEncoding (Vault's JWS) skips CR/LF and ignores unused trailing bits.
    const clean = s.indexOf('\n') >= 0 || s.indexOf('\r') >= 0 ? s.replace(NEWLINES, '') : s;
    return base64urlnopad.decode(withoutTrailingBits(clean, URL_ALPHABET));
  } catch {
    return undefined;
  }
}

/** Bytes → lowercase hex. @internal */
export function encodeHex(bytes: Uint8Array): string {
  return bytesToHex(bytes);
}

/** Hex → bytes; `undefined` when malformed. @internal */
export function tryDecodeHex(s: string): Uint8Array | undefined {
  try {
    return hexToBytes(s);
  } catch {
    return undefined;
  }
}

const te = /* @__PURE__ */ new TextEncoder();
const td = /* @__PURE__ */ new TextDecoder();
/** UTF-8 string → bytes. @internal */
export const utf8 = (s: string): Uint8Array => te.encode(s);
/** Bytes → UTF-8 string. @internal */
export const fromUtf8 = (b: Uint8Array): string => td.decode(b);

/** The one empty result of {@link toBytes} (nothing can change a zero-length array). */
const EMPTY = /* @__PURE__ */ new Uint8Array(0);

/**
 * Coerce a binary API field: a base64 string (strict) or a Uint8Array.
 * `undefined`, `null` and `''` give an empty array. With `scratch`, bytes
 * used only inside the call (see {@link tryDecodeBase64Scratch}).
 * @throws TransitError `invalid_request` naming the field when the value is of the wrong type or not base64.
 * @internal
 */
export function toBytes(value: unknown, field: string, scratch = false): Uint8Array {
  if (value === undefined || value === null || value === '') return EMPTY;
  if (value instanceof Uint8Array) return value;
  if (typeof value !== 'string') {
    throw invalidRequest(`'${field}' must be a base64 string or a Uint8Array`);
  }
  const out = decodeStrict(value, !scratch);
  if (!out) throw invalidRequest(`failed to base64-decode ${field}`);
  return out;
}

/** Concatenate byte arrays. @internal */
export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
