/**
 * The version of `<prefix>:v<N>:…` is read as Vault reads it, with Go's
 * `strconv.Atoi`: an optional sign, any number of leading zeros, and any
 * value that fits an int64; only text Atoi refuses (empty, a lone sign,
 * non-digits, a value past int64) is "version number could not be decoded".
 * The policy checks that follow then answer as Vault's: `v-1` is too old
 * ("ciphertext or signature version is disallowed by policy (too old)", or
 * HMAC's own text), `v+1` and `v01` are version 1, a huge in-range version is
 * too new, `v-0` is `v0` (read as v1 by decrypt).
 */
import { describe, expect, it } from 'vitest';
import type { TransitError } from '../../src/errors.js';
import { parseVersioned } from '../../src/keys/ciphertext.js';
import { makeEngine } from '../transit/support.js';

const TOO_OLD = 'ciphertext or signature version is disallowed by policy (too old)';
const undecodable = (what: string) => `invalid ${what}: version number could not be decoded`;

const outcome = (value: string, what = 'ciphertext') => {
  try {
    return parseVersioned(value, 'vault', what).version;
  } catch (e) {
    return (e as TransitError).message;
  }
};

describe('parseVersioned reads the version as strconv.Atoi', () => {
  it('takes a sign, leading zeros and any int64', () => {
    const cases: Array<[string, number]> = [
      ['1', 1],
      ['-1', -1],
      ['+1', 1],
      ['01', 1],
      ['-0', 0],
      ['+0', 0],
      ['007', 7],
      [`${'0'.repeat(30)}42`, 42],
      ['999999999999999', 999_999_999_999_999],
      ['-999999999999999', -999_999_999_999_999],
      // int64's bounds, as the nearest double (only compared with key versions)
      ['9223372036854775807', 2 ** 63],
      ['-9223372036854775808', -(2 ** 63)],
      [`+${'0'.repeat(5)}9223372036854775807`, 2 ** 63],
    ];
    for (const [digits, want] of cases) {
      const got = outcome(`vault:v${digits}:AAAA`);
      expect(got, digits).toBe(want);
      expect(Object.is(got, -0), digits).toBe(false);
    }
    expect(parseVersioned('vault:v-1:AAAA', 'vault', 'ciphertext')).toEqual({
      version: -1,
      body: 'AAAA',
    });
  });

  it('refuses what Atoi refuses, with "could not be decoded"', () => {
    for (const digits of [
      '',
      '-',
      '+',
      '--1',
      '+-1',
      '-+1',
      ' 1',
      '1 ',
      '1.0',
      '1e3',
      '0x1',
      '1_000',
      '١',
      '9223372036854775808',
      '-9223372036854775809',
      '99999999999999999999999',
      `-${'9'.repeat(30)}`,
    ]) {
      for (const what of ['ciphertext', 'signature', 'HMAC']) {
        expect(outcome(`vault:v${digits}:AAAA`, what), `${what} ${digits}`).toBe(undecodable(what));
      }
    }
  });
});

describe('the policy checks after the parse', () => {
  it('decrypt and rewrap: v-1 is too old, v+1 and v01 are v1, a huge version is too new', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    const { ciphertext } = await transit.encrypt('k', { plaintext: 'aGk=' });
    const body = ciphertext.slice('vault:v1:'.length);
    for (const v of ['-1', `-${'0'.repeat(20)}1`, '-9223372036854775808']) {
      for (const op of [transit.decrypt.bind(transit), transit.rewrap.bind(transit)]) {
        await expect(op('k', { ciphertext: `vault:v${v}:${body}` }), v).rejects.toMatchObject({
          code: 'invalid_request',
          message: TOO_OLD,
        });
      }
    }
    for (const v of ['+1', '01', '-0', '+0', `${'0'.repeat(20)}1`]) {
      expect(await transit.decrypt('k', { ciphertext: `vault:v${v}:${body}` }), v).toEqual({
        plaintext: 'aGk=',
      });
    }
    await expect(
      transit.decrypt('k', { ciphertext: `vault:v9223372036854775807:${body}` }),
    ).rejects.toThrow('invalid ciphertext: version is too new');
    await expect(
      transit.decrypt('k', { ciphertext: `vault:v9223372036854775808:${body}` }),
    ).rejects.toThrow(undecodable('ciphertext'));
    // In a batch, per item.
    const batch = await transit.decrypt('k', {
      batch_input: [{ ciphertext: `vault:v-1:${body}` }, { ciphertext: `vault:v+1:${body}` }],
    });
    expect(batch.batch_results.map((r) => r.error ?? r.plaintext)).toEqual([TOO_OLD, 'aGk=']);
  });

  it('signatures and HMACs: v-1 is too old, v+1 is v1', async () => {
    const { transit } = makeEngine();
    await transit.createKey('s', { type: 'ed25519' });
    const { signature } = await transit.sign('s', { input: 'aGk=' });
    const sig = signature.slice('vault:v1:'.length);
    await expect(
      transit.verify('s', { input: 'aGk=', signature: `vault:v-1:${sig}` }),
    ).rejects.toMatchObject({ code: 'invalid_request', message: TOO_OLD });
    expect(await transit.verify('s', { input: 'aGk=', signature: `vault:v+1:${sig}` })).toEqual({
      valid: true,
    });

    await transit.createKey('h');
    const { hmac } = await transit.hmac('h', { input: 'aGk=' });
    const mac = hmac.slice('vault:v1:'.length);
    await expect(
      transit.verify('h', { input: 'aGk=', hmac: `vault:v-1:${mac}` }),
    ).rejects.toMatchObject({
      code: 'invalid_request',
      message: 'cannot verify HMAC: version is too old (disallowed by policy)',
    });
    expect(await transit.verify('h', { input: 'aGk=', hmac: `vault:v01:${mac}` })).toEqual({
      valid: true,
    });
  });
});
