/**
 * The strict base64 decoder: the fast Buffer path must accept exactly what
 * the strict regex (Go's StdEncoding) accepts, and decode to the same bytes;
 * the scratch form (a call's own input, left a Buffer) exactly as the plain one.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeBase64, toBytes, tryDecodeBase64, tryDecodeBase64Scratch } from '../src/encoding.js';

/** Both decoders on `s`: the plain result, after checking the scratch one agrees with it. */
function decodeBoth(s: string): Uint8Array | undefined {
  const plain = tryDecodeBase64(s);
  const scratch = tryDecodeBase64Scratch(s);
  if ((plain === undefined) !== (scratch === undefined)) {
    expect.fail(`the decoders disagree on ${JSON.stringify(s)}`);
  }
  if (plain && scratch) expect(new Uint8Array(scratch)).toEqual(plain);
  return plain;
}

const STRICT = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const ALPHABET = [...'AB+/=-_ !.aZ09\t', '\u00e9', '\u0141', '\u20ac', '\ud83d', '\u0100', 'A'];

describe('strict base64', () => {
  it('accepts exactly the strict language (random strings over a hostile alphabet)', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...ALPHABET), { maxLength: 16 }), (chars) => {
        const s = chars.join('');
        const out = decodeBoth(s);
        expect(out !== undefined).toBe(STRICT.test(s));
        // The plain form is a plain Uint8Array (a Buffer would not toEqual one).
        if (out) expect(Object.getPrototypeOf(out)).toBe(Uint8Array.prototype);
        // Go (non-Strict mode) accepts non-zero trailing bits, as Buffer does; scure would not.
        if (out) expect(out).toEqual(new Uint8Array(Buffer.from(s, 'base64')));
      }),
      { numRuns: 20_000 },
    );
  });

  it('round-trips random bytes and skips CR/LF as Go does', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        const s = encodeBase64(bytes);
        expect(decodeBoth(s)).toEqual(bytes);
        const wrapped = s.replace(/(.{8})/g, '$1\r\n');
        expect(decodeBoth(wrapped)).toEqual(bytes);
        expect(new Uint8Array(toBytes(s, 'plaintext', true))).toEqual(bytes);
      }),
    );
  });

  it('refuses every UTF-16 code unit outside the alphabet, in every position of a quartet', () => {
    // The fast path leans on the native decoder skipping what is not base64
    // (Latin-1 included) and on a check for anything wider; a decoder that
    // mapped one code unit onto a letter would let it through here.
    const ok = new Set([...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/']);
    const skipped = new Set(['\r', '\n']);
    for (let u = 0; u <= 0xffff; u++) {
      const c = String.fromCharCode(u);
      if (ok.has(c) || skipped.has(c)) continue;
      const padded = c === '=' ? [] : [`AQIDAQ${c}=`]; // ("AQIDAQ==" is strict)
      for (const s of [`${c}QIDAQID`, `A${c}IDAQID`, `AQ${c}DAQID`, `AQI${c}AQID`, ...padded]) {
        if (tryDecodeBase64(s) !== undefined || tryDecodeBase64Scratch(s) !== undefined)
          expect.fail(`accepted U+${u.toString(16)} in ${JSON.stringify(s)}`);
      }
      // Wide and narrow strings take different native paths: one wide unit elsewhere.
      const wide = `AQID${c}\u0141ID`;
      if (tryDecodeBase64(wide) !== undefined || tryDecodeBase64Scratch(wide) !== undefined)
        expect.fail(`accepted U+${u.toString(16)} (wide)`);
    }
    expect(tryDecodeBase64('AQIDAQID')).toEqual(new Uint8Array([1, 2, 3, 1, 2, 3]));
  });

  it('refuses what lenient decoders accept', () => {
    for (const bad of ['foobar', 'AQI', 'AQ=I', 'A===', '-_-_', 'AQID ', '\u0141QID', 'AQ==AQ==']) {
      expect(decodeBoth(bad), bad).toBeUndefined();
      expect(() => toBytes(bad, 'plaintext')).toThrow(/failed to base64-decode plaintext/);
      expect(() => toBytes(bad, 'plaintext', true)).toThrow(/failed to base64-decode plaintext/);
    }
  });
});
