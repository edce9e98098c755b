/**
 * HMAC (spec "HMAC", "Verify"; reference §4): on every backend, each algorithm
 * gives the right length, is deterministic and verifies (also for type hmac
 * keys of any key_size); the input: empty, missing, not base64, an unknown
 * algorithm, a missing key. Known-answer vectors live in test/compat; versions
 * in hmac-versions.test.ts, batches in hmac-batch.test.ts, verify's request
 * shape in hmac-verify.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { b64, expectError, HASH_SIZES, makeEngine, snapshot, splitVersioned } from './support.js';

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

describe('hmac input', () => {
  it('an empty input is hashed; a missing one is the empty input, made and verified (as Vault)', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    const { hmac } = await transit.hmac('k', { input: '' });
    expect(splitVersioned(hmac).payload.length).toBe(32);
    expect((await transit.hmac('k', { input: new Uint8Array(0) })).hmac).toBe(hmac);
    expect(await transit.verify('k', { input: '', hmac })).toEqual({ valid: true });
    // Vault's path_hmac.go: "use empty string if input is missing - not an error".
    expect((await transit.hmac('k', {})).hmac).toBe(hmac);
    // A batch item without input is still refused, as Vault's.
    const { batch_results } = await transit.hmac('k', { batch_input: [{}] });
    expect(batch_results[0]?.error).toBe('missing input for HMAC');
    expect(await transit.verify('k', { hmac })).toEqual({ valid: true });
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
