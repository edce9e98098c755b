/**
 * The socket device's `write_timeout` is read as Vault reads it
 * (`parseutil.ParseDurationSecond`): a plain integer is seconds, `<n>d` days,
 * anything else a Go duration string (`1.5s`, `1m30s`, `250ms`, `1h`), kept
 * to the millisecond (it is a socket write deadline). Bad values (syntax,
 * unknown unit, zero, negative, past what a timer can wait) are a clear
 * `invalid_request` (400 over HTTP), never a crash.
 */
import { describe, expect, it } from 'vitest';
import { durationOption } from '../../adapters/audit/device-options.js';
import { socketAuditDevice } from '../../adapters/audit/index.js';
import type { TransitError } from '../../src/errors.js';

const ms = (v: string) => durationOption({ write_timeout: v }, 'write_timeout', 2000);
const refusal = (v: string) => {
  try {
    ms(v);
  } catch (e) {
    return e as TransitError;
  }
  return undefined;
};

describe('write_timeout', () => {
  it('takes Go durations and plain seconds, to the millisecond', () => {
    const cases: Array<[string, number]> = [
      ['1.5s', 1500],
      ['1m30s', 90_000],
      ['250ms', 250],
      ['400ms', 400],
      ['2s', 2000],
      ['1m', 60_000],
      ['1h', 3_600_000],
      ['0.25s', 250],
      ['.5s', 500],
      ['1.0001s', 1000],
      ['1500000us', 1500],
      ['1500000µs', 1500],
      ['2', 2000],
      ['+3', 3000],
      ['1d', 86_400_000],
      [' 2s ', 2000],
      ['500us', 1], // under a millisecond: the shortest timer
    ];
    for (const [v, want] of cases) expect(ms(v), v).toBe(want);
    expect(durationOption({}, 'write_timeout', 2000)).toBe(2000);
    expect(ms('')).toBe(2000);
  });

  it('refuses bad values with invalid_request and a clear message', () => {
    for (const [v, why] of [
      ['soon', 'time: invalid duration "soon"'],
      ['1.5x', 'time: unknown unit "x" in duration "1.5x"'],
      ['1.5', 'time: missing unit in duration "1.5"'],
      ['-1s', 'cannot provide negative value'],
      ['-2', 'cannot provide negative value'],
      ['0', 'must be positive'],
      ['0s', 'must be positive'],
      ['25d', 'at most'],
      ['1e3s', 'time:'],
    ] as const) {
      const e = refusal(v);
      expect(e?.code, v).toBe('invalid_request');
      expect(e?.message, v).toContain(`options.write_timeout must be a duration`);
      expect(e?.message, v).toContain(JSON.stringify(v));
      expect(e?.message, v).toContain(why);
    }
  });

  it('the socket device is created with 1.5s, and refuses 1.5x', async () => {
    const d = await socketAuditDevice.create({
      path: 's/',
      options: { address: '127.0.0.1:9', write_timeout: '1.5s' },
    });
    await d.close();
    await expect(
      socketAuditDevice.create({
        path: 's/',
        options: { address: '127.0.0.1:9', write_timeout: '1.5x' },
      }),
    ).rejects.toMatchObject({ code: 'invalid_request' });
  });
});
