/**
 * Property-based tests (fast-check): random plaintexts (0..4096 bytes), AAD
 * and contexts round-trip through every symmetric type × {plain, derived,
 * convergent} × both crypto backends, in both directions between backends;
 * convergent encryption is deterministic; tampering is always detected.
 */
import fc from 'fast-check';
import type { CryptoBackend } from 'transitkit';
import { MemoryStorage, Transit, TransitError } from 'transitkit';
import { describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { FakeClock } from '../helpers/fake-clock.js';
import {
  AUTH_FAILED,
  bytesB64,
  joinVersioned,
  NONCE_BYTES,
  SYMMETRIC_TYPES,
  splitVersioned,
} from './support.js';

const RUNS = 100;
const MODES = ['plain', 'derived', 'convergent'] as const;
type Mode = (typeof MODES)[number];

const plaintextArb = fc.uint8Array({ minLength: 0, maxLength: 4096 });
const aadArb = fc.uint8Array({ minLength: 0, maxLength: 64 });
const contextArb = fc.uint8Array({ minLength: 1, maxLength: 64 });

/** One engine per backend on a shared storage, with key `k` of the given type and mode. */
async function engines(type: string, mode: Mode): Promise<[string, Transit][]> {
  const clock = new FakeClock();
  const storage = new MemoryStorage({ clock });
  const out = BACKENDS.map(
    ([name, backend]) =>
      [
        name,
        new Transit({ storage, clock, crypto: backend as CryptoBackend, autoRotate: false }),
      ] as [string, Transit],
  );
  await (out[0] as [string, Transit])[1].createKey('k', {
    type,
    derived: mode !== 'plain',
    convergent_encryption: mode === 'convergent',
  });
  return out;
}

const rejects = async (p: Promise<unknown>): Promise<TransitError> => {
  try {
    await p;
  } catch (e) {
    if (e instanceof TransitError) return e;
    throw e;
  }
  throw new Error('expected a rejection');
};

describe.each(SYMMETRIC_TYPES)('%s round trips', (type) => {
  const nonce = NONCE_BYTES[type];

  it.each(MODES)('%s: every backend decrypts what every backend encrypts', async (mode) => {
    const es = await engines(type, mode);
    await fc.assert(
      fc.asyncProperty(plaintextArb, aadArb, contextArb, async (pt, aad, ctx) => {
        const context = mode === 'plain' ? undefined : bytesB64(ctx);
        const want = bytesB64(pt);
        const cts: string[] = [];
        for (const [, t] of es) {
          const { ciphertext, key_version } = await t.encrypt('k', {
            plaintext: pt,
            associated_data: bytesB64(aad),
            ...(context === undefined ? {} : { context }),
          });
          expect(key_version).toBe(1);
          const parts = splitVersioned(ciphertext);
          expect(parts.prefix).toBe('vault');
          expect(parts.payload.length).toBe(nonce + pt.length + 16);
          cts.push(ciphertext);
        }
        if (mode === 'convergent') expect(new Set(cts).size).toBe(1);
        for (const ciphertext of cts) {
          for (const [, t] of es) {
            const { plaintext } = await t.decrypt('k', {
              ciphertext,
              associated_data: aad,
              ...(context === undefined ? {} : { context }),
            });
            expect(plaintext).toBe(want);
          }
        }
        // a different AAD never decrypts
        const [, first] = es[0] as [string, Transit];
        const e = await rejects(
          first.decrypt('k', {
            ciphertext: cts[0] as string,
            associated_data: new Uint8Array([...aad, 1]),
            ...(context === undefined ? {} : { context }),
          }),
        );
        expect(e.code).toBe('invalid_request');
        expect(e.message).toBe(AUTH_FAILED[type]);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('convergent determinism', () => {
  it.each(SYMMETRIC_TYPES)(
    '%s: same (context, plaintext) ⇔ same ciphertext, on both backends',
    async (type) => {
      const es = await engines(type, 'convergent');
      await fc.assert(
        fc.asyncProperty(
          contextArb,
          contextArb,
          fc.uint8Array({ maxLength: 256 }),
          fc.uint8Array({ maxLength: 256 }),
          async (ctxA, ctxB, ptA, ptB) => {
            const enc = async (t: Transit, ctx: Uint8Array, pt: Uint8Array) =>
              (await t.encrypt('k', { plaintext: pt, context: ctx })).ciphertext;
            const [[, n], [, m]] = es as [[string, Transit], [string, Transit]];
            const aa = await enc(n, ctxA, ptA);
            expect(await enc(m, ctxA, ptA)).toBe(aa);
            expect(await enc(n, new Uint8Array(ctxA), new Uint8Array(ptA))).toBe(aa);
            const sameCtx = bytesB64(ctxA) === bytesB64(ctxB);
            const samePt = bytesB64(ptA) === bytesB64(ptB);
            const ab = await enc(m, ctxA, ptB);
            const ba = await enc(n, ctxB, ptA);
            expect(ab === aa).toBe(samePt);
            expect(ba === aa).toBe(sameCtx);
            // the nonce is a function of the plaintext: different plaintexts, different nonces
            if (!samePt) {
              const na = splitVersioned(aa).payload.subarray(0, NONCE_BYTES[type]);
              const nb = splitVersioned(ab).payload.subarray(0, NONCE_BYTES[type]);
              expect(bytesB64(na)).not.toBe(bytesB64(nb));
            }
          },
        ),
        { numRuns: RUNS },
      );
    },
  );
});

describe('tampering', () => {
  it.each(SYMMETRIC_TYPES)(
    '%s: any single-bit flip or truncation is refused with invalid_request',
    async (type) => {
      const es = await engines(type, 'plain');
      const [, t] = es[0] as [string, Transit];
      await fc.assert(
        fc.asyncProperty(
          fc.uint8Array({ maxLength: 512 }),
          fc.nat(),
          fc.integer({ min: 0, max: 7 }),
          fc.nat(),
          async (pt, pos, bit, cut) => {
            const { ciphertext } = await t.encrypt('k', { plaintext: pt });
            const { payload } = splitVersioned(ciphertext);
            const flipped = payload.slice();
            const i = pos % flipped.length;
            flipped[i] = (flipped[i] as number) ^ (1 << bit);
            for (const [, any] of es) {
              const e = await rejects(
                any.decrypt('k', { ciphertext: joinVersioned('vault', 1, flipped) }),
              );
              expect(e.code).toBe('invalid_request');
              const short = payload.subarray(0, cut % payload.length);
              const s = await rejects(
                any.decrypt('k', { ciphertext: joinVersioned('vault', 1, short) }),
              );
              expect(s.code).toBe('invalid_request');
            }
          },
        ),
        { numRuns: RUNS },
      );
    },
  );
});

describe('HMAC', () => {
  it.each(BACKENDS)(
    '%s: hmac verifies, any other input or algorithm does not',
    async (_name, backend) => {
      const clock = new FakeClock();
      const t = new Transit({
        storage: new MemoryStorage({ clock }),
        clock,
        crypto: backend,
        autoRotate: false,
      });
      await t.createKey('k');
      const algs = [
        'sha2-224',
        'sha2-256',
        'sha2-384',
        'sha2-512',
        'sha3-224',
        'sha3-256',
        'sha3-384',
        'sha3-512',
      ];
      await fc.assert(
        fc.asyncProperty(
          fc.uint8Array({ maxLength: 1024 }),
          fc.uint8Array({ maxLength: 1024 }),
          fc.constantFrom(...algs),
          fc.constantFrom(...algs),
          async (a, b, alg, other) => {
            const { hmac } = await t.hmac('k', { input: a, algorithm: alg });
            expect(
              (await t.verify('k', { input: bytesB64(a), hmac, hash_algorithm: alg })).valid,
            ).toBe(true);
            const same = bytesB64(a) === bytesB64(b);
            expect((await t.verify('k', { input: b, hmac, hash_algorithm: alg })).valid).toBe(same);
            expect((await t.verify('k', { input: a, hmac, hash_algorithm: other })).valid).toBe(
              alg === other,
            );
          },
        ),
        { numRuns: RUNS },
      );
    },
  );
});

describe('batches', () => {
  it('a batch gives what single calls give, item by item', async () => {
    const es = await engines('aes256-gcm96', 'derived');
    const [, t] = es[0] as [string, Transit];
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            pt: fc.uint8Array({ maxLength: 128 }),
            ctx: contextArb,
            ref: fc.string({ maxLength: 8 }),
          }),
          {
            minLength: 1,
            maxLength: 20,
          },
        ),
        async (items) => {
          const enc = await t.encrypt('k', {
            batch_input: items.map((i) => ({ plaintext: i.pt, context: i.ctx, reference: i.ref })),
          });
          expect(enc.batch_results.map((r) => r.reference)).toEqual(items.map((i) => i.ref));
          const dec = await t.decrypt('k', {
            batch_input: enc.batch_results.map((r, idx) => ({
              ciphertext: r.ciphertext as string,
              context: (items[idx] as { ctx: Uint8Array }).ctx,
            })),
          });
          expect(dec.batch_results.map((r) => r.plaintext)).toEqual(
            items.map((i) => bytesB64(i.pt)),
          );
          for (const [idx, r] of enc.batch_results.entries()) {
            const it = items[idx] as { ctx: Uint8Array; pt: Uint8Array };
            expect(
              (await t.decrypt('k', { ciphertext: r.ciphertext as string, context: it.ctx }))
                .plaintext,
            ).toBe(bytesB64(it.pt));
          }
        },
      ),
      { numRuns: RUNS },
    );
  });
});
