/**
 * Wycheproof ML-DSA (C2SP/wycheproof, Apache-2.0; vendored in
 * test/vectors/wycheproof-mldsa) through the ML-DSA key family, on every
 * backend: the key comes in as upstream's seed-form PKCS#8 (BYOK import
 * path) or SPKI (public-key import path), signatures go through the
 * family's `sign`/`verify` as the engine calls them.
 *
 * Sign-from-seed files: the imported seed gives upstream's public key and
 * re-encodes to upstream's PKCS#8 byte for byte; deterministic signatures
 * (with the case's FIPS 204 context) equal `sig`; `Internal` cases sign μ
 * (`prehashed` = external μ) and every case that gives both `msg` and `mu`
 * must give the same signature both ways; the one `rnd` case is signed with
 * that `rnd` through the crypto layer (the family never takes a caller's
 * randomness); every valid signature verifies. Invalid cases (a seed of the
 * wrong length, a context over 255 bytes) must be refused.
 *
 * Verify files: `valid` must verify, `invalid` must be rejected (false, or a
 * refused public key / context). There are no `acceptable` cases; any other
 * result kind fails the test.
 */
import { describe, expect, it } from 'vitest';
import { mlDsaSign } from '../../src/crypto/ml-dsa.js';
import { encodePkcs8PrivateKey, pemEncode } from '../../src/crypto/pki/keys.js';
import { familyOf, type SignOptions } from '../../src/keys/asymmetric/family.js';
import type { AsymmetricMaterial } from '../../src/keys/asymmetric/material.js';
import { keyType, loadAsymmetricFamilies } from '../../src/keys/key-types.js';
import { BACKENDS } from '../helpers/backends.js';
import { readVectorFile, WYCHEPROOF_MLDSA_DIR } from '../helpers/vectors.js';

interface Case {
  tcId: number;
  comment: string;
  flags: string[];
  msg?: string;
  mu?: string;
  ctx?: string;
  rnd?: string;
  sig: string;
  result: string;
}
interface Group {
  type: string;
  privateSeed?: string;
  privateKeyPkcs8?: string;
  publicKey?: string;
  publicKeyDer?: string;
  tests: Case[];
}
interface VectorFile {
  algorithm: string;
  numberOfTests: number;
  testGroups: Group[];
}

const hex = (s: string | undefined): Uint8Array => Buffer.from(s ?? '', 'hex');
const toHex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const load = (name: string): VectorFile =>
  JSON.parse(readVectorFile(WYCHEPROOF_MLDSA_DIR, `${name}.json`)) as VectorFile;

const BASE: SignOptions = {
  hash: 'sha256',
  prehashed: false,
  signatureAlgorithm: 'pss',
  saltLength: 0,
  marshaling: 'asn1',
};
const opts = (t: Case, prehashed = false, deterministic = true): SignOptions => ({
  ...BASE,
  prehashed,
  deterministic,
  mlDsaContext: t.ctx === undefined ? undefined : hex(t.ctx),
});

const LEVELS = [44, 65, 87] as const;
const FILES = {
  44: ['mldsa_44_sign_seed_test', 'mldsa_44_verify_test'],
  65: ['mldsa_65_sign_seed_test', 'mldsa_65_verify_test'],
  87: ['mldsa_87_sign_seed_test', 'mldsa_87_verify_test'],
} as const;

/** Asserted cases per `backend/file`, printed at the end. */
const tally = new Map<string, { valid: number; invalid: number }>();
const count = (key: string, result: string) => {
  const t = tally.get(key) ?? { valid: 0, invalid: 0 };
  if (result !== 'valid' && result !== 'invalid') throw new Error(`unknown result ${result}`);
  t[result]++;
  tally.set(key, t);
};

/** Whether `fn` is refused (throws) or returns false. */
async function rejected(fn: () => Promise<boolean>): Promise<boolean> {
  try {
    return !(await fn());
  } catch {
    return true;
  }
}

// The key-pair families load on demand (issue 22); the cases below read one directly.
await loadAsymmetricFamilies();

describe('Wycheproof ML-DSA through the key family', () => {
  for (const [bname, b] of BACKENDS) {
    for (const level of LEVELS) {
      const info = keyType(`mldsa-${level}`);
      const f = familyOf(info);
      const [signFile, verifyFile] = FILES[level];

      it(`${bname}: ${signFile}`, async () => {
        const data = load(signFile);
        expect(data.algorithm).toBe(`ML-DSA-${level}`);
        let n = 0;
        for (const g of data.testGroups) {
          const seed = hex(g.privateSeed);
          if (seed.length !== 32) {
            // The crypto layer refuses the seed; PKCS#8 import refuses its encoding, if any.
            if (g.privateKeyPkcs8) {
              await expect(f.importPrivate(b, info, hex(g.privateKeyPkcs8))).rejects.toThrow();
            }
            for (const t of g.tests) {
              n++;
              expect(t.result, `tcId ${t.tcId}`).toBe('invalid');
              expect(() => mlDsaSign({ level, seed }, hex(t.msg))).toThrow(RangeError);
              count(`${bname}/${signFile}`, t.result);
            }
            continue;
          }
          // Groups without upstream PKCS#8 come in through our own seed-form encoding.
          const pkcs8 =
            g.privateKeyPkcs8 === undefined
              ? encodePkcs8PrivateKey({ type: 'ml-dsa', key: { level, seed } })
              : hex(g.privateKeyPkcs8);
          const imported = await f.importPrivate(b, info, pkcs8);
          expect(toHex(imported.key)).toBe(g.privateSeed);
          const m = imported.asymmetric as AsymmetricMaterial;
          expect(toHex(Buffer.from(f.exportPublic(m, 'raw'), 'base64'))).toBe(g.publicKey);
          const priv = f.privateKey(m);
          expect(priv && toHex(encodePkcs8PrivateKey(priv))).toBe(toHex(pkcs8));
          for (const t of g.tests) {
            n++;
            const where = `tcId ${t.tcId} (${t.comment})`;
            count(`${bname}/${signFile}`, t.result);
            if (t.result === 'invalid') {
              expect(t.msg, where).toBeDefined();
              await expect(f.sign(b, m, hex(t.msg), opts(t)), where).rejects.toThrow(RangeError);
              continue;
            }
            expect(t.result, where).toBe('valid');
            if (t.rnd !== undefined) {
              const sig = mlDsaSign({ level, seed }, hex(t.msg), {
                rnd: hex(t.rnd),
                context: t.ctx === undefined ? undefined : hex(t.ctx),
              });
              expect(toHex(sig), where).toBe(t.sig);
            } else if (t.msg !== undefined) {
              expect(toHex(await f.sign(b, m, hex(t.msg), opts(t))), where).toBe(t.sig);
            }
            if (t.mu !== undefined && t.rnd === undefined) {
              const viaMu = await f.sign(b, m, hex(t.mu), {
                ...opts(t, true),
                mlDsaContext: undefined,
              });
              expect(toHex(viaMu), `${where} via mu`).toBe(t.sig);
            }
            if (t.msg !== undefined) {
              expect(await f.verify(b, m, hex(t.msg), hex(t.sig), opts(t)), where).toBe(true);
              // Hedged (the default) signatures verify too, and differ from the deterministic one.
              const hedged = await f.sign(b, m, hex(t.msg), opts(t, false, false));
              expect(await f.verify(b, m, hex(t.msg), hedged, opts(t)), where).toBe(true);
            }
            if (t.mu !== undefined) {
              const o = { ...opts(t, true), mlDsaContext: undefined };
              expect(await f.verify(b, m, hex(t.mu), hex(t.sig), o), `${where} mu`).toBe(true);
            }
          }
        }
        expect(n).toBe(data.numberOfTests);
      });

      it(`${bname}: ${verifyFile}`, async () => {
        const data = load(verifyFile);
        expect(data.algorithm).toBe(`ML-DSA-${level}`);
        let n = 0;
        for (const g of data.testGroups) {
          let m: AsymmetricMaterial | undefined;
          try {
            m = f.importPublic(info, pemEncode(hex(g.publicKeyDer), 'PUBLIC KEY')).asymmetric;
          } catch {
            m = undefined;
          }
          for (const t of g.tests) {
            n++;
            const where = `tcId ${t.tcId} (${t.comment})`;
            count(`${bname}/${verifyFile}`, t.result);
            if (!m) {
              expect(t.result, `${where}: public key refused`).toBe('invalid');
              continue;
            }
            const key = m;
            const check = () => f.verify(b, key, hex(t.msg), hex(t.sig), opts(t));
            if (t.result === 'valid') expect(await check(), where).toBe(true);
            else {
              expect(t.result, where).toBe('invalid');
              expect(await rejected(check), where).toBe(true);
            }
          }
        }
        expect(n).toBe(data.numberOfTests);
      });
    }
  }

  it('prints the cases asserted per backend and file', () => {
    const rows = [...tally].map(
      ([k, v]) => `${k.padEnd(36)}valid ${v.valid}  invalid ${v.invalid}`,
    );
    console.log(`Wycheproof ML-DSA cases asserted\n${rows.join('\n')}`);
    expect(tally.size).toBe(BACKENDS.length * 6);
  });
});
