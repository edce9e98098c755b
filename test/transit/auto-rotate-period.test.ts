/**
 * A bad `auto_rotate_period` is refused with Vault's framework text (issue
 * #15 item 15; reference §9 and §13): `Field validation failed: error
 * converting input <v> for field "auto_rotate_period": <why>`, where `<why>` is
 * `cannot provide negative value` or Go's `time.ParseDuration` /
 * `strconv.ParseInt` error. A well-formed period under an hour keeps the
 * handler's own text (no prefix), as in Vault.
 */
import { describe, expect, it } from 'vitest';
import { expectError, makeEngine } from './support.js';

const FIELD = (shown: string, why: string) =>
  `Field validation failed: error converting input ${shown} for field "auto_rotate_period": ${why}`;

const CASES: readonly [unknown, string][] = [
  [-1, FIELD('-1', 'cannot provide negative value')],
  [-3600, FIELD('-3600', 'cannot provide negative value')],
  ['-3600', FIELD('-3600', 'cannot provide negative value')],
  ['-1h', FIELD('-1h', 'cannot provide negative value')],
  ['-2d', FIELD('-2d', 'cannot provide negative value')],
  ['abc', FIELD('abc', 'time: invalid duration "abc"')],
  ['h', FIELD('h', 'time: invalid duration "h"')],
  ['--1h', FIELD('--1h', 'time: invalid duration "--1h"')],
  ['PT1H', FIELD('PT1H', 'time: invalid duration "PT1H"')],
  ['1x', FIELD('1x', 'time: unknown unit "x" in duration "1x"')],
  ['1 h', FIELD('1 h', 'time: unknown unit " h" in duration "1 h"')],
  ['1h30', FIELD('1h30', 'time: missing unit in duration "1h30"')],
  ['1d2h', FIELD('1d2h', 'time: unknown unit "d" in duration "1d2h"')],
  ['1.5d', FIELD('1.5d', 'strconv.ParseInt: parsing "1.5": invalid syntax')],
  [true, FIELD('true', 'could not parse duration from input')],
];

describe('auto_rotate_period errors use Vault field-validation text', () => {
  it.each(CASES)('createKey %j', async (input, message) => {
    const { transit } = makeEngine();
    await expectError(
      transit.createKey('k', { auto_rotate_period: input as string }),
      'invalid_request',
      message,
    );
  });

  it.each(CASES)('updateKeyConfig %j', async (input, message) => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    await expectError(
      transit.updateKeyConfig('k', { auto_rotate_period: input as string }),
      'invalid_request',
      message,
    );
  });

  it('a long value is shown shortened', async () => {
    const { transit } = makeEngine();
    const long = `${'9'.repeat(40)}x`;
    const shown = `${long.slice(0, 32)}…`;
    await expectError(
      transit.createKey('k', { auto_rotate_period: long }),
      'invalid_request',
      FIELD(shown, `time: unknown unit "x" in duration "${shown}"`),
    );
  });

  it('a well-formed period under an hour keeps the handler text (no prefix)', async () => {
    const { transit } = makeEngine();
    await expectError(
      transit.createKey('k', { auto_rotate_period: '59m' }),
      'invalid_request',
      'auto rotate period must be 0 to disable or at least an hour',
    );
  });
});

describe('a sub-second negative period truncates to 0, as Vault', () => {
  // Vault's framework (field_data.go) truncates to whole seconds, then checks the sign.
  it.each(['-1ns', '-0.5s', '-999ms'])(
    'createKey accepts %s as 0 (auto-rotation off)',
    async (v) => {
      const { transit } = makeEngine();
      await transit.createKey('k', { auto_rotate_period: v });
      expect((await transit.readKey('k')).auto_rotate_period).toBe(0);
    },
  );
});
