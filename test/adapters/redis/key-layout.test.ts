/**
 * The Redis key layout, without a server: prefix validation, the hash tag, and
 * the UTF-16BE member encoding whose byte order must be JavaScript's string order
 * (the sorted set is ordered by memcmp).
 */
import { Buffer } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_PREFIX,
  decodeMember,
  encodeMember,
  layoutFor,
  lexRange,
} from '../../../adapters/redis/key-layout.js';
import { isTransitError } from '../../../src/errors.js';

const sign = (n: number): number => (n < 0 ? -1 : n > 0 ? 1 : 0);
const jsCompare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const wellFormed = fc.string({ unit: 'binary' }).filter((s) => !/[\uD800-\uDFFF]/u.test(s));

describe('RedisStorage key layout', () => {
  it('puts every Redis key of a store under the hash tag {prefix}', () => {
    const l = layoutFor('app:');
    const names = [l.index, l.channel, l.value('policy/k'), l.lock('leader'), l.holder('leader')];
    for (const n of names) expect(n.startsWith('{app:}')).toBe(true);
    expect(new Set(names).size).toBe(names.length);
    expect(layoutFor().prefix).toBe(DEFAULT_PREFIX);
    expect(layoutFor().value('k')).toBe('{transitkit:}v:k');
  });

  it('keeps values, the index and locks in separate namespaces', () => {
    const l = layoutFor('p');
    // A storage key can never name the index or a lock: values all start with "v:".
    for (const key of ['index', 'lock:leader', 'holder:leader', 'changes']) {
      expect(l.value(key)).not.toBe(l.index);
      expect(l.value(key)).not.toBe(l.lock('leader'));
      expect(l.value(key)).not.toBe(l.holder('leader'));
      expect(l.value(key).startsWith('{p}v:')).toBe(true);
    }
  });

  it('refuses prefixes that would break the hash tag or alias keys', () => {
    for (const bad of ['', '{x}', 'a}b', 'a{b', 'a\0b', 'a\ud800', 'x'.repeat(257), 7]) {
      let err: unknown;
      try {
        layoutFor(bad);
      } catch (e) {
        err = e;
      }
      expect(isTransitError(err, 'invalid_request'), String(bad)).toBe(true);
    }
  });

  it('member bytes sort exactly as JavaScript strings (UTF-16 code units)', () => {
    fc.assert(
      fc.property(wellFormed, wellFormed, (a, b) => {
        expect(sign(Buffer.compare(encodeMember(a), encodeMember(b)))).toBe(jsCompare(a, b));
        expect(decodeMember(encodeMember(a))).toBe(a);
      }),
      { numRuns: 2_000 },
    );
    // The case UTF-8 gets wrong: U+FF21 sorts after U+1F511 in UTF-16.
    expect(Buffer.compare(encodeMember('🔑'), encodeMember('\uff21'))).toBe(-1);
  });

  it('lexRange bounds select exactly the keys under a prefix, after `after`', () => {
    const inRange = (member: Buffer, [min, max]: [Buffer, Buffer]): boolean => {
      const lo = min.toString('latin1');
      const hi = max.toString('latin1');
      const aboveMin =
        lo === '-' ||
        (lo[0] === '['
          ? Buffer.compare(member, min.subarray(1)) >= 0
          : Buffer.compare(member, min.subarray(1)) > 0);
      const belowMax = hi === '+' || Buffer.compare(member, max.subarray(1)) < 0;
      return aboveMin && belowMax;
    };
    fc.assert(
      fc.property(
        wellFormed,
        wellFormed,
        fc.option(wellFormed, { nil: undefined }),
        (key, prefix, after) => {
          const want = key.startsWith(prefix) && (after === undefined || key > prefix + after);
          expect(inRange(encodeMember(key), lexRange(prefix, after))).toBe(want);
        },
      ),
      { numRuns: 2_000 },
    );
    for (const prefix of ['\uffff', '\uffff\uffff', 'a\uffff']) {
      expect(inRange(encodeMember(`${prefix}\uffff`), lexRange(prefix, undefined))).toBe(true);
      expect(inRange(encodeMember(`${prefix}x`), lexRange(prefix, undefined))).toBe(true);
    }
  });
});
