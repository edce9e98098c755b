/**
 * Library fuzzing (issue 9): decrypt, verify, restoreKey, sign, hmac and
 * rewrap on arbitrary bytes, strings and request shapes, on both crypto
 * backends. Every call either returns normally (verify: `valid: false`
 * unless the proof is genuine) or rejects with a `TransitError` whose code is
 * `invalid_request` — `not_found` only where the key is missing. Never a
 * TypeError, RangeError, noble/OpenSSL error or any other throw; and a
 * rejected call never writes to storage.
 *
 * `importKey` and `importKeyVersion` get fuzzed wrapped blobs, public keys
 * and types (a fuzzed blob can never unwrap, so no import succeeds);
 * structure-aware fuzzing (mutated backups, well-wrapped imports) is in
 * `library-mutation.test.ts`.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransitError } from '../../src/errors.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { Transit } from '../../src/transit/transit.js';
import { BACKENDS } from '../helpers/backends.js';
import { settle } from './fuzz-server.js';

const LONG = process.env.FUZZ_LONG === '1';
const RUNS = LONG ? 20_000 : 1_000;
/** Per-test time limit: the default in CI; hours with FUZZ_LONG. */
const TIMEOUT = LONG ? 6 * 3600_000 : 30_000;
const KEYS = ['aes', 'derived', 'chacha', 'xchacha', 'ed', 'ec', 'rsa', 'hmac', 'missing'] as const;
type Call = (t: Transit, key: string, x: unknown, y: unknown) => Promise<unknown>;

/** The calls under test; `x` and `y` are the fuzzed values. */
const CALLS: Readonly<Record<string, Call>> = {
  decrypt: (t, k, x, y) => t.decrypt(k, { ciphertext: x, context: y } as never),
  'decrypt(request)': (t, k, x) => t.decrypt(k, x as never),
  'decrypt(batch)': (t, k, x, y) =>
    t.decrypt(k, { batch_input: [{ ciphertext: x, context: y }, x] } as never),
  rewrap: (t, k, x) => t.rewrap(k, { ciphertext: x } as never),
  'verify(signature)': (t, k, x, y) => t.verify(k, { input: y, signature: x } as never),
  'verify(hmac)': (t, k, x, y) => t.verify(k, { input: y, hmac: x } as never),
  'verify(request)': (t, k, x) => t.verify(k, x as never),
  sign: (t, k, x, y) => t.sign(k, { input: x, context: y } as never),
  'sign(request)': (t, k, x) => t.sign(k, x as never),
  hmac: (t, k, x, y) => t.hmac(k, { input: x, algorithm: y } as never),
  importKey: (t, k, x, y) =>
    t.importKey(k === 'missing' ? 'imported' : k, { ciphertext: x, type: y } as never),
  'importKey(public_key)': (t, _k, x, y) =>
    t.importKey('imported', { public_key: x, type: y } as never),
  'importKey(request)': (t, _k, x) => t.importKey('imported', x as never),
  importKeyVersion: (t, k, x, y) =>
    t.importKeyVersion(k, { ciphertext: x, public_key: y } as never),
  signCsr: (t, k, x) => t.signCsr(k, { csr: pem('CERTIFICATE REQUEST', x) } as never),
  setCertificate: (t, k, x) =>
    t.setCertificate(k, { certificate_chain: pem('CERTIFICATE', x) } as never),
  'importKey(public_key PEM)': (t, _k, x, y) =>
    t.importKey('imported', { public_key: pem('PUBLIC KEY', x), type: y } as never),
  restoreKey: (t, _k, x, y) => t.restoreKey({ backup: x, name: y } as never),
  'restoreKey(request)': (t, _k, x) => t.restoreKey(x as never),
};

const b64 = (u: Uint8Array) => Buffer.from(u).toString('base64');
/** Bytes as a PEM block (anything else as is): gets fuzz past PEM decoding into DER parsing. */
const pem = (label: string, x: unknown): unknown =>
  x instanceof Uint8Array
    ? `-----BEGIN ${label}-----\n${b64(x)}\n-----END ${label}-----\n`
    : typeof x === 'string' && x.startsWith('vault:v1:')
      ? `-----BEGIN ${label}-----\n${x.slice(9)}\n-----END ${label}-----\n`
      : x;
/** Strings and bytes, shaped like the values these calls take, and not. */
const FUZZ: fc.Arbitrary<unknown> = fc.oneof(
  fc.uint8Array({ maxLength: 300 }),
  fc.uint8Array({ maxLength: 300 }).map(b64),
  fc.uint8Array({ maxLength: 120 }).map((u) => `vault:v1:${b64(u)}`),
  fc
    .tuple(fc.integer({ min: -2, max: 1e6 }), fc.uint8Array({ maxLength: 80 }))
    .map(([v, u]) => `vault:v${v}:${b64(u)}`),
  // DER-shaped: a universal tag (time types, SEQUENCE, INTEGER, OID, …), a length, random content.
  fc
    .tuple(
      fc.constantFrom(0x02, 0x03, 0x04, 0x05, 0x06, 0x0c, 0x13, 0x17, 0x18, 0x30, 0x31, 0xa0),
      fc.uint8Array({ maxLength: 60 }),
    )
    .map(([tag, u]) => `vault:v1:${b64(Uint8Array.of(tag, u.length, ...u))}`),
  fc.string({ maxLength: 200 }),
  fc.string({ maxLength: 60, unit: 'binary' }),
  fc.string({ maxLength: 60, unit: 'grapheme' }),
  fc.constantFrom(
    '',
    'vault:',
    'vault:v1:',
    'vault:v1:@@',
    'AAAA',
    '\u0000',
    '\ud800',
    'x'.repeat(70000),
  ),
  fc.anything({ maxDepth: 2 }),
);

const noteworthy = { returned: 0, invalid_request: 0, not_found: 0 };

for (const [backendName, backend] of BACKENDS) {
  describe(`library fuzzing [${backendName}]`, () => {
    const storage = new MemoryStorage();
    const transit = new Transit({ storage, crypto: backend, autoRotate: false });
    let writes = 0;

    beforeAll(async () => {
      await transit.createKey('aes', { exportable: true, allow_plaintext_backup: true });
      await transit.createKey('derived', { derived: true });
      await transit.createKey('chacha', { type: 'chacha20-poly1305' });
      await transit.createKey('xchacha', { type: 'xchacha20-poly1305' });
      await transit.createKey('ed', { type: 'ed25519' });
      await transit.createKey('ec', { type: 'ecdsa-p384' });
      await transit.createKey('rsa', { type: 'rsa-2048' });
      await transit.createKey('hmac', { type: 'hmac', key_size: 64 });
      // restoreKey with an existing name and no force must refuse: leave `aes` in place.
      await storage.watch('', () => {
        writes++;
      });
    });
    afterAll(() => transit.close());

    it(
      'a real ciphertext, HMAC or signature with a flipped bit or cut short is refused',
      async () => {
        const pt = b64(new TextEncoder().encode('the secret plaintext'));
        const ct = (await transit.encrypt('aes', { plaintext: pt })).ciphertext;
        const mac = (await transit.hmac('hmac', { input: pt })).hmac;
        const sig = (await transit.sign('ec', { input: pt })).signature;
        const body = (v: string) => v.slice(v.indexOf(':', 6) + 1);
        const mutate = (v: string, at: number, bit: number, cut: boolean): string => {
          const raw = Buffer.from(body(v), 'base64');
          if (cut)
            return `${v.slice(0, v.length - body(v).length)}${raw.subarray(0, at % raw.length).toString('base64')}`;
          const i = at % raw.length;
          raw[i] = (raw[i] ?? 0) ^ (1 << bit);
          return `${v.slice(0, v.length - body(v).length)}${raw.toString('base64')}`;
        };
        await fc.assert(
          fc.asyncProperty(
            fc.nat(),
            fc.integer({ min: 0, max: 7 }),
            fc.boolean(),
            async (at, bit, cut) => {
              await expect(
                transit.decrypt('aes', { ciphertext: mutate(ct, at, bit, cut) }),
              ).rejects.toMatchObject({
                code: 'invalid_request',
              });
              const v1 = await transit
                .verify('hmac', { input: pt, hmac: mutate(mac, at, bit, cut) })
                .catch((e: unknown) => e);
              const v2 = await transit
                .verify('ec', { input: pt, signature: mutate(sig, at, bit, cut) })
                .catch((e: unknown) => e);
              for (const v of [v1, v2]) {
                if (v instanceof Error) expect(v).toMatchObject({ code: 'invalid_request' });
                else expect(v).toEqual({ valid: false });
              }
            },
          ),
          { numRuns: RUNS / 10 },
        );
        // The unmutated values still work (the mutation is what failed).
        expect(await transit.decrypt('aes', { ciphertext: ct })).toEqual({ plaintext: pt });
        expect(await transit.verify('hmac', { input: pt, hmac: mac })).toEqual({ valid: true });
        expect(await transit.verify('ec', { input: pt, signature: sig })).toEqual({ valid: true });
      },
      TIMEOUT,
    );

    for (const [label, call] of Object.entries(CALLS)) {
      it(
        `${label}: returns or throws TransitError invalid_request / not_found`,
        async () => {
          await fc.assert(
            fc.asyncProperty(fc.constantFrom(...KEYS), FUZZ, FUZZ, async (key, x, y) => {
              await settle();
              const before = writes;
              try {
                const out = await call(transit, key, x, y);
                noteworthy.returned++;
                if (label.startsWith('verify') && typeof out === 'object' && out !== null) {
                  // A random proof never verifies.
                  expect((out as { valid?: boolean }).valid).not.toBe(true);
                }
                if (label.startsWith('restoreKey') || label.startsWith('import')) {
                  // Only a genuine backup or wrapped blob succeeds: never fuzz.
                  throw new Error(`${label} accepted fuzzed input`);
                }
              } catch (e) {
                if (!(e instanceof TransitError)) {
                  throw new Error(`${label} on ${key} threw a non-TransitError: ${String(e)}`, {
                    cause: e,
                  });
                }
                const allowed =
                  e.code === 'invalid_request' || (e.code === 'not_found' && key === 'missing');
                expect(allowed, `${label} on ${key}: code ${e.code}: ${e.message}`).toBe(true);
                noteworthy[e.code as 'invalid_request' | 'not_found']++;
                await settle();
                expect(writes - before, `${label} on ${key} wrote before rejecting`).toBe(0);
              }
            }),
            { numRuns: RUNS },
          );
        },
        TIMEOUT,
      );
    }
  });
}

afterAll(() => {
  console.log(
    `library fuzz: ${RUNS} runs × ${Object.keys(CALLS).length} calls × ${BACKENDS.length} backends; outcomes ${JSON.stringify(noteworthy)}`,
  );
});
