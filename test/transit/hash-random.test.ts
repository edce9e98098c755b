/**
 * Stateless operations: hash (fixtures/hash-vectors.json on both backends)
 * and random bytes (spec "Hash", "Generate random bytes"; reference §15).
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { warningsOf } from '../../src/result-meta.js';
import { BACKENDS } from '../helpers/backends.js';
import { loadHashVectorsFixture } from '../helpers/vectors.js';
import { b64, expectError, HASH_SIZES, makeEngine, snapshot, unb64 } from './support.js';

const fx = loadHashVectorsFixture();
/** The fixture's vectors with the request fields the shared loader type leaves out. */
const VECTORS = fx.vectors as unknown as readonly {
  readonly algorithm: string;
  readonly format: 'hex' | 'base64';
  readonly expected_sum: string;
  readonly request_path: string;
  readonly request_data: Record<string, unknown>;
}[];

/** The algorithm a vector selects: request body, else the URL suffix, else the default. */
function algorithmOf(v: {
  request_path: string;
  request_data: Record<string, unknown>;
}): string | undefined {
  const body = v.request_data.algorithm;
  if (typeof body === 'string') return body;
  const m = /^hash\/(.+)$/.exec(v.request_path);
  return m?.[1];
}

for (const [backendName, backend] of BACKENDS) {
  describe(`hash on ${backendName}`, () => {
    it('reproduces every vector of hash-vectors.json', async () => {
      const { transit } = makeEngine({ backend });
      expect(VECTORS.length).toBeGreaterThanOrEqual(11);
      const algorithms = new Set<string>();
      for (const v of VECTORS) {
        const data = v.request_data;
        const algorithm = algorithmOf({ request_path: v.request_path, request_data: data });
        const format = data.format as 'hex' | 'base64' | undefined;
        const req = {
          input: data.input as string,
          ...(algorithm === undefined ? {} : { algorithm }),
          ...(format === undefined ? {} : { format }),
        };
        expect(await transit.hash(req), `${v.request_path} ${JSON.stringify(data)}`).toEqual({
          sum: v.expected_sum,
        });
        algorithms.add(v.algorithm);
      }
      expect([...algorithms].sort()).toEqual(Object.keys(HASH_SIZES).sort());
    });

    it('refuses the fixture error cases', async () => {
      const { transit, storage } = makeEngine({ backend });
      expect(fx.error_cases.length).toBeGreaterThanOrEqual(4);
      for (const c of fx.error_cases) {
        await expectError(transit.hash(c.request_data as never), 'invalid_request');
      }
      expect(await snapshot(storage)).toEqual({});
    });

    it.each(Object.entries(HASH_SIZES))(
      '%s in both formats, binary input, empty input',
      async (algorithm, size) => {
        const { transit } = makeEngine({ backend });
        const data = new Uint8Array(1000).map((_, i) => i & 0xff);
        const hex = (await transit.hash({ input: data, algorithm })).sum;
        expect(hex).toMatch(new RegExp(`^[0-9a-f]{${size * 2}}$`));
        const nodeName = algorithm.replace('sha2-', 'sha').replace('sha3-', 'sha3-');
        expect(hex).toBe(createHash(nodeName).update(data).digest('hex'));
        const base64 = (
          await transit.hash({
            input: Buffer.from(data).toString('base64'),
            algorithm,
            format: 'base64',
          })
        ).sum;
        expect(Buffer.from(unb64(base64)).toString('hex')).toBe(hex);
        const empty = (await transit.hash({ input: '', algorithm })).sum;
        expect(empty).toBe(createHash(nodeName).update(new Uint8Array(0)).digest('hex'));
      },
    );
  });
}

describe('hash options', () => {
  it('defaults to sha2-256 and hex', async () => {
    const { transit } = makeEngine();
    expect((await transit.hash({ input: b64('the quick brown fox') })).sum).toBe(
      '9ecb36561341d18eb65484e833efea61edc74b84cf5e6ae1b81c63533e25fc8f',
    );
  });

  it.each(['sha1', 'md5', 'none', 'sha2-1024', 'SHA2-256', 'sha256'])(
    'refuses algorithm %s',
    async (algorithm) => {
      const { transit } = makeEngine();
      await expectError(transit.hash({ input: b64('x'), algorithm }), 'invalid_request');
    },
  );

  it.each(['base92', 'HEX', 'Base64', 'raw', 'base64url'])('refuses format %s', async (format) => {
    const { transit } = makeEngine();
    await expectError(
      transit.hash({ input: b64('x'), format: format as 'hex' }),
      'invalid_request',
    );
  });

  it("refuses a non-base64 input with Go's text", async () => {
    const { transit } = makeEngine();
    await expectError(
      transit.hash({ input: ':;.?' }),
      'invalid_request',
      'unable to decode input as base64: illegal base64 data at input byte 0',
    );
  });
});

describe('randomBytes', () => {
  it('defaults to 32 bytes of base64', async () => {
    const { transit } = makeEngine();
    const { random_bytes } = await transit.randomBytes();
    expect(random_bytes).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
    expect(unb64(random_bytes).length).toBe(32);
    expect(unb64((await transit.randomBytes({})).random_bytes).length).toBe(32);
  });

  it('hex and base64 formats, any size in 1..131072', async () => {
    const { transit } = makeEngine();
    for (const bytes of [1, 2, 31, 100, 4096, 131_072]) {
      const hex = (await transit.randomBytes({ bytes, format: 'hex' })).random_bytes;
      expect(hex).toMatch(new RegExp(`^[0-9a-f]{${bytes * 2}}$`));
      const b = (await transit.randomBytes({ bytes, format: 'base64' })).random_bytes;
      expect(unb64(b).length).toBe(bytes);
    }
  });

  it('is random', async () => {
    const { transit } = makeEngine();
    const seen = new Set<string>();
    for (let i = 0; i < 50; i++) seen.add((await transit.randomBytes({ bytes: 16 })).random_bytes);
    expect(seen.size).toBe(50);
  });

  it.each(BACKENDS)('works on the %s backend', async (_name, backend) => {
    const { transit } = makeEngine({ backend });
    expect(unb64((await transit.randomBytes({ bytes: 48 })).random_bytes).length).toBe(48);
  });

  it.each(['platform', 'all', ''] as const)('source %j', async (source) => {
    const { transit } = makeEngine();
    const out = await transit.randomBytes({ source: source as 'all', bytes: 24 });
    expect(unb64(out.random_bytes).length).toBe(24);
    expect(warningsOf(out)).toEqual([]);
  });

  it('source seal: platform bytes with Vault’s warning (no seal entropy augmentation)', async () => {
    const { transit } = makeEngine();
    const out = await transit.randomBytes({ source: 'seal', bytes: 24 });
    expect(unb64(out.random_bytes).length).toBe(24);
    expect(warningsOf(out)).toEqual([
      'no seal/entropy augmentation available, using platform entropy source',
    ]);
  });

  it.each(['foo', 'rdseed', 'Platform'])('refuses source %s with Vault’s text', async (source) => {
    const { transit } = makeEngine();
    await expectError(
      transit.randomBytes({ source: source as 'all' }),
      'invalid_request',
      `unsupported entropy source "${source}"; must be "platform" or "seal", or "all"`,
    );
  });

  it.each([0, -1, -32, 131_073, 1_000_000])('refuses bytes %i', async (bytes) => {
    const { transit } = makeEngine();
    await expectError(transit.randomBytes({ bytes }), 'invalid_request');
  });

  it.each(['base92', 'HEX', 'raw'])('refuses format %s', async (format) => {
    const { transit } = makeEngine();
    await expectError(transit.randomBytes({ format: format as 'hex' }), 'invalid_request');
  });
});
