/**
 * Vault's texts for hash and random (path_hash.go: `unsupported algorithm
 * <name>`; helper/random/random_api.go: `"bytes" cannot be less than 1`,
 * `"bytes" should be less than 131072`).
 */
import { describe, it } from 'vitest';
import { b64, expectError, makeEngine } from './support.js';

describe('hash: Vault error text for an unknown algorithm', () => {
  it.each(['sha1', 'nope'])('%s → unsupported algorithm <name>', async (algorithm) => {
    const { transit } = makeEngine();
    await expectError(
      transit.hash({ input: b64('x'), algorithm }),
      'invalid_request',
      `unsupported algorithm ${algorithm}`,
    );
  });
});

describe('random: Vault texts', () => {
  it('bytes < 1', async () => {
    const { transit } = makeEngine();
    await expectError(
      transit.randomBytes({ bytes: 0 }),
      'invalid_request',
      '"bytes" cannot be less than 1',
    );
  });
  it('bytes > 128 KiB', async () => {
    const { transit } = makeEngine();
    await expectError(
      transit.randomBytes({ bytes: 131_073 }),
      'invalid_request',
      '"bytes" should be less than 131072',
    );
  });
});
