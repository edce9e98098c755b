/**
 * The strict base64 decoder: the fast Buffer path must accept exactly what
 * the strict regex (Go's StdEncoding) accepts, and decode to the same bytes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeBase64, toBytes, tryDecodeBase64 } from '../src/encoding.js';

const STRICT = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const ALPHABET = [...'AB+/=-_ !.aZ09\t', '\u00e9', '\u0141', '\u20ac', '\ud83d', '\u0100', 'A'];

describe('strict base64', () => {
  it('accepts exactly the strict language (random strings over a hostile alphabet)', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...ALPHABET), { maxLength: 16 }), (chars) => {
        const s = chars.join('');
        const out = tryDecodeBase64(s);
        expect(out !== undefined).toBe(STRICT.test(s));
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
        expect(tryDecodeBase64(s)).toEqual(bytes);
        const wrapped = s.replace(/(.{8})/g, '$1\r\n');
        expect(tryDecodeBase64(wrapped)).toEqual(bytes);
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
        if (tryDecodeBase64(s) !== undefined)
          expect.fail(`accepted U+${u.toString(16)} in ${JSON.stringify(s)}`);
      }
      // Wide and narrow strings take different native paths: one wide unit elsewhere.
      if (tryDecodeBase64(`AQID${c}\u0141ID`) !== undefined)
        expect.fail(`accepted U+${u.toString(16)} (wide)`);
    }
    expect(tryDecodeBase64('AQIDAQID')).toEqual(new Uint8Array([1, 2, 3, 1, 2, 3]));
  });

  it('refuses what lenient decoders accept', () => {
    for (const bad of ['foobar', 'AQI', 'AQ=I', 'A===', '-_-_', 'AQID ', '\u0141QID', 'AQ==AQ==']) {
      expect(tryDecodeBase64(bad), bad).toBeUndefined();
      expect(() => toBytes(bad, 'plaintext')).toThrow(/failed to base64-decode plaintext/);
    }
  });
});
