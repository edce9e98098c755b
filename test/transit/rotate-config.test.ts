/**
 * Key configuration and rotation (spec "Update key configuration",
 * "Rotate key", Errors 8; reference §13, §15, and Vault's `path_config.go`
 * message texts). Trimming is in trim.test.ts.
 */

import { warningsOf } from 'transitkit';
import { describe, expect, it } from 'vitest';
import { FAKE_CLOCK_START } from '../helpers/fake-clock.js';
import { b64, expectError, makeEngine, snapshot, versions } from './support.js';

const START_S = Math.floor(FAKE_CLOCK_START / 1000);
const TOO_OLD = 'ciphertext or signature version is disallowed by policy (too old)';

describe('rotateKey', () => {
  it('adds a version; encrypt uses it; old ciphertexts still decrypt', async () => {
    const { transit, clock } = makeEngine();
    await transit.createKey('k');
    const c1 = (await transit.encrypt('k', { plaintext: b64('one') })).ciphertext;
    clock.advance(61_000);
    const info = await transit.rotateKey('k');
    expect(info.latest_version).toBe(2);
    expect(info.keys).toEqual({ '1': START_S, '2': START_S + 61 });
    expect(warningsOf(info)).toEqual([]);
    const c2 = await transit.encrypt('k', { plaintext: b64('two') });
    expect(c2.key_version).toBe(2);
    expect(c2.ciphertext.startsWith('vault:v2:')).toBe(true);
    expect((await transit.decrypt('k', { ciphertext: c1 })).plaintext).toBe(b64('one'));
    expect((await transit.decrypt('k', { ciphertext: c2.ciphertext })).plaintext).toBe(b64('two'));
  });

  it('each version has its own key material', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k', { derived: true, convergent_encryption: true });
    await transit.rotateKey('k');
    const ctx = b64('ctx');
    const a = await transit.encrypt('k', { plaintext: b64('same'), context: ctx, key_version: 1 });
    const b = await transit.encrypt('k', { plaintext: b64('same'), context: ctx, key_version: 2 });
    expect(a.ciphertext.slice(9)).not.toBe(b.ciphertext.slice(9));
  });

  it('is refused for a missing key', async () => {
    const { transit, storage } = makeEngine();
    await expectError(transit.rotateKey('nope'), 'invalid_request', 'key not found');
    expect(await snapshot(storage)).toEqual({});
  });

  it('keeps working past the in-document window (40 versions), every version decrypts', async () => {
    const { transit } = makeEngine();
    const cts = await versions(transit, 40);
    const info = await transit.readKey('k');
    expect(info.latest_version).toBe(40);
    expect(Object.keys(info.keys)).toHaveLength(40);
    for (const [i, ciphertext] of cts.entries()) {
      expect((await transit.decrypt('k', { ciphertext })).plaintext).toBe(b64(`p${i + 1}`));
    }
  });
});

describe('updateKeyConfig', () => {
  it("fails for a missing key with Vault's text", async () => {
    const { transit, storage } = makeEngine();
    await expectError(
      transit.updateKeyConfig('nope', { deletion_allowed: true }),
      'invalid_request',
      'no existing key named nope could be found',
    );
    expect(await snapshot(storage)).toEqual({});
  });

  it('an empty config returns the read body unchanged', async () => {
    const { transit } = makeEngine();
    const created = await transit.createKey('k');
    expect(await transit.updateKeyConfig('k', {})).toEqual(created);
  });

  describe('min_decryption_version', () => {
    it('refuses older ciphertexts, hides older versions from keys, and is reversible', async () => {
      const { transit } = makeEngine();
      const [c1, c2, c3] = (await versions(transit, 3)) as [string, string, string];
      const info = await transit.updateKeyConfig('k', { min_decryption_version: 2 });
      expect(info.min_decryption_version).toBe(2);
      expect(Object.keys(info.keys)).toEqual(['2', '3']);
      await expectError(transit.decrypt('k', { ciphertext: c1 }), 'invalid_request', TOO_OLD);
      await expectError(transit.rewrap('k', { ciphertext: c1 }), 'invalid_request', TOO_OLD);
      expect((await transit.decrypt('k', { ciphertext: c2 })).plaintext).toBe(b64('p2'));
      expect((await transit.decrypt('k', { ciphertext: c3 })).plaintext).toBe(b64('p3'));
      // batch: the old item fails, the others decrypt
      const batch = await transit.decrypt('k', {
        batch_input: [{ ciphertext: c1 }, { ciphertext: c3 }],
      });
      expect(batch.batch_results).toEqual([
        { plaintext: '', error: TOO_OLD, reference: '' },
        { plaintext: b64('p3'), reference: '' },
      ]);

      const back = await transit.updateKeyConfig('k', { min_decryption_version: 1 });
      expect(Object.keys(back.keys)).toEqual(['1', '2', '3']);
      expect((await transit.decrypt('k', { ciphertext: c1 })).plaintext).toBe(b64('p1'));
    });

    it("0 is forced to 1 with Vault's warning", async () => {
      const { transit } = makeEngine();
      await versions(transit, 2);
      await transit.updateKeyConfig('k', { min_decryption_version: 2 });
      const info = await transit.updateKeyConfig('k', { min_decryption_version: 0 });
      expect(info.min_decryption_version).toBe(1);
      expect(warningsOf(info)).toEqual([
        'since Vault 0.3, transit key numbering starts at 1; forcing minimum to 1',
      ]);
    });

    it('refuses a value above the latest version', async () => {
      const { transit, storage } = makeEngine();
      await versions(transit, 3);
      const before = await snapshot(storage);
      await expectError(
        transit.updateKeyConfig('k', { min_decryption_version: 4 }),
        'invalid_request',
        'cannot set min decryption version of 4, latest key version is 3',
      );
      expect(await snapshot(storage)).toEqual(before);
    });

    it('refuses a negative value', async () => {
      const { transit } = makeEngine();
      await versions(transit, 1);
      await expectError(
        transit.updateKeyConfig('k', { min_decryption_version: -1 }),
        'invalid_request',
        'min decryption version cannot be negative',
      );
    });
  });

  describe('min_encryption_version', () => {
    it('limits encrypt/HMAC key_version; 0 means latest', async () => {
      const { transit } = makeEngine();
      await versions(transit, 3);
      const info = await transit.updateKeyConfig('k', { min_encryption_version: 2 });
      expect(info.min_encryption_version).toBe(2);
      await expectError(
        transit.encrypt('k', { plaintext: b64('x'), key_version: 1 }),
        'invalid_request',
        'requested version for encryption is less than the minimum encryption key version',
      );
      await expectError(
        transit.hmac('k', { input: b64('x'), key_version: 1 }),
        'invalid_request',
        'cannot generate HMAC: version is too old (disallowed by policy)',
      );
      expect(
        (await transit.encrypt('k', { plaintext: b64('x'), key_version: 2 })).key_version,
      ).toBe(2);
      expect((await transit.encrypt('k', { plaintext: b64('x') })).key_version).toBe(3);
      expect((await transit.hmac('k', { input: b64('x'), key_version: 2 })).hmac).toMatch(
        /^vault:v2:/,
      );
      // decrypt of version 1 data is governed by min_decryption_version, not this
      expect((await transit.readKey('k')).min_decryption_version).toBe(1);
    });

    it('refuses a value above the latest version', async () => {
      const { transit } = makeEngine();
      await versions(transit, 3);
      await expectError(
        transit.updateKeyConfig('k', { min_encryption_version: 5 }),
        'invalid_request',
        'cannot set min encryption version of 5, latest key version is 3',
      );
    });

    it('refuses a negative value', async () => {
      const { transit } = makeEngine();
      await versions(transit, 1);
      await expectError(
        transit.updateKeyConfig('k', { min_encryption_version: -1 }),
        'invalid_request',
        'min encryption version cannot be negative',
      );
    });

    it('must be >= min_decryption_version unless 0 (Vault text)', async () => {
      const { transit, storage } = makeEngine();
      await versions(transit, 3);
      await transit.updateKeyConfig('k', { min_decryption_version: 3 });
      const before = await snapshot(storage);
      await expectError(
        transit.updateKeyConfig('k', { min_encryption_version: 2 }),
        'invalid_request',
        'cannot set min encryption/decryption values; min encryption version of 2 must be greater than or equal to min decryption version of 3',
      );
      expect(await snapshot(storage)).toEqual(before);
      // both in one request, checked on the final picture
      await expectError(
        transit.updateKeyConfig('k', { min_decryption_version: 2, min_encryption_version: 1 }),
        'invalid_request',
        /min encryption version of 1 must be greater than or equal to min decryption version of 2/,
      );
      expect(
        (await transit.updateKeyConfig('k', { min_encryption_version: 0 })).min_encryption_version,
      ).toBe(0);
      expect(
        (await transit.updateKeyConfig('k', { min_encryption_version: 3 })).min_encryption_version,
      ).toBe(3);
    });
  });

  it('a refused config changes nothing (all or nothing)', async () => {
    const { transit, storage } = makeEngine();
    await versions(transit, 2);
    const before = await snapshot(storage);
    await expectError(
      transit.updateKeyConfig('k', {
        deletion_allowed: true,
        exportable: true,
        min_decryption_version: 9,
      }),
      'invalid_request',
    );
    await expectError(
      transit.updateKeyConfig('k', { deletion_allowed: true, auto_rotate_period: '10m' }),
      'invalid_request',
    );
    expect(await snapshot(storage)).toEqual(before);
    expect(await transit.readKey('k')).toMatchObject({
      deletion_allowed: false,
      exportable: false,
      auto_rotate_period: 0,
    });
  });

  describe('one-way flags', () => {
    it.each(['exportable', 'allow_plaintext_backup'] as const)(
      '%s can be turned on but never off (reference §15: config only ever turns it on)',
      async (flag) => {
        const { transit } = makeEngine();
        await transit.createKey('k');
        expect((await transit.updateKeyConfig('k', { [flag]: false }))[flag]).toBe(false);
        expect((await transit.updateKeyConfig('k', { [flag]: true }))[flag]).toBe(true);
        // Vault ignores a later false (no error) and the flag stays set
        const info = await transit.updateKeyConfig('k', { [flag]: false, deletion_allowed: true });
        expect(info[flag]).toBe(true);
        expect(info.deletion_allowed).toBe(true);
        expect((await transit.readKey('k'))[flag]).toBe(true);
      },
    );

    it.each(['exportable', 'allow_plaintext_backup'] as const)(
      '%s set at creation stays set',
      async (flag) => {
        const { transit } = makeEngine();
        await transit.createKey('k', { [flag]: true });
        const after = await transit.updateKeyConfig('k', { [flag]: false }).catch(() => undefined);
        if (after) expect(after[flag]).toBe(true);
        expect((await transit.readKey('k'))[flag]).toBe(true);
      },
    );
  });

  describe('auto_rotate_period', () => {
    it.each([
      [3600, 3600],
      ['3600', 3600],
      ['1h', 3600],
      ['90m', 5400],
      ['2d', 172_800],
      ['1h30m', 5400],
      ['7200s', 7200],
      ['1.5h', 5400],
      ['30d', 2_592_000],
    ] as const)('%j → %i seconds', async (input, seconds) => {
      const { transit } = makeEngine();
      await transit.createKey('k');
      expect(
        (await transit.updateKeyConfig('k', { auto_rotate_period: input })).auto_rotate_period,
      ).toBe(seconds);
      expect((await transit.readKey('k')).auto_rotate_period).toBe(seconds);
    });

    it('omitted leaves it unchanged; 0 disables', async () => {
      const { transit } = makeEngine();
      await transit.createKey('k', { auto_rotate_period: '1h' });
      expect(
        (await transit.updateKeyConfig('k', { deletion_allowed: true })).auto_rotate_period,
      ).toBe(3600);
      expect(
        (await transit.updateKeyConfig('k', { auto_rotate_period: 0 })).auto_rotate_period,
      ).toBe(0);
      await transit.updateKeyConfig('k', { auto_rotate_period: '2h' });
      expect(
        (await transit.updateKeyConfig('k', { auto_rotate_period: '0' })).auto_rotate_period,
      ).toBe(0);
    });

    it.each(['59m', 3599, '3599', '59m59s', 60] as const)(
      'refuses %j (under an hour)',
      async (input) => {
        const { transit } = makeEngine();
        await transit.createKey('k', { auto_rotate_period: '2h' });
        await expectError(
          transit.updateKeyConfig('k', { auto_rotate_period: input }),
          'invalid_request',
          'auto rotate period must be 0 to disable or at least an hour',
        );
        expect((await transit.readKey('k')).auto_rotate_period).toBe(7200);
      },
    );

    it.each([-1, -3600, '-1h', '-7200'] as const)('refuses negative %j', async (input) => {
      const { transit } = makeEngine();
      await transit.createKey('k');
      await expectError(
        transit.updateKeyConfig('k', { auto_rotate_period: input }),
        'invalid_request',
      );
      expect((await transit.readKey('k')).auto_rotate_period).toBe(0);
    });
  });
});
