/**
 * Trimming old key versions (spec "Trim key"; reference §15, and Vault's
 * `path_trim.go` message texts).
 */

import { describe, expect, it } from 'vitest';
import { b64, expectError, makeEngine, snapshot, versions } from './support.js';

describe('trimKey', () => {
  it('refuses without min_available_version', async () => {
    const { transit } = makeEngine();
    await versions(transit, 3);
    await expectError(transit.trimKey('k', {}), 'invalid_request', 'missing min_available_version');
  });

  it('refuses while min_encryption_version is 0 (Vault text)', async () => {
    const { transit, storage } = makeEngine();
    await versions(transit, 3);
    await transit.updateKeyConfig('k', { min_decryption_version: 2 });
    const before = await snapshot(storage);
    await expectError(
      transit.trimKey('k', { min_available_version: 2 }),
      'invalid_request',
      'minimum available version cannot be set when minimum encryption version is not set',
    );
    expect(await snapshot(storage)).toEqual(before);
  });

  it('refuses a value above min_encryption_version or min_decryption_version (Vault texts)', async () => {
    const { transit, storage } = makeEngine();
    await versions(transit, 5);
    await transit.updateKeyConfig('k', { min_decryption_version: 3, min_encryption_version: 4 });
    const before = await snapshot(storage);
    await expectError(
      transit.trimKey('k', { min_available_version: 5 }),
      'invalid_request',
      // Vault's text (and OpenBao's) carries the typo "minmum"
      'minimum available version cannot be greater than minmum encryption version',
    );
    await expectError(
      transit.trimKey('k', { min_available_version: 4 }),
      'invalid_request',
      'minimum available version cannot be greater than minimum decryption version',
    );
    expect(await snapshot(storage)).toEqual(before);
  });

  it('refuses 0 and negative values', async () => {
    const { transit } = makeEngine();
    await versions(transit, 3);
    await transit.updateKeyConfig('k', { min_decryption_version: 2, min_encryption_version: 2 });
    await expectError(
      transit.trimKey('k', { min_available_version: 0 }),
      'invalid_request',
      'minimum available version should be positive',
    );
    // Vault checks "decremented" first: a negative value is always below the current one.
    await expectError(
      transit.trimKey('k', { min_available_version: -1 }),
      'invalid_request',
      'minimum available version cannot be decremented',
    );
  });

  it("checks in Vault's order: decremented before the version bounds", async () => {
    const { transit } = makeEngine();
    await versions(transit, 5);
    // Never trimmed, no minimum encryption version: a negative value is still "decremented".
    await expectError(
      transit.trimKey('k', { min_available_version: -2 }),
      'invalid_request',
      'minimum available version cannot be decremented',
    );
    await expectError(
      transit.trimKey('k', { min_available_version: 1 }),
      'invalid_request',
      'minimum available version cannot be set when minimum encryption version is not set',
    );
    await transit.updateKeyConfig('k', { min_decryption_version: 3, min_encryption_version: 3 });
    await transit.trimKey('k', { min_available_version: 3 });
    await transit.updateKeyConfig('k', { min_decryption_version: 4, min_encryption_version: 5 });
    // Below the current minimum and above nothing else: decremented, not "should be positive".
    await expectError(
      transit.trimKey('k', { min_available_version: 0 }),
      'invalid_request',
      'minimum available version cannot be decremented',
    );
  });

  it('is refused for a missing key', async () => {
    const { transit } = makeEngine();
    await expectError(
      transit.trimKey('nope', { min_available_version: 1 }),
      'invalid_request',
      'invalid key name',
    );
  });

  it('removes versions below min_available_version for good', async () => {
    const { transit } = makeEngine();
    const cts = await versions(transit, 5);
    await transit.updateKeyConfig('k', { min_decryption_version: 3, min_encryption_version: 4 });
    const info = await transit.trimKey('k', { min_available_version: 3 });
    expect(info.min_available_version).toBe(3);
    expect(Object.keys(info.keys)).toEqual(['3', '4', '5']);
    expect(info.latest_version).toBe(5);

    // trimmed data is gone, the rest decrypts
    for (const c of cts.slice(0, 2))
      await expectError(transit.decrypt('k', { ciphertext: c }), 'invalid_request');
    for (const [i, c] of cts.entries()) {
      if (i < 2) continue;
      expect((await transit.decrypt('k', { ciphertext: c })).plaintext).toBe(b64(`p${i + 1}`));
    }

    // the floor cannot go back below the trim point (Vault texts; OpenBao keeps the "then" typo)
    await expectError(
      transit.updateKeyConfig('k', { min_decryption_version: 2 }),
      'invalid_request',
      /^min decryption version should not be less th[ae]n min available version$/,
    );
    // (2 < min_decryption_version 3: Vault reports the encryption/decryption rule first)
    await expectError(
      transit.updateKeyConfig('k', { min_encryption_version: 2 }),
      'invalid_request',
      /min encryption version/,
    );
    await expectError(
      transit.updateKeyConfig('k', { min_encryption_version: 0 }),
      'invalid_request',
      'min encryption version should not be less than min available version',
    );
    // so version 1/2 can never be decrypted again
    await expectError(transit.decrypt('k', { ciphertext: cts[0] as string }), 'invalid_request');

    // trim cannot be decremented; the same value again is fine
    await expectError(
      transit.trimKey('k', { min_available_version: 2 }),
      'invalid_request',
      'minimum available version cannot be decremented',
    );
    expect((await transit.trimKey('k', { min_available_version: 3 })).min_available_version).toBe(
      3,
    );

    // the key keeps working: rotate, encrypt, explicit old version refused
    expect((await transit.rotateKey('k')).keys).toEqual(
      expect.objectContaining({ '3': expect.any(Number), '6': expect.any(Number) }),
    );
    expect(Object.keys((await transit.readKey('k')).keys)).toEqual(['3', '4', '5', '6']);
    await expectError(
      transit.encrypt('k', { plaintext: b64('x'), key_version: 2 }),
      'invalid_request',
    );
  });

  it('trims archived versions of a long key and survives a reload', async () => {
    const { transit, storage, clock } = makeEngine();
    const cts = await versions(transit, 30);
    await transit.updateKeyConfig('k', { min_decryption_version: 25, min_encryption_version: 25 });
    const before = Object.keys(await snapshot(storage)).length;
    const info = await transit.trimKey('k', { min_available_version: 25 });
    expect(Object.keys(info.keys)).toEqual(['25', '26', '27', '28', '29', '30']);
    expect(Object.keys(await snapshot(storage)).length).toBeLessThan(before);
    // a fresh engine on the same storage sees the same state
    const fresh = makeEngine({ storage, clock }).transit;
    expect(await fresh.readKey('k')).toEqual(await transit.readKey('k'));
    await expectError(fresh.decrypt('k', { ciphertext: cts[0] as string }), 'invalid_request');
    expect((await fresh.decrypt('k', { ciphertext: cts[24] as string })).plaintext).toBe(
      b64('p25'),
    );
    await fresh.updateKeyConfig('k', { min_encryption_version: 26, min_decryption_version: 26 });
    await expectError(
      fresh.updateKeyConfig('k', { min_decryption_version: 24 }),
      'invalid_request',
      /min decryption version should not be less th[ae]n min available version/,
    );
  });
});
