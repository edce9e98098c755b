/**
 * Wycheproof vectors on every backend: AES-GCM, ChaCha20-Poly1305,
 * XChaCha20-Poly1305, HKDF-SHA256 and HMAC (SHA-2, SHA-3). Every case of every
 * file runs; none is skipped. Each result kind is handled explicitly:
 *
 * - `valid` inside our parameter space → exact match (seal, open, MAC, OKM);
 * - `invalid` inside our parameter space → `AeadAuthError` / MAC mismatch /
 *   `RangeError` (HKDF size);
 * - any case outside our parameter space (AES-192 keys, IV ≠ 12 bytes for
 *   GCM/ChaCha, nonce ≠ 24 bytes for XChaCha) → asserted `RangeError` on both
 *   seal and open, whatever Wycheproof's verdict ("rejected");
 * - truncated HMAC tags → the MAC's prefix is compared ("prefix");
 * - `acceptable` (none in these files today) → must behave wholly as valid or
 *   wholly as invalid, and is counted apart;
 * - any other result string → the test throws.
 *
 * A summary table (cases per backend, file and outcome) is printed at the end.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { AeadAlgorithm, CryptoBackend, HashName } from '../../src/crypto/backend.js';
import { AeadAuthError } from '../../src/crypto/backend.js';
import { aeadOpenText } from '../../src/crypto/text.js';
import { encodeBase64 } from '../../src/encoding.js';
import { BACKENDS } from '../helpers/backends.js';
import {
  type AeadCase,
  fromHex,
  type HkdfCase,
  loadAeadVectors,
  loadHkdfVectors,
  loadMacVectors,
  type MacCase,
} from '../helpers/vectors.js';

type Outcome = 'valid' | 'prefix' | 'invalid' | 'rejected' | 'acceptable';
const OUTCOMES: readonly Outcome[] = ['valid', 'prefix', 'invalid', 'rejected', 'acceptable'];
const TAG = 16;

/** Our AEAD parameter space (the contract), stated here independently of src. */
const AEAD_SUITES = [
  { file: 'aes_gcm_test.json', alg: 'aes-gcm', keys: [16, 32], nonce: 12 },
  { file: 'chacha20_poly1305_test.json', alg: 'chacha20-poly1305', keys: [32], nonce: 12 },
  { file: 'xchacha20_poly1305_test.json', alg: 'xchacha20-poly1305', keys: [32], nonce: 24 },
] as const satisfies readonly { file: string; alg: AeadAlgorithm; keys: number[]; nonce: number }[];

const MAC_SUITES = [
  { file: 'hmac_sha224_test.json', hash: 'sha224' },
  { file: 'hmac_sha256_test.json', hash: 'sha256' },
  { file: 'hmac_sha384_test.json', hash: 'sha384' },
  { file: 'hmac_sha512_test.json', hash: 'sha512' },
  { file: 'hmac_sha3_256_test.json', hash: 'sha3-256' },
  { file: 'hmac_sha3_512_test.json', hash: 'sha3-512' },
] as const satisfies readonly { file: string; hash: HashName }[];

const HKDF_FILE = 'hkdf_sha256_test.json';

// Loaded at collection time: a missing file fails the run instead of skipping.
const aeadData = AEAD_SUITES.map((s) => ({ ...s, data: loadAeadVectors(s.file) }));
const macData = MAC_SUITES.map((s) => ({ ...s, data: loadMacVectors(s.file) }));
const hkdfData = loadHkdfVectors(HKDF_FILE);

/** backend → file → outcome → count */
const counts = new Map<string, Map<string, Record<Outcome, number>>>();
function tally(backend: string, file: string, outcome: Outcome): void {
  const perFile = counts.get(backend) ?? new Map<string, Record<Outcome, number>>();
  counts.set(backend, perFile);
  const row = perFile.get(file) ?? { valid: 0, prefix: 0, invalid: 0, rejected: 0, acceptable: 0 };
  perFile.set(file, row);
  row[outcome]++;
}

/** Runs `fn`, returning what it threw (or `undefined`). */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return undefined;
}

/** Asserts `fn` throws an instance of one of `ctors`. */
function expectThrow(fn: () => unknown, ctors: readonly (new () => Error)[], where: string): Error {
  const e = thrown(fn);
  const ok = ctors.some((c) => e instanceof c);
  expect(ok, `${where}: expected ${ctors.map((c) => c.name).join('|')}, got ${String(e)}`).toBe(
    true,
  );
  return e as Error;
}

function assertKnownResult(t: { result: string; tcId: number }, file: string): void {
  if (t.result !== 'valid' && t.result !== 'invalid' && t.result !== 'acceptable') {
    throw new Error(`${file} tcId ${t.tcId}: unknown Wycheproof result "${t.result}"`);
  }
}

function runAead(b: CryptoBackend, s: (typeof AEAD_SUITES)[number], t: AeadCase): Outcome {
  assertKnownResult(t, s.file);
  const where = `${b.name} ${s.file} tcId ${t.tcId} (${t.comment})`;
  const [key, iv, aad, msg, ct, tag] = [t.key, t.iv, t.aad, t.msg, t.ct, t.tag].map(fromHex) as [
    Uint8Array,
    Uint8Array,
    Uint8Array,
    Uint8Array,
    Uint8Array,
    Uint8Array,
  ];
  const sealed = new Uint8Array([...ct, ...tag]);
  const seal = () => b.aeadSeal(s.alg, key, iv, msg, aad);
  const open = () => b.aeadOpen(s.alg, key, iv, sealed, aad);
  // The text form (decrypt's path): the backend's own `aeadOpenText`, or the encoded bytes.
  const openBase64 = () => aeadOpenText(b, s.alg, key, iv, sealed, aad, 'base64');
  const openHex = () => aeadOpenText(b, s.alg, key, iv, sealed, aad, 'hex');

  if (!(s.keys as readonly number[]).includes(key.length) || iv.length !== s.nonce) {
    // Outside our parameter space: rejected with RangeError on both directions,
    // and the message must not carry the key.
    for (const fn of [seal, open, openBase64]) {
      const e = expectThrow(fn, [RangeError], where);
      expect(e.message).not.toContain(t.key);
    }
    return 'rejected';
  }
  if (tag.length !== TAG) {
    // Tag sizes ≠ 128 bits are not expressible in our contract (no such case in
    // today's files). Open must fail; a valid case must still agree on the prefix.
    expectThrow(open, [AeadAuthError, RangeError], where);
    expectThrow(openBase64, [AeadAuthError, RangeError], where);
    if (t.result === 'valid') expect(seal().subarray(0, sealed.length), where).toEqual(sealed);
    return 'rejected';
  }
  switch (t.result) {
    case 'valid':
      expect(seal(), where).toEqual(sealed);
      expect(open(), where).toEqual(msg);
      expect(openBase64(), where).toBe(encodeBase64(msg));
      expect(openHex(), where).toBe(t.msg.toLowerCase());
      return 'valid';
    case 'invalid':
      expectThrow(open, [AeadAuthError], where);
      expectThrow(openBase64, [AeadAuthError], where);
      expect(seal(), where).not.toEqual(sealed);
      return 'invalid';
    default: {
      // acceptable: all-valid or all-invalid, never a mix.
      const asValid = thrown(open) === undefined;
      if (asValid) {
        expect(open(), where).toEqual(msg);
        expect(openBase64(), where).toBe(encodeBase64(msg));
      } else {
        expectThrow(open, [AeadAuthError], where);
        expectThrow(openBase64, [AeadAuthError], where);
      }
      return 'acceptable';
    }
  }
}

function runMac(b: CryptoBackend, file: string, hash: HashName, t: MacCase): Outcome {
  assertKnownResult(t, file);
  const where = `${b.name} ${file} tcId ${t.tcId} (${t.comment})`;
  const tag = fromHex(t.tag);
  const full = b.hmac(hash, fromHex(t.key), fromHex(t.msg));
  expect(tag.length, where).toBeLessThanOrEqual(full.length);
  // Truncated tags (tagSize < hash size) are checked by comparing the prefix.
  const mac = full.subarray(0, tag.length);
  const truncated = tag.length < full.length;
  switch (t.result) {
    case 'valid':
      expect(mac, where).toEqual(tag);
      expect(b.timingSafeEqual(mac, tag), where).toBe(true);
      return truncated ? 'prefix' : 'valid';
    case 'invalid':
      expect(mac, where).not.toEqual(tag);
      expect(b.timingSafeEqual(mac, tag), where).toBe(false);
      return 'invalid';
    default:
      // acceptable: a MAC is deterministic, so record which way it went.
      expect(b.timingSafeEqual(mac, tag), where).toBe(mac.every((x, i) => x === tag[i]));
      return 'acceptable';
  }
}

function runHkdf(b: CryptoBackend, t: HkdfCase): Outcome {
  assertKnownResult(t, HKDF_FILE);
  const where = `${b.name} ${HKDF_FILE} tcId ${t.tcId} (${t.comment})`;
  const derive = () => b.hkdf('sha256', fromHex(t.ikm), fromHex(t.salt), fromHex(t.info), t.size);
  switch (t.result) {
    case 'valid':
      expect(derive(), where).toEqual(fromHex(t.okm));
      return 'valid';
    case 'invalid':
      // The only way an HKDF input is invalid is a parameter (size > 255·HashLen).
      expectThrow(derive, [RangeError], where);
      return 'invalid';
    default: {
      // acceptable: either the exact OKM or a RangeError.
      const e = thrown(derive);
      if (e === undefined) expect(derive(), where).toEqual(fromHex(t.okm));
      else expect(e, where).toBeInstanceOf(RangeError);
      return 'acceptable';
    }
  }
}

/** Runs every case of a file through `run`, tallies, and checks the count. */
function runFile<C>(
  backend: string,
  data: { file: string; numberOfTests: number; testGroups: readonly { tests: readonly C[] }[] },
  run: (t: C) => Outcome,
): void {
  let n = 0;
  for (const group of data.testGroups) {
    for (const t of group.tests) {
      tally(backend, data.file, run(t));
      n++;
    }
  }
  expect(n).toBeGreaterThan(0);
  expect(n).toBe(data.numberOfTests);
}

for (const [name, backend] of BACKENDS) {
  describe(`wycheproof: ${name}`, () => {
    for (const s of aeadData) {
      it(s.file, () => runFile(name, s.data, (t) => runAead(backend, s, t)));
    }
    for (const s of macData) {
      it(s.file, () => runFile(name, s.data, (t) => runMac(backend, s.file, s.hash, t)));
    }
    it(HKDF_FILE, () => runFile(name, hkdfData, (t) => runHkdf(backend, t)));
  });
}

afterAll(() => {
  const lines: string[] = [];
  const pad = (v: string | number, w: number) => String(v).padStart(w);
  const header = `${'backend'.padEnd(8)} ${'file'.padEnd(30)}${OUTCOMES.map((o) => pad(o, 11)).join('')}${pad('total', 8)}`;
  lines.push('Wycheproof cases per backend (passed, by outcome):', header);
  for (const [backend, perFile] of counts) {
    const sum: Record<Outcome, number> = {
      valid: 0,
      prefix: 0,
      invalid: 0,
      rejected: 0,
      acceptable: 0,
    };
    for (const [file, row] of perFile) {
      const total = OUTCOMES.reduce((acc, o) => acc + row[o], 0);
      for (const o of OUTCOMES) sum[o] += row[o];
      lines.push(
        `${backend.padEnd(8)} ${file.padEnd(30)}${OUTCOMES.map((o) => pad(row[o], 11)).join('')}${pad(total, 8)}`,
      );
    }
    const grand = OUTCOMES.reduce((acc, o) => acc + sum[o], 0);
    lines.push(
      `${backend.padEnd(8)} ${'TOTAL'.padEnd(30)}${OUTCOMES.map((o) => pad(sum[o], 11)).join('')}${pad(grand, 8)}`,
    );
    expect(grand, `${backend} ran no Wycheproof case`).toBeGreaterThan(0);
  }
  console.log(lines.join('\n'));
  expect(counts.size, 'no Wycheproof case ran at all').toBeGreaterThan(0);
});
