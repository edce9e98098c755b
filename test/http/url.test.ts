/**
 * The request target's decoding (`adapters/http/url.ts`): segments and query
 * as routing and the ACL see them, and every path that could climb out of
 * the one it names refused.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeUrl } from '../../adapters/http/url.js';

const segs = (url: string) => decodeUrl(url)?.segs;

describe('decodeUrl', () => {
  it('splits origin-form and absolute URLs into decoded segments and a query', () => {
    expect(segs('/v1/transit/encrypt/orders')).toEqual(['v1', 'transit', 'encrypt', 'orders']);
    expect(segs('/v1/transit/keys/')).toEqual(['v1', 'transit', 'keys']);
    expect(segs('/v1/transit/keys/a%20b')).toEqual(['v1', 'transit', 'keys', 'a b']);
    expect(segs('/v1/x/a%2Fb')).toEqual(['v1', 'x', 'a/b']);
    expect(segs('/v1/x#frag')).toEqual(['v1', 'x']);
    expect(segs('http://h:8200/v1/x?list=true')).toEqual(['v1', 'x']);
    expect(segs('/')).toEqual(['']);
    expect(segs('http://h')).toEqual(['']);
    expect(decodeUrl('http://h?list=true')?.query.get('list')).toBe('true');
    const d = decodeUrl('/v1/transit/keys?list=true&after=b');
    expect(d?.query.get('list')).toBe('true');
    expect(d?.query.get('after')).toBe('b');
    expect([...(decodeUrl('/v1/x')?.query ?? [])]).toEqual([]);
  });

  it('refuses dot segments, plain, escaped or hidden in a decoded slash', () => {
    for (const url of [
      '/v1/transit/../sys/seal',
      '/v1/./transit',
      '/v1/transit/%2e%2e/sys',
      '/v1/transit/%2E',
      '/v1/transit/keys/app%2F..%2Fdb',
      '/v1/transit/keys/..%2Fdb',
      '/v1/transit/keys/a%2F.%2Fb',
      // Empty segments, plain or in a decoded slash: a catch-all row would trim them
      // back to a path that an exact deny names.
      '/v1/sys/leases/revoke-prefix/auth/token/create//',
      '/v1/sys/audit/file%2F',
      '/v1/sys/audit/%2Ffile',
      '/v1//transit/keys',
      '//v1/transit/keys',
      '/v1/x/a%2F%2Fb',
      'http://h/v1/%2e%2e/sys',
      'http://h/v1/transit/../sys',
      'HTTPS://h:8200/v1/./x',
    ]) {
      expect(decodeUrl(url), url).toBeUndefined();
    }
  });

  it('refuses malformed escapes and targets that are not a path', () => {
    for (const url of ['/v1/%zz', '/v1/%E0%A4%A', 'v1/x', '*', 'http://[bad/v1']) {
      expect(decodeUrl(url), url).toBeUndefined();
    }
  });

  it('never yields a dot segment, and names the same path in both forms', () => {
    const part = fc.constantFrom(
      'a',
      '.',
      '..',
      '%2e',
      '%2E',
      '%2F',
      '%2f',
      '/',
      'b%20',
      '%',
      '\\',
    );
    fc.assert(
      fc.property(fc.array(part, { maxLength: 12 }), fc.boolean(), (parts, query) => {
        const target = `/${parts.join('')}${query ? '?list=true' : ''}`;
        const out = decodeUrl(target);
        for (const s of out?.segs ?? []) {
          expect(s.split('/').some((p) => p === '.' || p === '..')).toBe(false);
        }
        const absolute = decodeUrl(`http://vault.example:8200${target}`);
        expect(absolute?.segs).toEqual(out?.segs);
        expect(absolute?.query.get('list') ?? null).toEqual(out?.query.get('list') ?? null);
      }),
      { numRuns: 5000 },
    );
  });
});
