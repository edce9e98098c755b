/**
 * Storage conformance, core contract: compareAndSet. Registered inside
 * runStorageConformance (`./storage.ts`).
 *
 * @module
 */

import { type AdapterTest, assertions, b, type TestHarness, text } from './harness.js';

/** The `compareAndSet` group of the core storage conformance suite (run by runStorageConformance). @internal */
export function casConformance(h: TestHarness, t: AdapterTest): void {
  const { describe, expect } = h;
  const { expectInvalid } = assertions(expect);
  describe('compareAndSet', () => {
    t('compareAndSet: a value that is not bytes is refused, naming the argument', async (s) => {
      const notBytes = 'not bytes' as unknown as Uint8Array;
      await expectInvalid(() => s.compareAndSet('k', undefined, notBytes), /next/);
      await expectInvalid(() => s.compareAndSet('k', notBytes, b('v')), /expected/);
      expect(await s.get('k')).toBeUndefined();
    });

    t('compareAndSet: absent → value', async (s) => {
      expect(await s.compareAndSet('k', undefined, b('v1'))).toBe(true);
      expect(text(await s.get('k'))).toBe('v1');
      expect(await s.list('')).toEqual(['k']);
    });

    t('compareAndSet: value → value, comparing bytes not identity', async (s) => {
      await s.put('k', b('v1'));
      expect(await s.compareAndSet('k', b('v1'), b('v2'))).toBe(true);
      expect(text(await s.get('k'))).toBe('v2');
    });

    t('compareAndSet: a mismatch returns false and changes nothing', async (s) => {
      await s.put('k', b('v1'));
      expect(await s.compareAndSet('k', b('v0'), b('x'))).toBe(false);
      expect(await s.compareAndSet('k', b('v'), b('x'))).toBe(false); // a prefix of the value
      expect(await s.compareAndSet('k', b('v1+'), b('x'))).toBe(false); // longer
      expect(await s.compareAndSet('k', undefined, b('x'))).toBe(false); // present, expected absent
      expect(await s.compareAndSet('k', undefined, undefined)).toBe(false);
      expect(text(await s.get('k'))).toBe('v1');
      expect(await s.compareAndSet('absent', b('v1'), b('x'))).toBe(false); // absent, expected present
      expect(await s.compareAndSet('absent', new Uint8Array(0), b('x'))).toBe(false);
      expect(await s.get('absent')).toBeUndefined();
      expect(await s.list('')).toEqual(['k']);
    });

    t('compareAndSet with next undefined deletes', async (s) => {
      await s.put('k', b('v1'));
      expect(await s.compareAndSet('k', b('v1'), undefined)).toBe(true);
      expect(await s.get('k')).toBeUndefined();
      expect(await s.list('')).toEqual([]);
      expect(await s.compareAndSet('k', undefined, undefined)).toBe(true); // absent → absent
      expect(await s.list('')).toEqual([]);
    });

    t('compareAndSet keeps no reference to next', async (s) => {
      const next = b('v1');
      const pending = s.compareAndSet('k', undefined, next);
      next.fill(0x7a);
      expect(await pending).toBe(true);
      expect(text(await s.get('k'))).toBe('v1');
    });

    t('50 concurrent compareAndSet from one expected value: exactly one wins', async (s) => {
      for (let round = 0; round < 3; round++) {
        const start = b(`round-${round}`);
        await s.put('k', start);
        const results = await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            s.compareAndSet('k', b(`round-${round}`), b(`w${i}`)),
          ),
        );
        const winners = results.flatMap((ok, i) => (ok ? [i] : []));
        expect(winners).toHaveLength(1);
        expect(text(await s.get('k'))).toBe(`w${winners[0]}`);
      }
    });

    t('20 writers × 25 CAS increments with retry end at exactly 500', async (s) => {
      const writer = async () => {
        for (let n = 0; n < 25; n++) {
          for (;;) {
            const cur = await s.get('counter');
            const value = cur === undefined ? 0 : Number(text(cur));
            if (await s.compareAndSet('counter', cur, b(String(value + 1)))) break;
          }
        }
      };
      await Promise.all(Array.from({ length: 20 }, writer));
      expect(text(await s.get('counter'))).toBe('500');
    });
  });
}
