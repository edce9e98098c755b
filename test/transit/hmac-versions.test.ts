/**
 * HMAC key versions (spec "HMAC", "Verify"; reference §9; README: `vault:v`
 * prefix always): each version has its own secret (not the encryption key,
 * never empty: a version without one is refused), key_version and the
 * min_encryption/min_decryption versions, the `vault:v` prefix whatever the
 * ciphertext prefix, and verify's refusals of a version too new, no prefix or
 * bad base64.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { b64, bytesB64, expectError, makeEngine } from './support.js';

const INPUT = b64('the quick brown fox');

describe('hmac versions', () => {
  it("a version without an HMAC secret (an old Vault backup's) is refused, never used empty", async () => {
    const { transit: source } = makeEngine();
    await source.createKey('k', { exportable: true, allow_plaintext_backup: true });
    await source.rotateKey('k');
    const blob = JSON.parse(Buffer.from((await source.backupKey('k')).backup, 'base64').toString());
    // Vault's upgrade back-fills only the latest version's hmac_key.
    blob.policy.keys['1'].hmac_key = null;
    const { transit } = makeEngine();
    await transit.restoreKey({ backup: Buffer.from(JSON.stringify(blob)).toString('base64') });
    const input = b64('pay alice');
    const forged = `vault:v1:${createHmac('sha256', Buffer.alloc(0)).update('pay alice').digest('base64')}`;
    const refused = 'no HMAC key exists for that key version';
    await expectError(transit.hmac('k', { input, key_version: 1 }), 'invalid_request', refused);
    await expectError(transit.verify('k', { input, hmac: forged }), 'invalid_request', refused);
    const batch = await transit.verify('k', { batch_input: [{ input, hmac: forged }] });
    expect(JSON.stringify(batch)).not.toContain('"valid":true');
    // The latest version has its secret and works.
    const v2 = await transit.hmac('k', { input });
    expect(await transit.verify('k', { input, hmac: v2.hmac })).toEqual({ valid: true });
  });

  it('each version has its own secret; old HMACs still verify', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    const v1 = (await transit.hmac('k', { input: INPUT })).hmac;
    const r2 = await transit.rotateKey('k');
    expect(r2.latest_version).toBe(2);
    const v2 = await transit.hmac('k', { input: INPUT });
    expect(v2.key_version).toBe(2);
    expect(v2.hmac.startsWith('vault:v2:')).toBe(true);
    expect(v2.hmac.slice(9)).not.toBe(v1.slice(9));
    expect((await transit.hmac('k', { input: INPUT, key_version: 1 })).hmac).toBe(v1);
    expect(await transit.verify('k', { input: INPUT, hmac: v1 })).toEqual({ valid: true });
    expect(await transit.verify('k', { input: INPUT, hmac: v2.hmac })).toEqual({ valid: true });
    // a v1 value relabelled as v2 does not verify
    expect(
      await transit.verify('k', { input: INPUT, hmac: v1.replace('vault:v1:', 'vault:v2:') }),
    ).toEqual({ valid: false });
  });

  it('the secret is not the encryption key: aes keys of two names differ', async () => {
    const { transit } = makeEngine();
    await transit.createKey('a');
    await transit.createKey('b');
    const a = (await transit.hmac('a', { input: INPUT })).hmac;
    const b = (await transit.hmac('b', { input: INPUT })).hmac;
    expect(a).not.toBe(b);
    expect(await transit.verify('b', { input: INPUT, hmac: a })).toEqual({ valid: false });
  });

  it('uses the vault:v prefix whatever the ciphertext prefix', async () => {
    const { transit } = makeEngine({ extra: { prefix: 'acme' } });
    await transit.createKey('k');
    const { hmac } = await transit.hmac('k', { input: INPUT });
    expect(hmac).toMatch(/^vault:v1:/);
    expect(await transit.verify('k', { input: INPUT, hmac })).toEqual({ valid: true });
    const batch = await transit.hmac('k', { batch_input: [{ input: INPUT }] });
    expect(batch.batch_results[0]?.hmac).toBe(hmac);
    await expectError(
      transit.verify('k', { input: INPUT, hmac: hmac.replace('vault:', 'acme:') }),
      'invalid_request',
    );
    expect((await transit.encrypt('k', { plaintext: INPUT })).ciphertext).toMatch(/^acme:v1:/);
  });

  it('key_version above latest, below min_encryption_version, or negative is refused', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    await expectError(
      transit.hmac('k', { input: INPUT, key_version: 2 }),
      'invalid_request',
      'key version does not exist; latest key version is 1',
    );
    await expectError(
      transit.hmac('k', { input: INPUT, key_version: -1 }),
      'invalid_request',
      'key version does not exist (cannot be negative)',
    );
    await transit.rotateKey('k');
    await transit.rotateKey('k');
    await transit.updateKeyConfig('k', { min_encryption_version: 2 });
    await expectError(
      transit.hmac('k', { input: INPUT, key_version: 1 }),
      'invalid_request',
      'cannot generate HMAC: version is too old (disallowed by policy)',
    );
    expect((await transit.hmac('k', { input: INPUT, key_version: 2 })).hmac).toMatch(/^vault:v2:/);
    expect((await transit.hmac('k', { input: INPUT })).hmac).toMatch(/^vault:v3:/);
  });

  it('min_decryption_version makes older HMACs fail verification', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    const v1 = (await transit.hmac('k', { input: INPUT })).hmac;
    await transit.rotateKey('k');
    const v2 = (await transit.hmac('k', { input: INPUT })).hmac;
    await transit.updateKeyConfig('k', { min_decryption_version: 2 });
    const TOO_OLD = 'cannot verify HMAC: version is too old (disallowed by policy)';
    await expectError(transit.verify('k', { input: INPUT, hmac: v1 }), 'invalid_request', TOO_OLD);
    expect(await transit.verify('k', { input: INPUT, hmac: v2 })).toEqual({ valid: true });
    const batch = await transit.verify('k', {
      batch_input: [
        { input: INPUT, hmac: v1, reference: 'old' },
        { input: INPUT, hmac: v2, reference: 'new' },
      ],
    });
    expect(batch.batch_results).toStrictEqual([
      { error: TOO_OLD, reference: 'old' },
      { valid: true, reference: 'new' },
    ]);
  });

  it('verify: version too new, no prefix, bad base64', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    const { hmac } = await transit.hmac('k', { input: INPUT });
    const body = hmac.slice('vault:v1:'.length);
    await expectError(
      transit.verify('k', { input: INPUT, hmac: `vault:v2:${body}` }),
      'invalid_request',
      'invalid HMAC: version is too new',
    );
    await expectError(transit.verify('k', { input: INPUT, hmac: body }), 'invalid_request');
    await expectError(
      transit.verify('k', { input: INPUT, hmac: 'vault:vX:AAAA' }),
      'invalid_request',
    );
    await expectError(
      transit.verify('k', { input: INPUT, hmac: 'vault:v1:!!!' }),
      'invalid_request',
      'unable to decode verification HMAC as base64: illegal base64 data at input byte 0',
    );
    // Vault reads the base64 before it judges the version (path_hmac.go).
    await expectError(
      transit.verify('k', { input: INPUT, hmac: 'vault:v9:AAA*' }),
      'invalid_request',
      'unable to decode verification HMAC as base64: illegal base64 data at input byte 3',
    );
    // v0 is no alias of v1 here (only decrypt reads it so): too old, as Vault's pathHMACVerify
    await expectError(
      transit.verify('k', { input: INPUT, hmac: `vault:v0:${body}` }),
      'invalid_request',
      'cannot verify HMAC: version is too old (disallowed by policy)',
    );
    const batch = (await transit.verify('k', {
      batch_input: [{ input: INPUT, hmac: `vault:v0:${body}` }],
    })) as { batch_results: Array<{ valid?: boolean; error?: string }> };
    expect(batch.batch_results[0]?.error).toBe(
      'cannot verify HMAC: version is too old (disallowed by policy)',
    );
    // a tampered value verifies as false, not as an error
    const tampered = `vault:v1:${bytesB64(new Uint8Array(32))}`;
    expect(await transit.verify('k', { input: INPUT, hmac: tampered })).toEqual({ valid: false });
    // truncated value: false
    expect(
      await transit.verify('k', { input: INPUT, hmac: `vault:v1:${body.slice(0, 8)}` }),
    ).toEqual({ valid: false });
  });
});
