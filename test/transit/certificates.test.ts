/**
 * CSR signing and certificate chains through the engine: `openssl req
 * -verify` accepts every CSR (each signing type, both backends) and its key
 * is the transit key's; a template's subject is kept; an `openssl`-made CA
 * issues a certificate for the transit CSR, `setCertificate` stores the chain
 * (read key, `certificate-chain` export, a fresh engine), and a chain for
 * another key, a CA in the first position, malformed PEM, derived and
 * non-signing keys are refused with `invalid_request`.
 */
import { spawnSync } from 'node:child_process';
import { Transit } from 'transitkit';
import { beforeAll, describe, expect, it } from 'vitest';
import { chainToPem, parseCertificateChain } from '../../src/crypto/pki/chain.js';
import { loadFixture } from '../crypto/asymmetric-helpers.js';
import { b64, enginePair, type Pair } from './asym-support.js';
import { file, makeCa, openssl } from './ca-support.js';
import { expectError, settle } from './support.js';

const TYPES = ['ed25519', 'ecdsa-p256', 'ecdsa-p384', 'ecdsa-p521', 'rsa-2048'] as const;
const TEMPLATE = (
  loadFixture<{ vectors: Array<{ id: string; csr_pem: string }> }>('more-vectors').vectors.find(
    (v) => v.id === 'openbao-template-csr',
  ) as { csr_pem: string }
).csr_pem;

let pair: Pair;
beforeAll(async () => {
  pair = enginePair();
  for (const type of TYPES) await pair.node.createKey(type, { type, exportable: true });
  await pair.node.createKey('sym');
  await pair.node.createKey('derived', { type: 'ed25519', derived: true });
});

describe('signCsr', () => {
  it('openssl req -verify accepts the CSR of every signing type from both engines; its key is ours', async () => {
    for (const type of TYPES) {
      const pub = (await pair.node.exportKey('public-key', type, 1, { format: 'pem' })).keys['1'];
      for (const [, t] of pair.engines) {
        const r = await t.signCsr(type);
        expect(r.name).toBe(type);
        expect(r.type).toBe(type);
        expect(r.csr).toMatch(
          /^-----BEGIN CERTIFICATE REQUEST-----\n[\s\S]+\n-----END CERTIFICATE REQUEST-----\n$/,
        );
        const f = file(r.csr);
        const v = spawnSync('openssl', ['req', '-verify', '-noout', '-in', f], {
          encoding: 'utf8',
        });
        expect(v.status, v.stderr).toBe(0);
        expect(`${v.stdout}${v.stderr}`).toMatch(/verify OK/i);
        expect(openssl(['req', '-pubkey', '-noout', '-in', f]).trim()).toBe(pub?.trim());
      }
    }
  });

  it('a template keeps its subject; the key is replaced; version and latest are honoured', async () => {
    const subject = (pem: string) =>
      openssl(['req', '-subject', '-noout', '-in', file(pem)]).trim();
    const r = await pair.noble.signCsr('ecdsa-p256', { csr: TEMPLATE, version: 'latest' });
    expect(subject(r.csr)).toBe(subject(TEMPLATE));
    expect(openssl(['req', '-pubkey', '-noout', '-in', file(r.csr)])).not.toBe(
      openssl(['req', '-pubkey', '-noout', '-in', file(TEMPLATE)]),
    );
    await pair.node.rotateKey('rsa-2048');
    const v1 = await pair.node.signCsr('rsa-2048', { version: 1 });
    const v2 = await pair.node.signCsr('rsa-2048');
    const key = (pem: string) => openssl(['req', '-pubkey', '-noout', '-in', file(pem)]);
    expect(key(v1.csr).trim()).toBe(
      (await pair.node.exportKey('public-key', 'rsa-2048', 1)).keys['1']?.trim(),
    );
    expect(key(v2.csr)).not.toBe(key(v1.csr));
  });

  it('refusals', async () => {
    const t = pair.node;
    await expectError(
      t.signCsr('nope'),
      'invalid_request',
      "key with provided name 'nope' not found",
    );
    await expectError(
      t.signCsr('sym'),
      'invalid_request',
      "key type 'aes256-gcm96' does not support signing",
    );
    await expectError(
      t.signCsr('derived'),
      'invalid_request',
      'operation not supported for keys with derivation enabled',
    );
    await expectError(
      t.signCsr('ed25519', { version: 7 }),
      'invalid_request',
      'could not create the csr: no such key version',
    );
    await expectError(
      t.signCsr('ed25519', { csr: 'garbage' }),
      'invalid_request',
      /could not decode PEM certificate request/,
    );
    const notCsr = (await t.exportKey('public-key', 'ed25519', 1, { format: 'pem' })).keys[
      '1'
    ] as string;
    await expectError(t.signCsr('ed25519', { csr: notCsr }), 'invalid_request');
    const broken = TEMPLATE.replace(/\n[A-Za-z0-9+/]{64}\n/, '\nAAAA\n');
    await expectError(t.signCsr('ed25519', { csr: broken }), 'invalid_request');
  });
});

describe('setCertificate', () => {
  it('a chain issued by an openssl CA for the transit CSR is stored and shown; another key’s is refused', async () => {
    const ca = makeCa('transit test CA');
    const { csr } = await pair.node.signCsr('ecdsa-p384');
    const leaf = ca.issue(csr);
    const chain = leaf + ca.pem;
    const r = await pair.noble.setCertificate('ecdsa-p384', { certificate_chain: chain });
    expect(r).toEqual({ name: 'ecdsa-p384', type: 'ecdsa-p384', certificate_chain: chain });
    const expected = chainToPem(parseCertificateChain(chain));
    expect(expected.startsWith('-----BEGIN CERTIFICATE-----')).toBe(true);
    expect(expected.endsWith('-----END CERTIFICATE-----')).toBe(true);
    for (const [, t] of pair.engines) {
      const keys = (await t.readKey('ecdsa-p384')).keys as Record<
        string,
        { certificate_chain: string }
      >;
      expect(keys['1']?.certificate_chain).toBe(expected);
      expect((await t.exportKey('certificate-chain', 'ecdsa-p384', 'latest')).keys).toEqual({
        '1': expected,
      });
    }
    const fresh = new Transit({ storage: pair.storage, autoRotate: false });
    expect((await fresh.exportKey('certificate-chain', 'ecdsa-p384')).keys['1']).toBe(expected);
    // Signing still works, and the openssl-verified CSR key matches the certificate.
    expect((await fresh.sign('ecdsa-p384', { input: b64('x') })).key_version).toBe(1);

    // Another key's certificate is refused, and the stored chain is unchanged.
    const other = ca.issue((await pair.node.signCsr('ecdsa-p256')).csr);
    await expectError(
      pair.node.setCertificate('ecdsa-p384', { certificate_chain: other + ca.pem }),
      'invalid_request',
      /does not match/,
    );
    const rsaCert = ca.issue((await pair.node.signCsr('rsa-2048')).csr);
    await expectError(
      pair.node.setCertificate('ecdsa-p384', { certificate_chain: rsaCert }),
      'invalid_request',
      /does not match/,
    );
    expect((await pair.node.exportKey('certificate-chain', 'ecdsa-p384')).keys['1']).toBe(expected);

    // Overwrite with the leaf alone.
    await pair.node.setCertificate('ecdsa-p384', { certificate_chain: leaf, version: 1 });
    expect((await pair.noble.exportKey('certificate-chain', 'ecdsa-p384')).keys['1']).toBe(
      chainToPem(parseCertificateChain(leaf)),
    );
  });

  it('per version: a certificate for version 1, archived after 20 rotations', async () => {
    const ca = makeCa('per-version CA');
    await pair.node.createKey('per', { type: 'ed25519' });
    const { csr } = await pair.node.signCsr('per');
    for (let i = 0; i < 20; i++) await pair.node.rotateKey('per');
    const leaf = ca.issue(csr);
    await expectError(
      pair.node.setCertificate('per', { certificate_chain: leaf }),
      'invalid_request',
      /does not match/,
    );
    await pair.noble.readKey('per'); // the noble engine caches archived version 1
    await pair.node.setCertificate('per', { certificate_chain: leaf, version: 1 });
    await settle(); // the storage watch tells the noble engine
    for (const t of [
      pair.node,
      pair.noble,
      new Transit({ storage: pair.storage, autoRotate: false }),
    ]) {
      const keys = (await t.readKey('per')).keys as Record<string, { certificate_chain: string }>;
      expect(keys['1']?.certificate_chain).toMatch(/^-----BEGIN CERTIFICATE-----/);
      expect(keys['2']?.certificate_chain).toBe('');
    }
    await expectError(
      pair.node.exportKey('certificate-chain', 'per', 2),
      'invalid_request',
      'selected key version does not have a certificate chain imported',
    );
  });

  it('refusals: malformed chains, a CA first, derived and non-signing keys', async () => {
    const ca = makeCa('refusals CA');
    const t = pair.node;
    await expectError(
      t.setCertificate('ed25519', {} as never),
      'invalid_request',
      "missing 'certificate_chain'",
    );
    await expectError(
      t.setCertificate('ed25519', { certificate_chain: 'nope' }),
      'invalid_request',
    );
    await expectError(t.setCertificate('ed25519', { certificate_chain: '' }), 'invalid_request');
    await expectError(
      t.setCertificate('ed25519', { certificate_chain: ca.pem }),
      'invalid_request',
      'certificate in the first position is not a leaf certificate',
    );
    await expectError(
      t.setCertificate('ed25519', {
        certificate_chain: ca.pem.replace(/\n[A-Za-z0-9+/]{64}\n/, '\nAA\n'),
      }),
      'invalid_request',
    );
    await expectError(
      t.setCertificate('sym', { certificate_chain: ca.pem }),
      'invalid_request',
      "key type 'aes256-gcm96' does not support signing",
    );
    await expectError(
      t.setCertificate('derived', { certificate_chain: ca.pem }),
      'invalid_request',
      'operation not supported for keys with derivation enabled',
    );
    await expectError(
      t.setCertificate('ed25519', { certificate_chain: ca.pem, version: 5 }),
      'invalid_request',
      'failed to persist certificate chain: no such key version',
    );
  });
});
