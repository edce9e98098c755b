/**
 * Concurrency (issue 9): 1,000 concurrent mixed operations on one key —
 * rotate, encrypt, decrypt, read, config (min versions) and trim — started
 * together, in an order fast-check generates, alternating between two
 * engines on the same storage (two app instances: the per-key lock serialises
 * within one, compare-and-set and watch invalidation across them), and every
 * invariant checked:
 *
 * - versions are contiguous: the key lists exactly min_available_version
 *   (or 1) … latest_version, and latest_version is 1 + the successful rotations;
 * - every encrypt returns a version that existed, and decrypting what it
 *   returned gives the plaintext back — unless a trim or a
 *   min_decryption_version (set by some operation of the run) above that
 *   version says it may not, and then only with the policy's "too old"
 *   refusal, never an authentication failure;
 * - at the end, each ciphertext decrypts iff its version is at least the
 *   final min_decryption_version and min_available_version;
 * - every failure is a TransitError `invalid_request` (a refused config or trim).
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { TransitError } from '../../src/errors.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { Transit } from '../../src/transit/transit.js';

const OPS = 1_000;
const ROUNDS = process.env.FUZZ_LONG === '1' ? 50 : 4;

type Op =
  | { kind: 'rotate' }
  | { kind: 'encrypt'; text: number }
  | { kind: 'decrypt'; pick: number }
  | { kind: 'read' }
  | { kind: 'config'; dec: number; enc: number }
  | { kind: 'trim'; back: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: 'rotate' as const }) },
  { weight: 5, arbitrary: fc.nat().map((text) => ({ kind: 'encrypt' as const, text })) },
  { weight: 5, arbitrary: fc.nat().map((pick) => ({ kind: 'decrypt' as const, pick })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'read' as const }) },
  {
    weight: 2,
    arbitrary: fc
      .record({ dec: fc.nat(6), enc: fc.nat(6) })
      .map((r) => ({ kind: 'config' as const, ...r })),
  },
  { weight: 1, arbitrary: fc.nat(4).map((back) => ({ kind: 'trim' as const, back })) },
);

const shared = new MemoryStorage();
const transit = new Transit({ storage: shared, autoRotate: false });
/** A second engine on the same storage (another app instance): writes race through compareAndSet. */
const other = new Transit({ storage: shared, autoRotate: false });
afterAll(() => Promise.all([transit.close(), other.close()]));
const totals = {
  ops: 0,
  rotations: 0,
  encrypts: 0,
  decrypts: 0,
  configs: 0,
  trims: 0,
  refused: 0,
  tooOld: 0,
};

const b64 = (s: string) => Buffer.from(s).toString('base64');
const versionOf = (ct: string) => Number(/^vault:v(\d+):/.exec(ct)?.[1]);

/**
 * Versions the key lists (as Vault: from the oldest one still decryptable),
 * checked contiguous up to its latest.
 */
function assertContiguous(info: {
  keys: Record<string, unknown>;
  latest_version: number;
  min_available_version: number;
  min_decryption_version: number;
}): void {
  const listed = Object.keys(info.keys)
    .map(Number)
    .sort((a, b) => a - b);
  const first = Math.max(1, info.min_available_version, info.min_decryption_version);
  const want = Array.from({ length: info.latest_version - first + 1 }, (_, i) => first + i);
  expect(listed).toEqual(want);
}

async function round(name: string, ops: readonly Op[]): Promise<void> {
  await transit.createKey(name);
  const encrypted: { ct: string; pt: string }[] = [];
  // Ciphertexts under ten versions exist before the concurrent part starts.
  for (let v = 1; v <= 10; v++) {
    if (v > 1) await transit.rotateKey(name);
    for (let i = 0; i < 10; i++) {
      const pt = b64(`seed ${v}.${i}`);
      encrypted.push({ ct: (await transit.encrypt(name, { plaintext: pt })).ciphertext, pt });
    }
  }
  let rotations = 9;
  // Every min_decryption_version / min_available_version any operation asked for.
  const raisedTo: number[] = [];
  const expectRefusal = (e: unknown): void => {
    if (!(e instanceof TransitError) || e.code !== 'invalid_request') throw e;
    totals.refused++;
  };

  await Promise.all(
    ops.map(async (op, i) => {
      totals.ops++;
      const t = i % 2 === 0 ? transit : other;
      switch (op.kind) {
        case 'rotate': {
          const info = await t.rotateKey(name);
          rotations++;
          totals.rotations++;
          assertContiguous(info);
          return;
        }
        case 'encrypt': {
          const pt = b64(`text ${op.text}`);
          const { ciphertext } = await t.encrypt(name, { plaintext: pt });
          totals.encrypts++;
          expect(versionOf(ciphertext)).toBeGreaterThanOrEqual(1);
          encrypted.push({ ct: ciphertext, pt });
          return;
        }
        case 'decrypt': {
          // Let some of the run go first, so that run's own ciphertexts are picked too.
          await new Promise((r) => setImmediate(r));
          const item = encrypted[op.pick % Math.max(1, encrypted.length)];
          if (!item) return;
          totals.decrypts++;
          try {
            expect((await t.decrypt(name, { ciphertext: item.ct })).plaintext).toBe(item.pt);
          } catch (e) {
            // Only the policy may refuse, and only if something asked for it.
            expect(e).toBeInstanceOf(TransitError);
            expect((e as TransitError).message).toMatch(/disallowed by policy \(too old\)/);
            expect(raisedTo.some((v) => v > versionOf(item.ct))).toBe(true);
            totals.tooOld++;
          }
          return;
        }
        case 'read': {
          assertContiguous(await t.readKey(name));
          return;
        }
        case 'config': {
          const { latest_version } = await t.readKey(name);
          const dec = Math.max(1, latest_version - op.dec);
          const enc = Math.max(dec, latest_version - op.enc);
          raisedTo.push(dec);
          try {
            assertContiguous(
              await t.updateKeyConfig(name, {
                min_decryption_version: dec,
                min_encryption_version: enc,
              }),
            );
            totals.configs++;
          } catch (e) {
            expectRefusal(e);
          }
          return;
        }
        case 'trim': {
          const info = await t.readKey(name);
          const limit = Math.min(info.min_decryption_version, info.min_encryption_version);
          const to = Math.max(1, limit - op.back);
          raisedTo.push(to);
          try {
            assertContiguous(await t.trimKey(name, { min_available_version: to }));
            totals.trims++;
          } catch (e) {
            expectRefusal(e);
          }
          return;
        }
      }
    }),
  );

  const final = await transit.readKey(name);
  assertContiguous(final);
  expect(final.latest_version).toBe(1 + rotations);
  const floor = Math.max(final.min_decryption_version, final.min_available_version);
  for (const { ct, pt } of encrypted) {
    const v = versionOf(ct);
    expect(v).toBeLessThanOrEqual(final.latest_version);
    if (v >= floor) {
      expect((await transit.decrypt(name, { ciphertext: ct })).plaintext).toBe(pt);
    } else {
      await expect(transit.decrypt(name, { ciphertext: ct })).rejects.toMatchObject({
        code: 'invalid_request',
        message: expect.stringMatching(/too old/),
      });
    }
  }
  // Every version from min_available_version up is still there: lower the
  // decryption floor to it, and the key lists them all and decrypts them all.
  const oldest = Math.max(1, final.min_available_version);
  const reopened = await transit.updateKeyConfig(name, {
    min_decryption_version: oldest,
    min_encryption_version: Math.max(oldest, final.min_encryption_version),
  });
  assertContiguous(reopened);
  expect(Object.keys(reopened.keys)).toHaveLength(final.latest_version - oldest + 1);
  for (const { ct, pt } of encrypted) {
    if (versionOf(ct) < oldest) continue;
    expect((await transit.decrypt(name, { ciphertext: ct })).plaintext).toBe(pt);
  }
}

describe(`concurrency: ${OPS} concurrent mixed operations on one key`, () => {
  it('keeps versions contiguous and every permitted ciphertext decryptable', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: OPS, maxLength: OPS }), (ops) =>
        round(`c${n++}`, ops),
      ),
      { numRuns: ROUNDS, endOnFailure: true },
    );
    console.log(`concurrency: ${JSON.stringify(totals)}`);
    expect(totals.ops).toBeGreaterThanOrEqual(OPS * ROUNDS);
    expect(totals.rotations).toBeGreaterThan(0);
    expect(totals.decrypts).toBeGreaterThan(0);
    expect(totals.trims).toBeGreaterThan(0);
    expect(totals.tooOld).toBeGreaterThan(0);
  });
});
