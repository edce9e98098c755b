/**
 * Known-answer vectors, the summary (issue 9): every Wycheproof file vendored
 * in `test/vectors/wycheproof/` is either run by a runner under
 * `test/crypto/` on every backend of `test/helpers/backends.ts` (checked by
 * reading the runner: it names the file and loops over the backends), or
 * listed here with the reason it is not. A new file in the folder fails this
 * test until it gets a runner or a reason. The totals per backend are
 * printed from the files themselves: the runners assert every case of a
 * file (their own count checks fail otherwise), valid, invalid and
 * acceptable alike.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import {
  REPO_ROOT,
  readVectorFile,
  readWycheproofJson,
  vectorFileNames,
  WYCHEPROOF_DIR,
  WYCHEPROOF_MLDSA_DIR,
} from '../helpers/vectors.js';

/** Runner (relative to the repo) of each file run on every backend. */
const ON_EVERY_BACKEND: Readonly<Record<string, string>> = {
  'aes_gcm_test.json': 'test/crypto/wycheproof.test.ts',
  'chacha20_poly1305_test.json': 'test/crypto/wycheproof.test.ts',
  'xchacha20_poly1305_test.json': 'test/crypto/wycheproof.test.ts',
  'hkdf_sha256_test.json': 'test/crypto/wycheproof.test.ts',
  'hmac_sha224_test.json': 'test/crypto/wycheproof.test.ts',
  'hmac_sha256_test.json': 'test/crypto/wycheproof.test.ts',
  'hmac_sha384_test.json': 'test/crypto/wycheproof.test.ts',
  'hmac_sha512_test.json': 'test/crypto/wycheproof.test.ts',
  'hmac_sha3_256_test.json': 'test/crypto/wycheproof.test.ts',
  'hmac_sha3_512_test.json': 'test/crypto/wycheproof.test.ts',
  'ecdsa_secp256r1_sha256_test.json': 'test/crypto/wycheproof-signatures.test.ts',
  'ecdsa_secp256r1_sha256_p1363_test.json': 'test/crypto/wycheproof-signatures.test.ts',
  'ecdsa_secp384r1_sha384_test.json': 'test/crypto/wycheproof-signatures.test.ts',
  'ecdsa_secp384r1_sha384_p1363_test.json': 'test/crypto/wycheproof-signatures.test.ts',
  'ecdsa_secp521r1_sha512_test.json': 'test/crypto/wycheproof-signatures.test.ts',
  'ecdsa_secp521r1_sha512_p1363_test.json': 'test/crypto/wycheproof-signatures.test.ts',
  'ed25519_test.json': 'test/crypto/wycheproof-signatures.test.ts',
  'rsa_signature_2048_sha256_test.json': 'test/crypto/wycheproof-signatures.test.ts',
  'rsa_signature_3072_sha384_test.json': 'test/crypto/wycheproof-signatures.test.ts',
  'rsa_signature_4096_sha512_test.json': 'test/crypto/wycheproof-signatures.test.ts',
  'rsa_pss_2048_sha256_mgf1_32_test.json': 'test/crypto/wycheproof-signatures.test.ts',
  'rsa_pss_4096_sha512_mgf1_64_test.json': 'test/crypto/wycheproof-signatures.test.ts',
  'rsa_oaep_2048_sha256_mgf1sha256_test.json': 'test/crypto/wycheproof-signatures.test.ts',
  'rsa_oaep_3072_sha256_mgf1sha256_test.json': 'test/crypto/wycheproof-signatures.test.ts',
  'rsa_oaep_4096_sha256_mgf1sha256_test.json': 'test/crypto/wycheproof-signatures.test.ts',
};

/** Files not run per backend, with the reason (nothing is faked). */
const NOT_PER_BACKEND: Readonly<Record<string, { runner?: string; reason: string }>> = {
  'aes_kwp_test.json': {
    runner: 'test/crypto/keywrap.test.ts',
    reason:
      'AES-KWP is not a CryptoBackend primitive: one implementation (noble aeskwp, src/crypto/keywrap.ts) serves every runtime for BYOK import; its runner asserts every case once and cross-checks node:crypto id-aes*-wrap-pad and the openssl CLI',
  },
};

/** Runner of each ML-DSA file (`test/vectors/wycheproof-mldsa/`), all run on every backend. */
const MLDSA_ON_EVERY_BACKEND: Readonly<Record<string, string>> = Object.fromEntries(
  ['44', '65', '87'].flatMap((l) =>
    ['sign_seed', 'verify'].map((k) => [
      `mldsa_${l}_${k}_test.json`,
      'test/crypto/wycheproof-mldsa.test.ts',
    ]),
  ),
);

interface Counts {
  valid: number;
  invalid: number;
  acceptable: number;
}

interface WycheproofFile {
  numberOfTests: number;
  testGroups: { tests: { result: string }[] }[];
}

function countCases(file: string, dir = WYCHEPROOF_DIR): Counts & { declared: number } {
  const data =
    dir === WYCHEPROOF_DIR
      ? readWycheproofJson<WycheproofFile>(file)
      : (JSON.parse(readVectorFile(dir, file)) as WycheproofFile);
  const c = { valid: 0, invalid: 0, acceptable: 0, declared: data.numberOfTests };
  for (const g of data.testGroups) {
    for (const t of g.tests) {
      if (t.result !== 'valid' && t.result !== 'invalid' && t.result !== 'acceptable') {
        throw new Error(`${file}: unknown result ${t.result}`);
      }
      c[t.result]++;
    }
  }
  return c;
}

describe('Wycheproof: every file has a runner on every backend, or a stated reason', () => {
  const files = vectorFileNames(readdirSync(WYCHEPROOF_DIR));

  it('the folder holds the expected files, and each is accounted for', () => {
    expect(files.length).toBeGreaterThan(20);
    const accounted = [...Object.keys(ON_EVERY_BACKEND), ...Object.keys(NOT_PER_BACKEND)];
    expect([...files].sort()).toEqual(accounted.sort());
  });

  it('each runner names its files and loops over every backend', () => {
    const runners = new Set(Object.values(ON_EVERY_BACKEND));
    for (const runner of runners) {
      const src = readFileSync(path.join(REPO_ROOT, runner), 'utf8');
      expect(src, runner).toMatch(/for \(const \[\w+, \w+\] of BACKENDS\)/);
      for (const [file, r] of Object.entries(ON_EVERY_BACKEND)) {
        if (r === runner)
          expect(src, `${runner} runs ${file}`).toContain(`'${file.replace(/\.json$/, '')}`);
      }
    }
    const kwp = NOT_PER_BACKEND['aes_kwp_test.json'];
    const kwpSrc = readFileSync(path.join(REPO_ROOT, kwp?.runner ?? ''), 'utf8');
    expect(kwpSrc).toContain("'aes_kwp_test.json'");
  });

  it('prints the totals per backend', () => {
    const perFile = new Map<string, Counts>();
    for (const file of files) {
      const c = countCases(file);
      expect(c.valid + c.invalid + c.acceptable, file).toBe(c.declared);
      perFile.set(file, c);
    }
    const rows: string[] = [];
    const pad = (s: string | number, n: number) => String(s).padEnd(n);
    rows.push(
      `${pad('backend', 10)}${pad('files', 7)}${pad('valid', 8)}${pad('invalid', 9)}${pad('accept.', 9)}total`,
    );
    const sum = (names: string[]): Counts =>
      names.reduce(
        (a, f) => {
          const c = perFile.get(f) as Counts;
          return {
            valid: a.valid + c.valid,
            invalid: a.invalid + c.invalid,
            acceptable: a.acceptable + c.acceptable,
          };
        },
        { valid: 0, invalid: 0, acceptable: 0 },
      );
    const every = Object.keys(ON_EVERY_BACKEND);
    for (const [name] of BACKENDS) {
      const t = sum(every);
      rows.push(
        `${pad(name, 10)}${pad(every.length, 7)}${pad(t.valid, 8)}${pad(t.invalid, 9)}${pad(t.acceptable, 9)}${t.valid + t.invalid + t.acceptable}`,
      );
    }
    const kwp = sum(['aes_kwp_test.json']);
    rows.push(
      `${pad('one impl.', 10)}${pad(1, 7)}${pad(kwp.valid, 8)}${pad(kwp.invalid, 9)}${pad(kwp.acceptable, 9)}${kwp.valid + kwp.invalid + kwp.acceptable}  (aes_kwp_test.json)`,
    );
    for (const [file, { reason }] of Object.entries(NOT_PER_BACKEND))
      rows.push(`  ${file}: ${reason}`);
    console.log(`Wycheproof cases asserted per backend\n${rows.join('\n')}`);
    expect(BACKENDS.map(([n]) => n)).toEqual(['node', 'noble']);
  });
});

describe('Wycheproof ML-DSA: every file has a runner on every backend', () => {
  const files = vectorFileNames(readdirSync(WYCHEPROOF_MLDSA_DIR));

  it('the folder holds the six files, each run by a runner that loops over every backend', () => {
    expect([...files].sort()).toEqual(Object.keys(MLDSA_ON_EVERY_BACKEND).sort());
    for (const runner of new Set(Object.values(MLDSA_ON_EVERY_BACKEND))) {
      const src = readFileSync(path.join(REPO_ROOT, runner), 'utf8');
      expect(src, runner).toMatch(/for \(const \[\w+, \w+\] of BACKENDS\)/);
      for (const file of files)
        expect(src, `${runner} runs ${file}`).toContain(`'${file.replace(/\.json$/, '')}`);
    }
  });

  it('prints the totals per backend', () => {
    const t = { valid: 0, invalid: 0, acceptable: 0 };
    for (const file of files) {
      const c = countCases(file, WYCHEPROOF_MLDSA_DIR);
      expect(c.valid + c.invalid + c.acceptable, file).toBe(c.declared);
      t.valid += c.valid;
      t.invalid += c.invalid;
      t.acceptable += c.acceptable;
    }
    const rows = BACKENDS.map(
      ([name]) =>
        `${name.padEnd(10)}${String(files.length).padEnd(7)}${String(t.valid).padEnd(8)}${String(t.invalid).padEnd(9)}${String(t.acceptable).padEnd(9)}${t.valid + t.invalid + t.acceptable}`,
    );
    console.log(`Wycheproof ML-DSA cases asserted per backend\n${rows.join('\n')}`);
    expect(t.valid + t.invalid).toBe(918);
  });
});
