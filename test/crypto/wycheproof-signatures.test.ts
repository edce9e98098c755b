/**
 * Wycheproof (C2SP/wycheproof, Apache-2.0; vendored in test/vectors/wycheproof)
 * for the asymmetric primitives, on every backend: ECDSA P-256/384/521 (DER
 * and P1363), Ed25519, RSASSA-PKCS1-v1_5, RSASSA-PSS and RSAES-OAEP.
 *
 * Every RSA signature case runs twice per backend: `{ message }` (the native
 * one-pass path: OpenSSL / WebCrypto) and `{ digest }` (the prehashed path:
 * the shared RSA encodings on OpenSSL raw RSA / blinded BigInt RSA). ECDSA
 * cases run `{ message }` on both backends (OpenSSL / noble; see the comment
 * there). OAEP also runs through the noble backend's raw decoder.
 *
 * Result kinds, handled explicitly (noble-curves `nist.test.ts` style):
 * - `valid` must verify / decrypt to `msg`;
 * - `invalid` must be rejected;
 * - `acceptable` must be **rejected**: the only acceptable cases in these files
 *   are PKCS#1 DigestInfo without the NULL parameter ("MissingNull"), which Go
 *   (hence Vault) and OpenSSL reject. Any other acceptable flag fails the test,
 *   so that a new kind gets a human decision;
 * - any other result kind throws.
 *
 * Key material comes in as DER/PEM and is parsed with our PKI module (which
 * tests it as well); the JWK/hex forms cross-check the parse.
 *
 * `rsa_pkcs1_2048_test.json` (PKCS#1 v1.5 *encryption*) is deliberately not
 * loaded: transit does not implement PKCS#1 v1.5 encryption (Vault 1.14 and
 * OpenBao use OAEP only; node ≥ 20 disables PKCS#1 v1.5 decryption anyway).
 */
import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type AsymmetricBackend,
  type EcdsaSignatureFormat,
  RsaDecryptionError,
  type RsaPrivateKey,
} from '../../src/crypto/asymmetric-backend.js';
import type { HashName } from '../../src/crypto/backend.js';
import { rsaOaepDecryptRaw } from '../../src/crypto/noble/rsa.js';
import {
  decodePkcs1PublicKey,
  decodePkcs8PrivateKey,
  decodeSpki,
  pemDecode,
} from '../../src/crypto/pki/keys.js';
import { BACKENDS, fromHex, loadWycheproof, toHex } from './asymmetric-helpers.js';

interface Case {
  tcId: number;
  comment: string;
  flags: string[];
  msg: string;
  sig?: string;
  ct?: string;
  label?: string;
  result: string;
}
interface Group {
  type: string;
  sha?: string;
  mgfSha?: string;
  sLen?: number;
  publicKeyDer?: string;
  publicKeyPem?: string;
  publicKeyAsn?: string;
  publicKey?: { pk?: string };
  privateKeyPkcs8?: string;
  privateKeyPem?: string;
  privateKeyJwk?: { n: string };
  tests: Case[];
}
interface VectorFile {
  algorithm: string;
  numberOfTests: number;
  testGroups: Group[];
}

/** Tally per (backend, file). */
interface Tally {
  valid: number;
  invalid: number;
  acceptable: number;
  labelled: number;
  passed: number;
  failed: number[];
}
const tallies = new Map<string, Map<string, Tally>>();
function tally(backend: string, file: string): Tally {
  let perBackend = tallies.get(backend);
  if (perBackend === undefined) {
    perBackend = new Map();
    tallies.set(backend, perBackend);
  }
  let t = perBackend.get(file);
  if (t === undefined) {
    t = { valid: 0, invalid: 0, acceptable: 0, labelled: 0, passed: 0, failed: [] };
    perBackend.set(file, t);
  }
  return t;
}

/** The expected outcome of a case, by the rule in the header. */
function expected(c: Case, t: Tally): boolean {
  switch (c.result) {
    case 'valid':
      t.valid++;
      return true;
    case 'invalid':
      t.invalid++;
      return false;
    case 'acceptable':
      t.acceptable++;
      if (c.flags.some((f) => f !== 'MissingNull')) {
        throw new Error(
          `tcId ${c.tcId}: acceptable case with flags ${c.flags.join(',')} needs a decision`,
        );
      }
      return false;
    default:
      throw new Error(`tcId ${c.tcId}: unknown result kind ${c.result}`);
  }
}

const HASH: Record<string, HashName> = {
  'SHA-1': 'sha1',
  'SHA-256': 'sha256',
  'SHA-384': 'sha384',
  'SHA-512': 'sha512',
};
function hashOf(g: Group): HashName {
  const h = g.sha === undefined ? undefined : HASH[g.sha];
  if (h === undefined) throw new Error(`unexpected hash ${g.sha}`);
  return h;
}
const digest = (h: HashName, msg: Uint8Array): Uint8Array =>
  new Uint8Array(createHash(h).update(msg).digest());

/** Public key of a group, parsed from DER and cross-checked against the PEM form. */
function spkiOf(g: Group): ReturnType<typeof decodeSpki> {
  if (g.publicKeyDer === undefined || g.publicKeyPem === undefined)
    throw new Error('group without public key');
  const der = fromHex(g.publicKeyDer);
  expect(pemDecode(g.publicKeyPem, ['PUBLIC KEY']).der).toEqual(der);
  return decodeSpki(der);
}

type Verifier = (g: Group, c: Case, mode: Mode) => Promise<boolean>;

type Mode = 'message' | 'digest';

/** A verify-only file: each case in each mode; passes when every mode matches the expectation. */
async function runSignatureFile(
  name: string,
  backend: AsymmetricBackend,
  prepare: (g: Group) => Verifier,
  modes: readonly Mode[] = ['message', 'digest'],
) {
  const file = loadWycheproof<VectorFile>(name);
  const t = tally(backend.name, name);
  let count = 0;
  for (const g of file.testGroups) {
    const verify = prepare(g);
    for (const c of g.tests) {
      count++;
      const want = expected(c, t);
      const got: boolean[] = [];
      for (const mode of modes) got.push(await verify(g, c, mode));
      if (got.every((v) => v === want)) t.passed++;
      else t.failed.push(c.tcId);
    }
  }
  expect(count).toBe(file.numberOfTests);
  expect(t.failed, `${backend.name} ${name}: failing tcIds`).toEqual([]);
}

const ECDSA_FILES: ReadonlyArray<readonly [string, EcdsaSignatureFormat]> = [
  ['ecdsa_secp256r1_sha256_test', 'der'],
  ['ecdsa_secp256r1_sha256_p1363_test', 'p1363'],
  ['ecdsa_secp384r1_sha384_test', 'der'],
  ['ecdsa_secp384r1_sha384_p1363_test', 'p1363'],
  ['ecdsa_secp521r1_sha512_test', 'der'],
  ['ecdsa_secp521r1_sha512_p1363_test', 'p1363'],
];
const PKCS1_FILES = [
  'rsa_signature_2048_sha256_test',
  'rsa_signature_3072_sha384_test',
  'rsa_signature_4096_sha512_test',
];
const PSS_FILES = ['rsa_pss_2048_sha256_mgf1_32_test', 'rsa_pss_4096_sha512_mgf1_64_test'];
const OAEP_FILES = [
  'rsa_oaep_2048_sha256_mgf1sha256_test',
  'rsa_oaep_3072_sha256_mgf1sha256_test',
  'rsa_oaep_4096_sha256_mgf1sha256_test',
];

/** OAEP decryption: `valid` with an empty label decrypts to msg; a non-empty label must fail (transit's label is empty). */
async function runOaepFile(
  name: string,
  row: string,
  decrypt: (k: RsaPrivateKey, ct: Uint8Array) => Promise<Uint8Array>,
) {
  const file = loadWycheproof<VectorFile>(name);
  const t = tally(row, name);
  for (const g of file.testGroups) {
    expect([g.sha, g.mgfSha]).toEqual(['SHA-256', 'SHA-256']);
    if (
      g.privateKeyPkcs8 === undefined ||
      g.privateKeyPem === undefined ||
      g.privateKeyJwk === undefined
    ) {
      throw new Error('group without private key');
    }
    const parsed = decodePkcs8PrivateKey(fromHex(g.privateKeyPkcs8));
    if (parsed.type !== 'rsa') throw new Error('expected an RSA key');
    expect(decodePkcs8PrivateKey(pemDecode(g.privateKeyPem, ['PRIVATE KEY']).der)).toEqual(parsed);
    expect(BigInt(`0x${toHex(Buffer.from(g.privateKeyJwk.n, 'base64url'))}`)).toBe(parsed.key.n);
    for (const c of g.tests) {
      const labelled = (c.label ?? '') !== '';
      const want = expected(c, t) && !labelled;
      if (labelled) t.labelled++;
      let ok: boolean;
      try {
        const pt = await decrypt(parsed.key, fromHex(c.ct ?? ''));
        ok = want && toHex(pt) === c.msg;
      } catch (e) {
        if (!(e instanceof RsaDecryptionError)) throw e;
        ok = !want;
      }
      if (ok) t.passed++;
      else t.failed.push(c.tcId);
    }
  }
  expect(t.failed, `${row} ${name}: failing tcIds`).toEqual([]);
}

for (const [backendName, backend] of BACKENDS) {
  describe(`wycheproof signatures [${backendName}]`, () => {
    for (const [name, format] of ECDSA_FILES) {
      it(name, async () => {
        // ECDSA over a digest is the same @noble/curves call on both backends, and noble's
        // {message} mode is exactly {digest: H(message)}; noble verify costs 5-15 ms here. So
        // every case runs {message} on both backends (OpenSSL / noble); the {digest} dispatch
        // is covered by asymmetric-cross.test.ts.
        const modes: Mode[] = ['message'];
        await runSignatureFile(
          name,
          backend,
          (g) => {
            const pub = spkiOf(g);
            if (pub.type !== 'ec') throw new Error('expected an EC key');
            const h = hashOf(g);
            return (_g, c, mode) => {
              const msg = fromHex(c.msg);
              const data = mode === 'message' ? { message: msg } : { digest: digest(h, msg) };
              return backend.ecdsaVerify(pub.key, h, data, fromHex(c.sig ?? ''), format);
            };
          },
          modes,
        );
      });
    }

    it('ed25519_test', async () => {
      await runSignatureFile('ed25519_test', backend, (g) => {
        const pub = spkiOf(g);
        if (pub.type !== 'ed25519') throw new Error('expected an Ed25519 key');
        expect(toHex(pub.key)).toBe(g.publicKey?.pk);
        // Ed25519 has no prehashed mode in transit: both "modes" verify the message.
        return (_g, c) => backend.ed25519Verify(pub.key, fromHex(c.msg), fromHex(c.sig ?? ''));
      });
    });

    for (const name of PKCS1_FILES) {
      it(name, async () => {
        await runSignatureFile(name, backend, (g) => {
          const pub = spkiOf(g);
          if (pub.type !== 'rsa') throw new Error('expected an RSA key');
          expect(decodePkcs1PublicKey(fromHex(g.publicKeyAsn ?? ''))).toEqual(pub.key);
          const h = hashOf(g);
          return (_g, c, mode) => {
            const msg = fromHex(c.msg);
            const data = mode === 'message' ? { message: msg } : { digest: digest(h, msg) };
            return backend.rsaVerifyPkcs1(pub.key, h, data, fromHex(c.sig ?? ''));
          };
        });
      });
    }

    for (const name of PSS_FILES) {
      it(name, async () => {
        await runSignatureFile(name, backend, (g) => {
          const pub = spkiOf(g);
          if (pub.type !== 'rsa') throw new Error('expected an RSA key');
          expect(g.mgfSha).toBe(g.sha);
          const h = hashOf(g);
          const sLen = g.sLen ?? -1;
          return async (_g, c, mode) => {
            const msg = fromHex(c.msg);
            const sig = fromHex(c.sig ?? '');
            const data = mode === 'message' ? { message: msg } : { digest: digest(h, msg) };
            const ok = await backend.rsaVerifyPss(pub.key, h, data, sig, sLen);
            // A signature valid with the exact salt length must also verify with 'auto'.
            if (ok && !(await backend.rsaVerifyPss(pub.key, h, data, sig, 'auto'))) return !ok;
            return ok;
          };
        });
      });
    }

    for (const name of OAEP_FILES) {
      it(name, async () => {
        await runOaepFile(name, backendName, (k, ct) => backend.rsaOaepDecrypt(k, 'sha256', ct));
      });
    }
  });
}

describe('wycheproof OAEP [noble raw path]', () => {
  for (const name of OAEP_FILES) {
    it(name, async () => {
      await runOaepFile(name, 'noble (raw)', async (k, ct) => rsaOaepDecryptRaw(k, 'sha256', ct));
    });
  }
});

afterAll(() => {
  const rows: string[] = [];
  const pad = (s: string | number, n: number) => String(s).padEnd(n);
  rows.push(
    `${pad('backend', 12)}${pad('file', 40)}${pad('valid', 7)}${pad('invalid', 9)}${pad('accept.', 9)}${pad('label', 7)}passed`,
  );
  for (const [backend, files] of tallies) {
    for (const [file, t] of files) {
      const total = t.valid + t.invalid + t.acceptable;
      rows.push(
        `${pad(backend, 12)}${pad(file, 40)}${pad(t.valid, 7)}${pad(t.invalid, 9)}${pad(t.acceptable, 9)}${pad(t.labelled, 7)}${t.passed}/${total}`,
      );
    }
  }
  console.log(
    `Wycheproof asymmetric summary (a signature case passes only if every mode run agrees)\n${rows.join('\n')}`,
  );
});
