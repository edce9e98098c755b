/**
 * An import blob made by the real `openssl` CLI, as Vault's docs describe:
 * `openssl pkeyutl -encrypt` (RSA-OAEP, SHA-256 for OAEP and MGF1) wraps a
 * fresh AES-256 key for the wrapping key, `openssl enc -id-aes256-wrap-pad`
 * wraps the material under it. The material is an openssl-generated P-256
 * PKCS#8 key and a random AES-256 key; what transitkit then signs or encrypts
 * is checked with openssl / node:crypto.
 */
import { execFileSync } from 'node:child_process';
import { createDecipheriv, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MobilityPair, mobilityPair } from './import-support.js';
import { b64, splitVersioned } from './support.js';

const openssl = (args: string[]): Buffer =>
  execFileSync('openssl', args, { stdio: ['ignore', 'pipe', 'pipe'] });

let dir: string;
let pair: MobilityPair;
const f = (name: string) => join(dir, name);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'transitkit-import-'));
  pair = await mobilityPair();
  writeFileSync(f('wrap.pem'), pair.wrap);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The import blob of the file `material`, wrapped entirely by openssl. */
function opensslBlob(material: string): string {
  const aes = randomBytes(32);
  writeFileSync(f('ephemeral.bin'), aes);
  openssl([
    'pkeyutl',
    '-encrypt',
    '-pubin',
    '-inkey',
    f('wrap.pem'),
    '-in',
    f('ephemeral.bin'),
    '-out',
    f('ephemeral.wrapped'),
    '-pkeyopt',
    'rsa_padding_mode:oaep',
    '-pkeyopt',
    'rsa_oaep_md:sha256',
    '-pkeyopt',
    'rsa_mgf1_md:sha256',
  ]);
  openssl([
    'enc',
    '-id-aes256-wrap-pad',
    '-K',
    aes.toString('hex'),
    '-iv',
    'A65959A6',
    '-in',
    f(material),
    '-out',
    f('material.wrapped'),
  ]);
  const rsaPart = readFileSync(f('ephemeral.wrapped'));
  expect(rsaPart).toHaveLength(512);
  return Buffer.concat([rsaPart, readFileSync(f('material.wrapped'))]).toString('base64');
}

describe('import of openssl-made blobs', () => {
  it('an openssl P-256 key: transitkit signs, openssl verifies', async () => {
    openssl([
      'genpkey',
      '-algorithm',
      'EC',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-outform',
      'DER',
      '-out',
      f('ec.der'),
    ]);
    // genpkey's DER output is SEC 1; `pkcs8 -topk8` gives the PKCS#8 that import takes.
    openssl([
      'pkcs8',
      '-topk8',
      '-nocrypt',
      '-inform',
      'DER',
      '-in',
      f('ec.der'),
      '-outform',
      'DER',
      '-out',
      f('ec.p8'),
    ]);
    openssl(['pkey', '-inform', 'DER', '-in', f('ec.der'), '-pubout', '-out', f('ec.pub.pem')]);
    const ciphertext = opensslBlob('ec.p8');
    for (const [backend, t] of pair.engines) {
      await t.importKey(`openssl-ec-${backend}`, { type: 'ecdsa-p256', ciphertext });
      const info = await t.readKey(`openssl-ec-${backend}`);
      const pub = (info.keys as Record<string, { public_key: string }>)['1']?.public_key;
      expect(pub).toBe(readFileSync(f('ec.pub.pem'), 'utf8'));
      writeFileSync(f('msg.bin'), 'the quick brown fox');
      const { signature } = await t.sign(`openssl-ec-${backend}`, {
        input: b64('the quick brown fox'),
      });
      writeFileSync(f('sig.der'), Buffer.from(signature.split(':')[2] as string, 'base64'));
      const out = openssl([
        'dgst',
        '-sha256',
        '-verify',
        f('ec.pub.pem'),
        '-signature',
        f('sig.der'),
        f('msg.bin'),
      ]);
      expect(out.toString()).toContain('Verified OK');
    }
  });

  it('a random AES-256 key: transitkit encrypts, node:crypto decrypts with our copy', async () => {
    const key = randomBytes(32);
    writeFileSync(f('aes.bin'), key);
    const ciphertext = opensslBlob('aes.bin');
    const [, t] = pair.engines[1] as MobilityPair['engines'][number];
    await t.importKey('openssl-aes', { type: 'aes256-gcm96', ciphertext });
    const ct = (await t.encrypt('openssl-aes', { plaintext: b64('hello') })).ciphertext;
    const raw = splitVersioned(ct).payload;
    const d = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
    d.setAuthTag(raw.subarray(raw.length - 16));
    expect(Buffer.concat([d.update(raw.subarray(12, raw.length - 16)), d.final()]).toString()).toBe(
      'hello',
    );
  });
});
