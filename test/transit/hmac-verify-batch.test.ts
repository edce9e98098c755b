/**
 * The shape of HMAC verify batch items (issue #15 item 15; reference §5):
 * Vault's `batchResponseHMACItem` has `valid` with `omitempty`, so an item
 * that fails with an `error` carries no `valid` key. A well-formed HMAC that
 * does not match keeps `valid: false` (Vault omits it too; we keep the answer
 * explicit — README, differences from Vault). Signature verify items always
 * carry `valid`, as in Vault.
 */
import { describe, expect, it } from 'vitest';
import { b64, makeEngine } from './support.js';

const INPUT = b64('input');

describe('HMAC verify batch items', () => {
  it('a failed item has error and reference, and no valid key', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    const { hmac } = await transit.hmac('k', { input: INPUT });
    const other = (await transit.hmac('k', { input: b64('other') })).hmac;
    const res = await transit.verify('k', {
      batch_input: [
        { input: INPUT, hmac, reference: 'ok' },
        { input: INPUT, hmac: other, reference: 'mismatch' },
        { input: INPUT, hmac: 'nope:v1:AAAA', reference: 'prefix' },
        { input: INPUT, hmac: 'vault:v9:AAAA', reference: 'new' },
        { input: INPUT, hmac: 'vault:v1:!!', reference: 'b64' },
        { input: '%%%', hmac, reference: 'input' },
        { hmac, reference: 'missing' },
      ],
    });
    const [ok, mismatch, ...failed] = res.batch_results;
    expect(ok).toStrictEqual({ valid: true, reference: 'ok' });
    expect(mismatch).toStrictEqual({ valid: false, reference: 'mismatch' });
    expect(failed).toHaveLength(5);
    for (const item of failed) {
      expect(Object.keys(item).sort()).toEqual(['error', 'reference']);
      expect(item.error).toEqual(expect.any(String));
    }
  });

  it('signature verify items keep valid: false beside an error (Vault always sends valid)', async () => {
    const { transit } = makeEngine();
    await transit.createKey('ed', { type: 'ed25519' });
    const res = await transit.verify('ed', {
      batch_input: [{ input: INPUT, signature: 'vault:v9:AAAA', reference: 'new' }],
    });
    expect(res.batch_results[0]).toStrictEqual({
      valid: false,
      error: 'invalid signature: version is too new',
      reference: 'new',
    });
  });
});
