/**
 * Storage conformance, core contract: list with prefixes, ordering and
 * pagination. Registered inside runStorageConformance (storage.ts).
 *
 * @module
 */

import { type AdapterTest, assertions, b, JS_ORDER, putKeys, type TestHarness } from './harness.js';

/** The `list` group of the core storage conformance suite (run by runStorageConformance). @internal */
export function listConformance(h: TestHarness, t: AdapterTest): void {
  const { describe, expect } = h;
  const { expectInvalid } = assertions(expect);
  describe('list', () => {
    const tree = ['a', 'a/', 'a/b', 'a/b/c', 'a/c', 'ab', 'a0', 'b/a'];

    t('list returns the keys under a prefix, without it, sorted and flat', async (s) => {
      await putKeys(s, tree);
      expect(await s.list('a/')).toEqual(['', 'b', 'b/c', 'c']);
      expect(await s.list('a/b')).toEqual(['', '/c']);
      expect(await s.list('a/b/')).toEqual(['c']);
      expect(await s.list('a')).toEqual(['', '/', '/b', '/b/c', '/c', '0', 'b']);
      expect(await s.list('b/')).toEqual(['a']);
    });

    t('list with an empty prefix returns every key', async (s) => {
      await putKeys(s, tree);
      expect(await s.list('')).toEqual(JS_ORDER(tree));
    });

    t('list with a prefix that matches nothing is []', async (s) => {
      expect(await s.list('')).toEqual([]);
      expect(await s.list('x/')).toEqual([]);
      await putKeys(s, tree);
      expect(await s.list('x/')).toEqual([]);
      expect(await s.list('a/b/c/')).toEqual([]);
      expect(await s.list('0')).toEqual([]);
      expect(await s.list('zzz')).toEqual([]);
    });

    t('list orders by UTF-16 code unit (JS string order), not by code point', async (s) => {
      // U+FF21 < U+1F511 by code point, but 0xFF21 > 0xD83D (its high surrogate).
      await putKeys(s, ['\uff21', '🔑', 'z', 'é']);
      expect(await s.list('')).toEqual(['z', 'é', '🔑', '\uff21']);
    });

    t('a key equal to the prefix lists as "" and after "" skips it', async (s) => {
      await putKeys(s, ['p', 'p/', 'p/x']);
      expect(await s.list('p/')).toEqual(['', 'x']);
      expect(await s.list('p/', { limit: 1 })).toEqual(['']);
      expect(await s.list('p/', { after: '', limit: 1 })).toEqual(['x']);
      expect(await s.list('p/', { after: 'x' })).toEqual([]);
    });

    t('limit 0 or absent returns all; limit caps the page', async (s) => {
      await putKeys(s, tree);
      const all = JS_ORDER(tree);
      expect(await s.list('', { limit: 0 })).toEqual(all);
      expect(await s.list('', {})).toEqual(all);
      expect(await s.list('', { limit: 3 })).toEqual(all.slice(0, 3));
      expect(await s.list('', { limit: 1000 })).toEqual(all);
      expect(await s.list('a/', { after: 'b', limit: 0 })).toEqual(['b/c', 'c']);
    });

    t('after is relative to the prefix and need not exist', async (s) => {
      await putKeys(s, tree);
      expect(await s.list('a/', { after: 'b' })).toEqual(['b/c', 'c']);
      expect(await s.list('a/', { after: 'a' })).toEqual(['b', 'b/c', 'c']); // 'a/a' does not exist
      expect(await s.list('a/', { after: 'b/' })).toEqual(['b/c', 'c']);
      expect(await s.list('a/', { after: 'bz', limit: 1 })).toEqual(['c']);
      expect(await s.list('a/', { after: 'c' })).toEqual([]);
      expect(await s.list('a/', { after: '\uffff' })).toEqual([]);
      expect(await s.list('', { after: 'a0' })).toEqual(['ab', 'b/a']);
    });

    t('walks 1,000 keys in pages of 7 and gets exactly the sorted set', async (s) => {
      const keys = new Set<string>();
      for (let i = 0; i < 1000; i++) {
        const n = (i * 7919) % 1000; // a permutation of 0..999: insertion order is not sorted
        const forms = [`${n}/sub`, n.toString(36), `é${n}`, `🔑${n}`, `${n}`.padStart(4, '0')];
        keys.add(`p/${forms[i % 5]}`);
      }
      expect(keys.size).toBe(1000);
      const decoys = ['o/1', 'p', 'p.x', 'p0', 'q', 'P/1'];
      await putKeys(s, [...keys, ...decoys]);

      const want = JS_ORDER([...keys].map((k) => k.slice(2)));
      const got: string[] = [];
      let after: string | undefined;
      let pages = 0;
      for (;;) {
        const page = await s.list('p/', { after, limit: 7 });
        pages++;
        expect(page.length).toBeLessThanOrEqual(7);
        got.push(...page);
        if (page.length < 7) break;
        after = page[page.length - 1];
      }
      expect(got).toEqual(want);
      expect(pages).toBe(Math.floor(1000 / 7) + 1);
      expect(await s.list('p/')).toEqual(want);
    });

    t('list reflects deletes; overwrites do not duplicate', async (s) => {
      await putKeys(s, tree);
      await s.put('a/b', b('again'));
      await s.delete('a/b/c');
      await s.delete('a');
      expect(await s.list('a')).toEqual(['/', '/b', '/c', '0', 'b']);
    });

    t('bad list options are refused with invalid_request', async (s) => {
      await expectInvalid(() => s.list('', { limit: -1 }), /limit/);
      await expectInvalid(() => s.list('', { limit: 1.5 }), /limit/);
      await expectInvalid(() => s.list('', { limit: Number.NaN }), /limit/);
      await expectInvalid(() => s.list('', { after: 3 as unknown as string }), /after/);
      await expectInvalid(() => s.list(undefined as unknown as string), /prefix/);
    });
  });
}
