/**
 * Structure-aware library fuzzing (issue 9), on both crypto backends: inputs
 * that get past the outer decoding into the parsers behind it.
 *
 * - `restoreKey` of a real backup (symmetric, derived, Ed25519, ECDSA, RSA;
 *   two versions each) with one field replaced or deleted;
 * - `importKey` of random material correctly wrapped for the engine's
 *   wrapping key (RSA-OAEP + AES-KWP), for every key type.
 *
 * Each call is refused with `invalid_request` and writes nothing, or yields a
 * sound key (see `usable`). Found here: asn1js throws plain Errors on some
 * malformed time values, which reached callers (HTTP 500) through PKCS#8
 * parsing on import and through ECDSA signature shape checks on verify.
 */
import { constants, createPublicKey, publicEncrypt, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyWrapPad } from '../../src/crypto/keywrap.js';
import { TransitError } from '../../src/errors.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { Transit } from '../../src/transit/transit.js';
import { BACKENDS } from '../helpers/backends.js';
import { settle } from './fuzz-server.js';

const LONG = process.env.FUZZ_LONG === '1';
const RUNS = LONG ? 20_000 : 1_000;
/** Per-test time limit: the default in CI; hours with FUZZ_LONG. */
const TIMEOUT = LONG ? 6 * 3600_000 : 30_000;
const b64 = (u: Uint8Array) => Buffer.from(u).toString('base64');

for (const [backendName, backend] of BACKENDS) {
  describe(`structure-aware library fuzzing [${backendName}]`, () => {
    const storage = new MemoryStorage();
    const transit = new Transit({ storage, crypto: backend, autoRotate: false });
    let writes = 0;

    beforeAll(async () => {
      await transit.createKey('ec', { type: 'ecdsa-p384' });
      await storage.watch('', () => {
        writes++;
      });
    });
    afterAll(() => transit.close());

    /**
     * An accepted key is sound: it reads, and each operation either works —
     * a ciphertext decrypts to its plaintext, a signature verifies — or is
     * refused with `invalid_request` (a mutated flag may legitimately make a
     * convergent key that needs a nonce, or a public-only key that cannot sign).
     */
    async function usable(name: string): Promise<void> {
      const info = await transit.readKey(name);
      const pt = b64(new TextEncoder().encode('usable'));
      const context = info.derived ? b64(new TextEncoder().encode('ctx')) : undefined;
      const refused = (e: unknown) => {
        if (!(e instanceof TransitError) || e.code !== 'invalid_request') throw e;
        return undefined;
      };
      if (info.supports_encryption && info.supports_decryption) {
        const ct = await transit.encrypt(name, { plaintext: pt, context }).catch(refused);
        if (ct) {
          const out = await transit.decrypt(name, { ciphertext: ct.ciphertext, context });
          expect(out.plaintext).toBe(pt);
        }
      } else if (info.supports_signing) {
        const sig = await transit.sign(name, { input: pt, context }).catch(refused);
        if (sig) {
          const out = await transit.verify(name, { input: pt, signature: sig.signature, context });
          expect(out).toEqual({ valid: true });
        }
      }
    }

    it(
      'regressions: asn1js throwing on a malformed time value is invalid_request',
      async () => {
        // 0x18 = GeneralizedTime whose content is not a date: asn1js throws a plain Error.
        const bad = Uint8Array.of(0x18, 0x03, 0x61, 0x62, 0x63);
        await expect(
          transit.verify('ec', { input: 'aGk=', signature: `vault:v1:${b64(bad)}` }),
        ).rejects.toMatchObject({ code: 'invalid_request' });
        const { public_key } = await transit.getWrappingKey();
        const ephemeral = randomBytes(32);
        const head = publicEncrypt(
          {
            key: createPublicKey(public_key),
            padding: constants.RSA_PKCS1_OAEP_PADDING,
            oaepHash: 'sha256',
          },
          ephemeral,
        );
        const material = Uint8Array.of(
          0x30,
          0x0e,
          0x18,
          0x0c,
          ...new TextEncoder().encode('not-a-date!!'),
        );
        const ciphertext = Buffer.concat([head, keyWrapPad(ephemeral, material)]).toString(
          'base64',
        );
        await expect(
          transit.importKey('regress-time', { type: 'ed25519', ciphertext }),
        ).rejects.toMatchObject({ code: 'invalid_request' });
      },
      TIMEOUT,
    );

    it(
      'restoreKey of a real backup with one field mutated: invalid_request or a sound key',
      async () => {
        // A backup of each kind of key (symmetric, derived, Ed25519, ECDSA, RSA), two versions each.
        const docs: { doc: unknown; paths: (string | number)[][] }[] = [];
        for (const [type, opts] of [
          ['aes256-gcm96', {}],
          ['aes256-gcm96', { derived: true }],
          ['ed25519', {}],
          ['ecdsa-p256', {}],
          ['rsa-2048', {}],
        ] as const) {
          const name = `bk-${docs.length}`;
          await transit.createKey(name, {
            type,
            ...opts,
            exportable: true,
            allow_plaintext_backup: true,
          });
          await transit.rotateKey(name);
          const { backup } = await transit.backupKey(name);
          const doc = JSON.parse(Buffer.from(backup, 'base64').toString('utf8')) as unknown;
          const paths: (string | number)[][] = [];
          const walk = (v: unknown, at: (string | number)[]) => {
            paths.push(at);
            if (Array.isArray(v)) {
              for (const [i, x] of v.entries()) walk(x, [...at, i]);
            } else if (typeof v === 'object' && v !== null)
              for (const [k, x] of Object.entries(v)) walk(x, [...at, k]);
          };
          walk(doc, []);
          docs.push({ doc, paths });
        }
        let n = 0;
        await fc.assert(
          fc.asyncProperty(
            fc.nat(),
            fc.nat(),
            fc.oneof(
              fc.anything({ maxDepth: 2 }),
              fc.constant(undefined),
              fc.uint8Array({ maxLength: 80 }).map(b64),
              fc.integer({ min: -2, max: 5 }),
            ),
            async (which, pick, value) => {
              const { doc, paths } = docs[which % docs.length] as (typeof docs)[number];
              const copy = structuredClone(doc) as Record<string | number, unknown>;
              const at = paths[pick % paths.length] as (string | number)[];
              let target: Record<string | number, unknown> = copy;
              for (const k of at.slice(0, -1))
                target = target[k] as Record<string | number, unknown>;
              const last = at[at.length - 1];
              if (last === undefined) return; // the root itself
              if (value === undefined) delete target[last];
              else target[last] = value;
              const name = `mut${n++}`;
              const blob = Buffer.from(JSON.stringify(copy)).toString('base64');
              await settle();
              const before = writes;
              try {
                await transit.restoreKey({ backup: blob, name });
              } catch (e) {
                if (!(e instanceof TransitError) || e.code !== 'invalid_request') {
                  throw new Error(
                    `restore of a mutated backup (${at.join('.')}) threw ${String(e)}`,
                    {
                      cause: e,
                    },
                  );
                }
                await settle();
                expect(writes - before, `a refused restore wrote (${at.join('.')})`).toBe(0);
                return;
              }
              // Accepted (the mutation kept a sound key, maybe with other flags): it must work.
              await usable(name);
            },
          ),
          { numRuns: RUNS },
        );
      },
      TIMEOUT,
    );

    it(
      'importKey of well-wrapped random material: invalid_request or a working key',
      async () => {
        const { public_key } = await transit.getWrappingKey();
        const wrapping = createPublicKey(public_key);
        const wrap = (material: Uint8Array): string => {
          const ephemeral = randomBytes(32);
          const head = publicEncrypt(
            { key: wrapping, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
            ephemeral,
          );
          return Buffer.concat([head, keyWrapPad(ephemeral, material)]).toString('base64');
        };
        const TYPES = [
          'aes128-gcm96',
          'aes256-gcm96',
          'chacha20-poly1305',
          'xchacha20-poly1305',
          'ed25519',
          'ecdsa-p256',
          'rsa-2048',
          'hmac',
          'bogus',
        ];
        let n = 0;
        await fc.assert(
          fc.asyncProperty(
            fc.constantFrom(...TYPES),
            fc.oneof(
              fc.uint8Array({ minLength: 16, maxLength: 80 }),
              fc.constantFrom(16, 32, 64).map((k) => new Uint8Array(randomBytes(k))),
              // A DER SEQUENCE header over random bytes (PKCS#8-shaped junk).
              fc
                .uint8Array({ minLength: 14, maxLength: 120 })
                .map((u) => Uint8Array.of(0x30, u.length, ...u)),
            ),
            async (type, material) => {
              const name = `imp${n++}`;
              await settle();
              const before = writes;
              try {
                await transit.importKey(name, { type, ciphertext: wrap(material) });
              } catch (e) {
                if (!(e instanceof TransitError) || e.code !== 'invalid_request') {
                  throw new Error(
                    `import of ${type} (${material.length} bytes) threw ${String(e)}`,
                    {
                      cause: e,
                    },
                  );
                }
                await settle();
                expect(writes - before, 'a refused import wrote').toBe(0);
                return;
              }
              expect((await transit.readKey(name)).type).toBe(type);
              await usable(name);
            },
          ),
          { numRuns: RUNS / 5 },
        );
      },
      TIMEOUT,
    );
  });
}
