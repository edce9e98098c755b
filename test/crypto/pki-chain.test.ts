/**
 * Certificate chains (src/crypto/pki/chain.ts) end to end with the `openssl`
 * CLI: an openssl-made CA issues a certificate for the CSR each backend signs
 * for every transit key type; `parseCertificateChain` reads `leaf + CA`,
 * `checkLeafMatches` accepts it for that key and refuses it for another key
 * (same type and other type), and `chainToPem` gives back Vault's read form.
 * Bad chains (empty, garbage, private keys, CSRs, malformed blocks, a CA
 * first, two leaves) are refused with `invalid_request`.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AsymmetricBackend } from '../../src/crypto/asymmetric-backend.js';
import { nodeAsymmetric } from '../../src/crypto/node/asymmetric.js';
import { chainToPem, checkLeafMatches, parseCertificateChain } from '../../src/crypto/pki/chain.js';
import { publicKeySpki, signCsr } from '../../src/crypto/pki/csr.js';
import type { PrivateKeyMaterial } from '../../src/crypto/pki/keys.js';
import { isTransitError } from '../../src/errors.js';
import {
  BACKENDS,
  ecKey,
  edKey,
  loadFixture,
  rsaKey,
  wycheproofRsa,
} from './asymmetric-helpers.js';
import { runOpenssl, tempFiles } from './openssl-cli.js';

const { dir, tmp } = tempFiles('transitkit-chain-');
let seq = 0;
const openssl = (...args: string[]): string => runOpenssl(...args).stdout;
const derOf = (pemFile: string): Uint8Array =>
  new Uint8Array(
    spawnSync('openssl', ['x509', '-in', pemFile, '-outform', 'DER'], { encoding: 'buffer' })
      .stdout,
  );

// An EC P-256 CA (`req -x509` adds basicConstraints CA:TRUE).
const caKey = path.join(dir, 'ca.key');
const caPem = path.join(dir, 'ca.pem');
openssl(
  ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'],
  ...['-keyout', caKey, '-subj', '/CN=transitkit test CA', '-days', '2', '-out', caPem],
);
const caText = readFileSync(caPem, 'utf8');
const caKeyText = readFileSync(caKey, 'utf8');

/** OpenBao's template CSR (subject and SANs), re-signed with each transit key. */
const template = loadFixture<{ vectors: Array<{ csr_pem: string }> }>('more-vectors').vectors[0]
  ?.csr_pem as string;

/** Have the CA issue a certificate for a CSR; `ext` is an optional extfile body. */
function issue(csrPem: string, ext?: string): string {
  const out = path.join(dir, `leaf${seq++}.pem`);
  const args = ['x509', '-req', '-in', tmp(csrPem), '-CA', caPem, '-CAkey', caKey];
  const extArgs = ext === undefined ? [] : ['-extfile', tmp(ext, 'cnf')];
  openssl(...args, '-days', '1', ...extArgs, '-out', out);
  return out;
}

const KEY_TYPES: ReadonlyArray<
  readonly [string, (b: AsymmetricBackend) => Promise<PrivateKeyMaterial>]
> = [
  ['ecdsa-p256', async (b) => ({ type: 'ec', key: await ecKey(b, 'p256') })],
  ['ecdsa-p384', async (b) => ({ type: 'ec', key: await ecKey(b, 'p384') })],
  ['ecdsa-p521', async (b) => ({ type: 'ec', key: await ecKey(b, 'p521') })],
  ['ed25519', async (b) => ({ type: 'ed25519', key: await edKey(b) })],
  ['rsa-2048', async (b) => ({ type: 'rsa', key: await rsaKey(b, 2048) })],
  ['rsa-3072', async () => ({ type: 'rsa', key: wycheproofRsa(3072) })],
  ['rsa-4096', async () => ({ type: 'rsa', key: wycheproofRsa(4096) })],
];

/** Another key of the same type (a fresh one; RSA 3072/4096 generated once). */
const otherKeys = new Map<string, Promise<PrivateKeyMaterial>>();
function otherKeyOfSameType(type: string, key: PrivateKeyMaterial): Promise<PrivateKeyMaterial> {
  let p = otherKeys.get(type);
  if (p === undefined) {
    const b = nodeAsymmetric;
    if (key.type === 'ec') p = b.generateEc(key.key.curve).then((k) => ({ type: 'ec', key: k }));
    else if (key.type === 'ed25519')
      p = b.generateEd25519().then((k) => ({ type: 'ed25519', key: k }));
    else
      p = b
        .generateRsa(Number(type.slice(4)) as 2048 | 3072 | 4096)
        .then((k) => ({ type: 'rsa', key: k }));
    otherKeys.set(type, p);
  }
  return p;
}

function expectInvalid(f: () => unknown, message: RegExp): void {
  let err: unknown;
  try {
    f();
  } catch (e) {
    err = e;
  }
  expect(isTransitError(err, 'invalid_request'), String(err)).toBe(true);
  expect((err as Error).message).toMatch(message);
  expect((err as Error).message).not.toMatch(/[A-Za-z0-9+/]{40}/); // never echoes the input
}

describe.each(BACKENDS)(
  'a chain issued by openssl for a CSR signed on the %s backend',
  (_name, backend) => {
    it.each(KEY_TYPES)('%s', async (type, makeKey) => {
      const key = await makeKey(backend);
      const leafFile = issue(await signCsr({ key, backend, templatePem: template }));
      const leafText = readFileSync(leafFile, 'utf8');
      const ders = parseCertificateChain(leafText + caText);
      expect(ders).toEqual([derOf(leafFile), derOf(caPem)]);
      const spki = await publicKeySpki(key, backend);
      expect(() => checkLeafMatches(ders, spki)).not.toThrow();
      // Vault's read form: PEM blocks without their trailing newline, joined by "\n".
      expect(chainToPem(ders)).toBe(`${leafText.trim()}\n${caText.trim()}`);
      expect(parseCertificateChain(chainToPem(ders))).toEqual(ders);

      const other = await otherKeyOfSameType(type, key);
      const otherSpki = await publicKeySpki(other, nodeAsymmetric);
      expectInvalid(
        () => checkLeafMatches(ders, otherSpki),
        /^leaf certificate public key does not match the key version's public key$/,
      );
      const [otherType, otherName]: readonly [PrivateKeyMaterial, string] =
        key.type === 'ed25519'
          ? [{ type: 'ec', key: await ecKey(backend, 'p256') }, 'ecdsa-p256']
          : [{ type: 'ed25519', key: await edKey(backend) }, 'ed25519'];
      const otherTypeSpki = await publicKeySpki(otherType, backend);
      expectInvalid(
        () => checkLeafMatches(ders, otherTypeSpki),
        new RegExp(
          `^leaf certificate public key type '${type}' does not match the key type '${otherName}'$`,
        ),
      );
    });
  },
);

describe('chains openssl issues, accepted', () => {
  it('a leaf alone, a leaf with basicConstraints CA:FALSE, and text around the blocks', async () => {
    const key: PrivateKeyMaterial = { type: 'ec', key: await ecKey(nodeAsymmetric, 'p384') };
    const spki = await publicKeySpki(key, nodeAsymmetric);
    const csr = await signCsr({ key, backend: nodeAsymmetric });
    const plain = readFileSync(issue(csr), 'utf8');
    const explicitLeaf = readFileSync(
      issue(csr, 'basicConstraints = critical, CA:FALSE\n'),
      'utf8',
    );
    for (const chain of [
      plain,
      explicitLeaf + caText,
      `subject=whatever\n${plain}\nissuer text\n${caText}\n`,
      openssl('x509', '-in', tmp(plain), '-text') + caText,
      (plain + caText).replaceAll('\n', '\r\n'),
    ]) {
      const ders = parseCertificateChain(chain);
      expect(ders.length).toBeGreaterThan(0);
      checkLeafMatches(ders, spki);
    }
  });
});

describe('bad chains are refused with invalid_request', async () => {
  const key: PrivateKeyMaterial = { type: 'ed25519', key: await edKey(nodeAsymmetric) };
  const csr = await signCsr({ key, backend: nodeAsymmetric });
  const leaf = readFileSync(issue(csr), 'utf8');
  const explicitLeaf = readFileSync(issue(csr, 'basicConstraints = CA:FALSE\n'), 'utf8');
  const body = leaf.split('\n').slice(1, -2).join('\n');
  const cert = (b64: string) => `-----BEGIN CERTIFICATE-----\n${b64}\n-----END CERTIFICATE-----\n`;
  const garbageDer = cert(Buffer.from('definitely not a certificate').toString('base64'));
  const cases: ReadonlyArray<readonly [string, string, RegExp]> = [
    ['an empty string', '', /^certificate chain is empty$/],
    ['whitespace', ' \n\t\n', /^certificate chain is empty$/],
    ['garbage', 'garbage', /^certificate chain contains no PEM certificate$/],
    ['a private key PEM', caKeyText, /PEM block 1 is "PRIVATE KEY", expected CERTIFICATE/],
    [
      'a leaf followed by a private key',
      leaf + caKeyText,
      /PEM block 2 is "PRIVATE KEY", expected CERTIFICATE/,
    ],
    ['a CSR', csr, /PEM block 1 is "CERTIFICATE REQUEST", expected CERTIFICATE/],
    [
      'a block with bad base64',
      leaf + cert('@@@ not base64 @@@'),
      /could not decode PEM block in certificate chain/,
    ],
    [
      'a block with no END line',
      leaf + caText.replace(/-----END[\s\S]*$/, ''),
      /could not decode PEM block in certificate chain/,
    ],
    [
      'a block with headers',
      leaf.replace(
        '-----\n',
        '-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00112233445566778899AABBCCDDEEFF\n\n',
      ),
      /PEM block 1 has headers/,
    ],
    [
      'a certificate that is not ASN.1',
      garbageDer,
      /^failed to parse certificate 1 in certificate chain: malformed ASN.1$/,
    ],
    [
      'a truncated certificate',
      leaf + cert(Buffer.from(Buffer.from(body, 'base64').subarray(0, 100)).toString('base64')),
      /^failed to parse certificate 2 in certificate chain: malformed ASN.1$/,
    ],
    [
      'a CSR under the CERTIFICATE label',
      csr.replaceAll('CERTIFICATE REQUEST', 'CERTIFICATE'),
      /^failed to parse certificate 1 in certificate chain: unexpected ASN.1 structure$/,
    ],
    [
      'the CA first',
      caText + leaf,
      /^certificate in the first position is not a leaf certificate$/,
    ],
    [
      'two leaves',
      leaf + explicitLeaf,
      /^provided certificate chain contains more than one leaf certificate$/,
    ],
  ];
  it.each(cases)('%s', (_what, chain, message) =>
    expectInvalid(() => parseCertificateChain(chain), message),
  );

  it('checkLeafMatches refuses an empty chain and a leaf that does not parse', async () => {
    const spki = await publicKeySpki(key, nodeAsymmetric);
    expectInvalid(() => checkLeafMatches([], spki), /expected at least one certificate/);
    expectInvalid(
      () => checkLeafMatches([new Uint8Array([1, 2, 3])], spki),
      /failed to parse certificate 1/,
    );
  });

  it('a non-string input is refused', () => {
    expectInvalid(
      () => parseCertificateChain(undefined as unknown as string),
      /must be a PEM string/,
    );
  });

  it('chainToPem of no certificate is the empty string (Vault: "")', () => {
    expect(chainToPem([])).toBe('');
  });
});
