/**
 * The `openssl` command line verifies transit signatures, every signing type,
 * made by both crypto backends: the public key exported as PEM, then
 * `openssl dgst -verify` (ECDSA DER; RSA PKCS#1 v1.5; RSA-PSS with the salt
 * length given to `-sigopt rsa_pss_saltlen`) and `openssl pkeyutl -verify
 * -rawin` for Ed25519. A tampered input fails each time.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  b64,
  createSigningKeys,
  ECDSA_TYPES,
  enginePair,
  type Pair,
  RSA_TYPES,
  signatureBytes,
} from '../transit/asym-support.js';

const TEXT = 'the quick brown fox';
const dir = mkdtempSync(path.join(tmpdir(), 'transitkit-openssl-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
function file(content: string | Uint8Array): string {
  const f = path.join(dir, `f${n++}`);
  writeFileSync(f, content);
  return f;
}

/** Run openssl; true when it printed "Verified OK"/"Signature Verified Successfully" and exited 0. */
function opensslVerifies(args: string[]): boolean {
  const r = spawnSync('openssl', args, { encoding: 'utf8' });
  if (r.error) throw r.error;
  return r.status === 0 && /Verified OK|Signature Verified Successfully/.test(r.stdout);
}

let pair: Pair;
beforeAll(async () => {
  pair = enginePair();
  await createSigningKeys(pair);
});

async function material(name: string, req: Record<string, unknown>, signerIndex: number) {
  const [, signer] = pair.engines[signerIndex] as [string, typeof pair.node];
  const { signature } = await signer.sign(name, { input: b64(TEXT), ...req });
  const pem = (await pair.node.exportKey('public-key', name, 1, { format: 'pem' })).keys[
    '1'
  ] as string;
  return {
    pub: file(pem),
    sig: file(signatureBytes(signature)),
    data: file(TEXT),
    tampered: file(`${TEXT}!`),
  };
}

describe.each([0, 1])('signer engine %i (0 = node, 1 = noble)', (signer) => {
  it.each(ECDSA_TYPES)(
    '%s: openssl dgst verifies the DER signature (sha256 and the curve hash)',
    async (type) => {
      const hashes: Array<[string, string]> = [
        ['sha2-256', '-sha256'],
        ['sha2-512', '-sha512'],
        ['sha3-256', '-sha3-256'],
      ];
      for (const [hash_algorithm, dgst] of hashes) {
        const f = await material(type, { hash_algorithm }, signer);
        expect(opensslVerifies(['dgst', dgst, '-verify', f.pub, '-signature', f.sig, f.data])).toBe(
          true,
        );
        expect(
          opensslVerifies(['dgst', dgst, '-verify', f.pub, '-signature', f.sig, f.tampered]),
        ).toBe(false);
      }
    },
  );

  it.each(RSA_TYPES)(
    '%s: openssl dgst verifies PKCS#1 v1.5 and PSS (auto, hash, explicit salt)',
    async (type) => {
      const pk = await material(type, { signature_algorithm: 'pkcs1v15' }, signer);
      expect(
        opensslVerifies(['dgst', '-sha256', '-verify', pk.pub, '-signature', pk.sig, pk.data]),
      ).toBe(true);
      expect(
        opensslVerifies(['dgst', '-sha256', '-verify', pk.pub, '-signature', pk.sig, pk.tampered]),
      ).toBe(false);
      for (const [salt_length, opensslSalt] of [
        ['auto', 'max'],
        ['hash', 'digest'],
        ['17', '17'],
      ]) {
        const f = await material(type, { salt_length, hash_algorithm: 'sha2-384' }, signer);
        const args = [
          'dgst',
          '-sha384',
          '-sigopt',
          'rsa_padding_mode:pss',
          '-sigopt',
          `rsa_pss_saltlen:${opensslSalt}`,
          '-verify',
          f.pub,
          '-signature',
          f.sig,
        ];
        expect(opensslVerifies([...args, f.data]), `salt ${salt_length}`).toBe(true);
        expect(opensslVerifies([...args, f.tampered])).toBe(false);
      }
    },
  );

  it('ed25519: openssl pkeyutl -verify -rawin', async () => {
    const f = await material('ed25519', {}, signer);
    const args = [
      'pkeyutl',
      '-verify',
      '-pubin',
      '-inkey',
      f.pub,
      '-rawin',
      '-sigfile',
      f.sig,
      '-in',
    ];
    expect(opensslVerifies([...args, f.data])).toBe(true);
    expect(opensslVerifies([...args, f.tampered])).toBe(false);
  });
});
