/**
 * HMAC and HMAC verification (spec "HMAC", "Verify"; reference §4, §5, §9;
 * README: verify honours hash_algorithm, `vault:v` prefix always). Known-answer
 * vectors live in test/compat; here: lengths, versions, batches, errors.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import {
  b64,
  bytesB64,
  expectError,
  HASH_SIZES,
  makeEngine,
  snapshot,
  splitVersioned,
} from './support.js';

const ALGORITHMS = Object.keys(HASH_SIZES);
const INPUT = b64('the quick brown fox');

for (const [backendName, backend] of BACKENDS) {
  describe(`hmac on ${backendName}`, () => {
    it.each(ALGORITHMS)(
      '%s: right length, verifies, rejects other input and other algorithm',
      async (algorithm) => {
        const { transit } = makeEngine({ backend });
        await transit.createKey('k');
        const r = await transit.hmac('k', { input: INPUT, algorithm });
        expect(r.key_version).toBe(1);
        const parts = splitVersioned(r.hmac);
        expect(parts.prefix).toBe('vault');
        expect(parts.version).toBe(1);
        expect(parts.payload.length).toBe(HASH_SIZES[algorithm]);
        // deterministic
        expect((await transit.hmac('k', { input: INPUT, algorithm })).hmac).toBe(r.hmac);
        expect(
          await transit.verify('k', { input: INPUT, hmac: r.hmac, hash_algorithm: algorithm }),
        ).toEqual({ valid: true });
        expect(await transit.verify('k', { input: INPUT, hmac: r.hmac, algorithm })).toEqual({
          valid: true,
        });
        expect(
          await transit.verify('k', {
            input: b64('the quick brown fax'),
            hmac: r.hmac,
            hash_algorithm: algorithm,
          }),
        ).toEqual({
          valid: false,
        });
        const other = algorithm === 'sha2-256' ? 'sha3-256' : 'sha2-256';
        expect(
          await transit.verify('k', { input: INPUT, hmac: r.hmac, hash_algorithm: other }),
        ).toEqual({ valid: false });
      },
    );

    it.each([32, 100, 512])(
      'type hmac with key_size %i works for every algorithm',
      async (key_size) => {
        const { transit } = makeEngine({ backend });
        await transit.createKey('h', { type: 'hmac', key_size });
        for (const algorithm of ALGORITHMS) {
          const { hmac } = await transit.hmac('h', { input: INPUT, algorithm });
          expect(splitVersioned(hmac).payload.length).toBe(HASH_SIZES[algorithm]);
          expect(
            await transit.verify('h', { input: INPUT, hmac, hash_algorithm: algorithm }),
          ).toEqual({ valid: true });
        }
      },
    );
  });
}

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
    // v0 is read as v1
    expect(await transit.verify('k', { input: INPUT, hmac: `vault:v0:${body}` })).toEqual({
      valid: true,
    });
    // a tampered value verifies as false, not as an error
    const tampered = `vault:v1:${bytesB64(new Uint8Array(32))}`;
    expect(await transit.verify('k', { input: INPUT, hmac: tampered })).toEqual({ valid: false });
    // truncated value: false
    expect(
      await transit.verify('k', { input: INPUT, hmac: `vault:v1:${body.slice(0, 8)}` }),
    ).toEqual({ valid: false });
  });
});

describe('hmac input', () => {
  it('an empty input is hashed; a missing input is refused', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    const { hmac } = await transit.hmac('k', { input: '' });
    expect(splitVersioned(hmac).payload.length).toBe(32);
    expect((await transit.hmac('k', { input: new Uint8Array(0) })).hmac).toBe(hmac);
    expect(await transit.verify('k', { input: '', hmac })).toEqual({ valid: true });
    await expectError(transit.hmac('k', {}), 'invalid_request', 'missing input for HMAC');
  });

  it("refuses a non-base64 input with Go's text", async () => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    await expectError(
      transit.hmac('k', { input: ':;.?' }),
      'invalid_request',
      'unable to decode input as base64: illegal base64 data at input byte 0',
    );
  });

  it('refuses an unknown algorithm', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    for (const algorithm of ['md5', 'sha2-999', 'SHA2-256', 'sha256', 'none']) {
      await expectError(transit.hmac('k', { input: INPUT, algorithm }), 'invalid_request');
      await expectError(
        transit.verify('k', { input: INPUT, hmac: 'vault:v1:AAAA', hash_algorithm: algorithm }),
        'invalid_request',
      );
    }
  });

  it('refuses a missing key', async () => {
    const { transit, storage } = makeEngine();
    await expectError(
      transit.hmac('nope', { input: INPUT }),
      'invalid_request',
      'encryption key not found',
    );
    await expectError(
      transit.verify('nope', { input: INPUT, hmac: 'vault:v1:AAAA' }),
      'invalid_request',
      'signature verification key not found',
    );
    expect(await snapshot(storage)).toEqual({});
  });
});

describe('hmac batches', () => {
  it('keep order, echo reference, and report bad items alone', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    const single = (await transit.hmac('k', { input: INPUT })).hmac;
    const res = await transit.hmac('k', {
      batch_input: [
        { input: INPUT, reference: 'a' },
        { input: ':;.?', reference: 'b' },
        { reference: 'c' },
        { input: b64('other') },
        { input: '' },
      ],
    });
    expect(res.batch_results).toHaveLength(5);
    expect(res.batch_results[0]).toEqual({ hmac: single, reference: 'a' });
    expect(res.batch_results[1]).toEqual({
      error: 'unable to decode input as base64: illegal base64 data at input byte 0',
      reference: 'b',
    });
    expect(res.batch_results[2]).toEqual({ error: 'missing input for HMAC', reference: 'c' });
    expect(res.batch_results[3]?.hmac).toMatch(/^vault:v1:/);
    expect(res.batch_results[3]?.reference).toBe('');
    expect(res.batch_results[4]?.hmac).toMatch(/^vault:v1:/);
  });

  it('honour algorithm and key_version for every item', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    await transit.rotateKey('k');
    const res = await transit.hmac('k', {
      algorithm: 'sha2-512',
      key_version: 1,
      batch_input: [{ input: INPUT }, { input: INPUT }],
    });
    for (const r of res.batch_results) {
      const p = splitVersioned(r.hmac as string);
      expect(p.version).toBe(1);
      expect(p.payload.length).toBe(64);
    }
    expect(res.batch_results[0]?.hmac).toBe(
      (await transit.hmac('k', { algorithm: 'sha2-512', key_version: 1, input: INPUT })).hmac,
    );
  });

  it('refuse an empty batch', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    await expectError(
      transit.hmac('k', { batch_input: [] }),
      'invalid_request',
      'missing batch input to process',
    );
    await expectError(transit.verify('k', { batch_input: [] }), 'invalid_request');
  });

  it('verify batch: valid/false/error per item, reference echoed, hash_algorithm honoured', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    const h256 = (await transit.hmac('k', { input: INPUT })).hmac;
    const h384 = (await transit.hmac('k', { input: INPUT, algorithm: 'sha2-384' })).hmac;
    const res = await transit.verify('k', {
      hash_algorithm: 'sha2-384',
      batch_input: [
        { input: INPUT, hmac: h384, reference: 'ok' },
        { input: INPUT, hmac: h256, reference: 'wrong-alg' },
        { input: b64('x'), hmac: h384 },
        { input: INPUT, hmac: 'vault:v7:AAAA', reference: 'new' },
      ],
    });
    expect(res.batch_results[0]).toEqual({ valid: true, reference: 'ok' });
    expect(res.batch_results[1]).toMatchObject({ valid: false, reference: 'wrong-alg' });
    expect(res.batch_results[1]?.error).toBeUndefined();
    expect(res.batch_results[2]).toMatchObject({ valid: false, reference: '' });
    expect(res.batch_results[3]).toStrictEqual({
      error: 'invalid HMAC: version is too new',
      reference: 'new',
    });
  });
});

describe('verify request shape', () => {
  it('refuses both hmac and signature, and neither', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    const { hmac } = await transit.hmac('k', { input: INPUT });
    await expectError(
      transit.verify('k', { input: INPUT, hmac, signature: 'vault:v1:AAAA' }),
      'invalid_request',
      "provide one of 'signature' or 'hmac'",
    );
    await expectError(
      transit.verify('k', { input: INPUT }),
      'invalid_request',
      "neither a 'signature' nor an 'hmac' were given to verify",
    );
  });

  it('refuses a batch mixing hmac and signature items', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    const { hmac } = await transit.hmac('k', { input: INPUT });
    await expectError(
      transit.verify('k', {
        batch_input: [
          { input: INPUT, hmac },
          { input: INPUT, signature: 'vault:v1:AAAA' },
        ],
      }),
      'invalid_request',
      "elements of batch_input must all provide 'signature' or all provide 'hmac'",
    );
    await expectError(
      transit.verify('k', { batch_input: [{ input: INPUT, hmac }, { input: INPUT }] }),
      'invalid_request',
      /missing 'hmac'|some elements of batch_input are missing/,
    );
  });

  it('signature verification on a symmetric key is refused', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    await expectError(
      transit.verify('k', { input: INPUT, signature: 'vault:v1:AAAA' }),
      'invalid_request',
    );
  });

  it('hash_algorithm wins over algorithm (OpenBao order)', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    const { hmac } = await transit.hmac('k', { input: INPUT, algorithm: 'sha3-512' });
    expect(
      await transit.verify('k', {
        input: INPUT,
        hmac,
        hash_algorithm: 'sha3-512',
        algorithm: 'sha2-256',
      }),
    ).toEqual({
      valid: true,
    });
    expect(
      await transit.verify('k', {
        input: INPUT,
        hmac,
        hash_algorithm: 'sha2-256',
        algorithm: 'sha3-512',
      }),
    ).toEqual({
      valid: false,
    });
    expect(await transit.verify('k', { input: INPUT, hmac })).toEqual({ valid: false });
  });
});
