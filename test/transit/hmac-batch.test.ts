/**
 * HMAC and verify batches (spec "HMAC", "Verify"; reference §5): order kept,
 * reference echoed, bad items reported alone, algorithm and key_version for
 * every item, an empty batch refused, and verify's valid/false/error per item
 * with hash_algorithm honoured. The shape of a failed verify item:
 * hmac-verify-batch.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { b64, expectError, makeEngine, splitVersioned } from './support.js';

const INPUT = b64('the quick brown fox');

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
