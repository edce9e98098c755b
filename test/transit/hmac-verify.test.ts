/**
 * The shape of an HMAC verify request (spec "Verify"; README: verify honours
 * hash_algorithm): one of hmac or signature, never both nor neither, nor mixed
 * in a batch; signature verification on a symmetric key refused; and
 * hash_algorithm winning over algorithm (OpenBao order).
 */
import { describe, expect, it } from 'vitest';
import { b64, expectError, makeEngine } from './support.js';

const INPUT = b64('the quick brown fox');

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
