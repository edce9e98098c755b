/**
 * Rewrap: moving ciphertexts to a newer key version without revealing the
 * plaintext (spec "Encrypt/Decrypt/Rewrap").
 */

import { describe, expect, it } from 'vitest';
import {
  b64,
  expectError,
  MISSING_CONTEXT_PREFIX,
  makeEngine,
  NONCE_NOT_ALLOWED,
  NOT_FOUND,
  TWELVE,
} from './support.js';

describe('rewrap', () => {
  it('moves a ciphertext to the latest version without revealing the plaintext', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    const { ciphertext } = await transit.encrypt('k', {
      plaintext: b64('wrap me'),
      associated_data: b64('aad'),
    });
    await transit.rotateKey('k');
    await transit.rotateKey('k');
    const r = await transit.rewrap('k', { ciphertext, associated_data: b64('aad') });
    expect(Object.keys(r).sort()).toEqual(['ciphertext', 'key_version']);
    expect(r.key_version).toBe(3);
    expect(r.ciphertext.startsWith('vault:v3:')).toBe(true);
    expect(JSON.stringify(r)).not.toContain(b64('wrap me'));
    await transit.updateKeyConfig('k', { min_decryption_version: 3 });
    expect(
      (await transit.decrypt('k', { ciphertext: r.ciphertext, associated_data: b64('aad') }))
        .plaintext,
    ).toBe(b64('wrap me'));
  });

  it('honours key_version and min_encryption_version', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    const { ciphertext } = await transit.encrypt('k', { plaintext: b64('x') });
    await transit.rotateKey('k');
    await transit.rotateKey('k');
    expect((await transit.rewrap('k', { ciphertext, key_version: 2 })).ciphertext).toMatch(
      /^vault:v2:/,
    );
    await transit.updateKeyConfig('k', { min_encryption_version: 2 });
    await expectError(transit.rewrap('k', { ciphertext, key_version: 1 }), 'invalid_request');
    expect((await transit.rewrap('k', { ciphertext })).key_version).toBe(3);
  });

  it('derived keys need the context; convergent rewrap equals a fresh encrypt', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k', { derived: true, convergent_encryption: true });
    const ctx = b64('ctx');
    const { ciphertext } = await transit.encrypt('k', { plaintext: b64('x'), context: ctx });
    await transit.rotateKey('k');
    await expectError(
      transit.rewrap('k', { ciphertext }),
      'invalid_request',
      new RegExp(`^${MISSING_CONTEXT_PREFIX}`),
    );
    const r = await transit.rewrap('k', { ciphertext, context: ctx });
    expect(r.ciphertext).toBe(
      (await transit.encrypt('k', { plaintext: b64('x'), context: ctx })).ciphertext,
    );
  });

  it('batch: order, reference echo, per-item errors, no plaintext anywhere', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    const a = (await transit.encrypt('k', { plaintext: b64('a') })).ciphertext;
    await transit.rotateKey('k');
    const res = await transit.rewrap('k', {
      batch_input: [
        { ciphertext: a, reference: 'x' },
        { ciphertext: 'garbage', reference: 'y' },
        { ciphertext: a },
      ],
    });
    expect(res.batch_results).toHaveLength(3);
    expect(res.batch_results[0]).toMatchObject({ key_version: 2, reference: 'x' });
    expect(res.batch_results[0]?.ciphertext).toMatch(/^vault:v2:/);
    expect(res.batch_results[1]).toEqual({
      error: 'invalid ciphertext: no prefix',
      reference: 'y',
    });
    expect(res.batch_results[2]).toMatchObject({ key_version: 2, reference: '' });
    for (const r of res.batch_results) expect(r).not.toHaveProperty('plaintext');
  });

  it("batch: a top-level key_version pins no item (only each item's own counts, as Vault)", async () => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    const a = (await transit.encrypt('k', { plaintext: b64('a') })).ciphertext;
    await transit.rotateKey('k');
    const res = await transit.rewrap('k', {
      key_version: 1,
      batch_input: [{ ciphertext: a }, { ciphertext: a, key_version: 1 }],
    });
    expect(res.batch_results.map((r) => r.key_version)).toEqual([2, 1]);
  });

  it('batch: context on some items and not others is refused as a whole (decrypt too), as Vault', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    const a = (await transit.encrypt('k', { plaintext: b64('a') })).ciphertext;
    const mixed = { batch_input: [{ ciphertext: a, context: b64('c') }, { ciphertext: a }] };
    const text = 'context should be set either in all the request blocks or in none';
    await expectError(transit.rewrap('k', mixed), 'invalid_request', text);
    await expectError(transit.decrypt('k', mixed), 'invalid_request', text);
  });

  it('refuses a nonce and a missing key', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    const { ciphertext } = await transit.encrypt('k', { plaintext: b64('x') });
    await expectError(
      transit.rewrap('k', { ciphertext, nonce: TWELVE }),
      'invalid_request',
      NONCE_NOT_ALLOWED,
    );
    await expectError(transit.rewrap('nope', { ciphertext }), 'invalid_request', NOT_FOUND);
  });
});
