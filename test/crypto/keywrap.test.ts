/**
 * AES-KWP: every Wycheproof aes_kwp case, and agreement with node:crypto's
 * `id-aes256-wrap-pad` and the `openssl enc -id-aes256-wrap-pad` CLI (the
 * command users run to build Vault import blobs by hand).
 */
import { execFileSync } from 'node:child_process';
import { createCipheriv, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { KWP_LIMITS, keyUnwrapPad, keyWrapPad } from '../../src/crypto/keywrap.js';
import { readWycheproofJson } from '../helpers/vectors.js';

interface KwpCase {
  tcId: number;
  key: string;
  msg: string;
  ct: string;
  result: string;
  comment: string;
}
const file = readWycheproofJson<{
  testGroups: { keySize: number; tests: KwpCase[] }[];
}>('aes_kwp_test.json');
const hex = (s: string) => new Uint8Array(Buffer.from(s, 'hex'));
const counts = { valid: 0, invalid: 0, rejectedParams: 0 };
const nodeWrap = (kek: Uint8Array, m: Uint8Array): Uint8Array => {
  const iv = Buffer.from('a65959a6', 'hex');
  const c = createCipheriv(`id-aes${kek.length * 8}-wrap-pad`, kek, iv);
  return new Uint8Array(Buffer.concat([c.update(m), c.final()]));
};

describe('Wycheproof aes_kwp_test.json', () => {
  for (const group of file.testGroups) {
    it(`keySize ${group.keySize}: ${group.tests.length} cases`, () => {
      for (const t of group.tests) {
        const kek = hex(t.key);
        const msg = hex(t.msg);
        const ct = hex(t.ct);
        const supported = kek.length === 16 || kek.length === 32;
        const inLimits = msg.length >= KWP_LIMITS.min && msg.length <= KWP_LIMITS.max;
        if (!supported) {
          expect(() => keyUnwrapPad(kek, ct), `tc ${t.tcId}`).toThrow(RangeError);
          counts.rejectedParams++;
        } else if (t.result === 'valid') {
          if (inLimits) {
            expect(keyWrapPad(kek, msg), `tc ${t.tcId}`).toEqual(ct);
            expect(keyUnwrapPad(kek, ct), `tc ${t.tcId}`).toEqual(msg);
            counts.valid++;
          } else {
            // Below Vault's (Tink's) 16-byte minimum: refused both ways.
            expect(() => keyWrapPad(kek, msg), `tc ${t.tcId}`).toThrow(RangeError);
            expect(() => keyUnwrapPad(kek, ct), `tc ${t.tcId}`).toThrow(/must be 16 to 8192/);
            counts.rejectedParams++;
          }
        } else if (t.result === 'invalid') {
          expect(() => keyUnwrapPad(kek, ct), `tc ${t.tcId}`).toThrow();
          counts.invalid++;
        } else {
          throw new Error(`tc ${t.tcId}: unexpected result ${t.result}`);
        }
      }
    });
  }
  afterAll(() => {
    console.log(
      `aes_kwp: ${counts.valid} valid, ${counts.invalid} invalid, ${counts.rejectedParams} outside our parameters`,
    );
    expect(counts.valid).toBeGreaterThan(0);
  });
});

describe('agreement with node:crypto and the openssl CLI', () => {
  it('node id-aes{128,256}-wrap-pad produces the same bytes (property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(16, 32),
        fc.uint8Array({ minLength: 16, maxLength: 600 }),
        (kekLen, material) => {
          const kek = new Uint8Array(randomBytes(kekLen));
          const ours = keyWrapPad(kek, material);
          expect(ours).toEqual(nodeWrap(kek, material));
          expect(keyUnwrapPad(kek, ours)).toEqual(material);
        },
      ),
      { numRuns: 200 },
    );
  });

  const dir = mkdtempSync(path.join(os.tmpdir(), 'transitkit-kwp-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('openssl enc -id-aes256-wrap-pad output unwraps here', () => {
    const kek = randomBytes(32);
    const material = randomBytes(48);
    writeFileSync(path.join(dir, 'm.bin'), material);
    execFileSync('openssl', [
      'enc',
      '-id-aes256-wrap-pad',
      '-e',
      '-K',
      kek.toString('hex'),
      '-iv',
      'A65959A6',
      '-in',
      path.join(dir, 'm.bin'),
      '-out',
      path.join(dir, 'w.bin'),
    ]);
    const wrapped = new Uint8Array(readFileSync(path.join(dir, 'w.bin')));
    expect(keyUnwrapPad(new Uint8Array(kek), wrapped)).toEqual(new Uint8Array(material));
    const tampered = wrapped.slice();
    tampered[5] = (tampered[5] ?? 0) ^ 1;
    expect(() => keyUnwrapPad(new Uint8Array(kek), tampered)).toThrow(/integrity check failed/);
  });
});
