/**
 * `signCsr` (src/crypto/pki/csr.ts) on both asymmetric backends for every
 * transit signing key type: the `openssl` CLI verifies each CSR's
 * self-signature and reads back our public key; the signature algorithm is
 * the one Go picks; the template's subject and attributes (extension request,
 * challengePassword, critical flags) are kept byte for byte, from OpenBao's
 * template CSR and from one `openssl req` makes; bad templates are refused
 * with `invalid_request`.
 *
 * Note: `openssl req -verify` (3.0) exits 0 even when the signature is bad, so
 * the helper checks its message, and a negative control proves it.
 */
import path from 'node:path';
import { PemConverter } from '@peculiar/x509';
import * as asn1js from 'asn1js';
import { Attribute, CertificationRequest } from 'pkijs';
import { describe, expect, it } from 'vitest';
import type { AsymmetricBackend, EcCurve } from '../../src/crypto/asymmetric-backend.js';
import { nodeAsymmetric } from '../../src/crypto/node/asymmetric.js';
import { publicKeySpki, signCsr } from '../../src/crypto/pki/csr.js';
import { type PrivateKeyMaterial, pemEncode } from '../../src/crypto/pki/keys.js';
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

const { dir, tmp } = tempFiles('transitkit-csr-');
const openssl = runOpenssl;
/** True when openssl reports a good self-signature (its exit code does not say). */
function opensslVerifies(csrPem: string): boolean {
  const { stdout, stderr } = openssl('req', '-in', tmp(csrPem), '-noout', '-verify');
  return `${stdout}${stderr}`.includes('self-signature verify OK');
}
const der = (pem: string): Uint8Array<ArrayBuffer> => new Uint8Array(PemConverter.decodeFirst(pem));
const hex = (b: ArrayBuffer | Uint8Array): string => Buffer.from(new Uint8Array(b)).toString('hex');
const parseCsr = (pem: string) => CertificationRequest.fromBER(der(pem));
const attributesHex = (csr: CertificationRequest): string[] =>
  (csr.attributes ?? []).map((a) => hex(a.toSchema().toBER()));

/** Every transit signing key type, with the signature OID Go uses (RSA: with NULL params). */
type MakeKey = (b: AsymmetricBackend) => Promise<PrivateKeyMaterial>;
const RSA_SHA256 = '1.2.840.113549.1.1.11';
const ec =
  (c: EcCurve): MakeKey =>
  async (b) => ({ type: 'ec', key: await ecKey(b, c) });
const KEY_TYPES: ReadonlyArray<readonly [string, MakeKey, string]> = [
  ['ecdsa-p256', ec('p256'), '1.2.840.10045.4.3.2'],
  ['ecdsa-p384', ec('p384'), '1.2.840.10045.4.3.3'],
  ['ecdsa-p521', ec('p521'), '1.2.840.10045.4.3.4'],
  ['ed25519', async (b) => ({ type: 'ed25519', key: await edKey(b) }), '1.3.101.112'],
  ['rsa-2048', async (b) => ({ type: 'rsa', key: await rsaKey(b, 2048) }), RSA_SHA256],
  ['rsa-3072', async () => ({ type: 'rsa', key: wycheproofRsa(3072) }), RSA_SHA256],
  ['rsa-4096', async () => ({ type: 'rsa', key: wycheproofRsa(4096) }), RSA_SHA256],
];

const fixtureTemplate = loadFixture<{ vectors: Array<{ id: string; csr_pem: string }> }>(
  'more-vectors',
).vectors.find((v) => v.id === 'openbao-template-csr')?.csr_pem as string;

/** An openssl-made template: subject, SANs, a critical keyUsage and a challengePassword. */
const opensslTemplate = (() => {
  const cnf = tmp(
    `[req]\nprompt = no\ndistinguished_name = dn\nattributes = attrs\nreq_extensions = ext
[dn]\nCN = transit.example\nO = Acme Corp
[attrs]\nchallengePassword = not-a-secret
[ext]\nsubjectAltName = DNS:transit.example, IP:10.0.0.1, email:ops@example.com
keyUsage = critical, digitalSignature\n`,
    'cnf',
  );
  const key = path.join(dir, 'template.key');
  const args = ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'];
  return openssl(...args, '-nodes', '-keyout', key, '-config', cnf).stdout;
})();

const TEMPLATES = [
  [
    'the OpenBao template',
    fixtureTemplate,
    'CN=example.com,OU=Unit,O=Organization,L=City,ST=State,C=US',
    ['DNS:example.com, DNS:www.example.com'],
  ],
  [
    'an openssl template',
    opensslTemplate,
    'O=Acme Corp,CN=transit.example',
    [
      'DNS:transit.example, IP Address:10.0.0.1, email:ops@example.com',
      'X509v3 Key Usage: critical',
      'challengePassword',
    ],
  ],
] as const;

describe('test inputs', () => {
  it('both templates carry their own valid self-signature', () => {
    expect(fixtureTemplate).toContain('BEGIN CERTIFICATE REQUEST');
    for (const [, pem] of TEMPLATES) expect(opensslVerifies(pem)).toBe(true);
  });

  it('negative control: a CSR with a corrupted signature is reported as not verifying', async () => {
    const pem = await signCsr({
      key: { type: 'ec', key: await ecKey(nodeAsymmetric, 'p256') },
      backend: nodeAsymmetric,
    });
    const bytes = der(pem);
    bytes[bytes.length - 3] = (bytes[bytes.length - 3] ?? 0) ^ 0x01;
    expect(opensslVerifies(`${PemConverter.encode(bytes, 'CERTIFICATE REQUEST')}\n`)).toBe(false);
  });
});

describe.each(BACKENDS)('signCsr on the %s backend', (_name, backend) => {
  describe.each(KEY_TYPES)('%s', (_type, makeKey, sigOid) => {
    async function check(templatePem?: string) {
      const key = await makeKey(backend);
      const pem = await signCsr({ key, backend, templatePem });
      expect(pem).toMatch(
        /^-----BEGIN CERTIFICATE REQUEST-----\n[A-Za-z0-9+/=\n]+\n-----END CERTIFICATE REQUEST-----\n$/,
      );
      expect(opensslVerifies(pem)).toBe(true);
      const spkiPem = pemEncode(await publicKeySpki(key, backend), 'PUBLIC KEY');
      expect(openssl('req', '-in', tmp(pem), '-pubkey', '-noout').stdout).toBe(spkiPem);
      const csr = parseCsr(pem);
      expect(csr.version).toBe(0);
      expect(csr.signatureAlgorithm.algorithmId).toBe(sigOid);
      expect(csr.signatureAlgorithm.algorithmParams instanceof asn1js.Null).toBe(
        sigOid === RSA_SHA256,
      );
      return { pem, csr };
    }

    it('signs an empty CSR: empty subject, empty attributes, our key', async () => {
      const { csr, pem } = await check();
      expect(hex(csr.subject.toSchema().toBER())).toBe('3000');
      expect(csr.attributes ?? []).toEqual([]); // pkijs reads an empty [0] as undefined
      // RFC 2986 attributes [0] is mandatory: Go writes A0 00 right after the SPKI.
      expect(hex(der(pem))).toContain(`${hex(csr.subjectPublicKeyInfo.toSchema().toBER())}a000`);
      expect(await signCsr({ key: await makeKey(backend), backend, templatePem: '' })).toMatch(
        /^-----BEGIN/,
      );
    });

    it.each(TEMPLATES)(
      'keeps the subject and attributes of %s and replaces its key',
      async (_t, template, subject, texts) => {
        const { pem, csr } = await check(template);
        const tpl = parseCsr(template);
        expect(hex(csr.subject.toSchema().toBER())).toBe(hex(tpl.subject.toSchema().toBER()));
        expect(attributesHex(csr)).toEqual(attributesHex(tpl));
        expect(hex(csr.subjectPublicKeyInfo.toSchema().toBER())).not.toBe(
          hex(tpl.subjectPublicKeyInfo.toSchema().toBER()),
        );
        const file = tmp(pem);
        expect(
          openssl('req', '-in', file, '-noout', '-subject', '-nameopt', 'RFC2253').stdout.trim(),
        ).toBe(`subject=${subject}`);
        const text = openssl('req', '-in', file, '-noout', '-text').stdout;
        for (const t of texts) expect(text).toContain(t);
      },
    );
  });
});

describe('determinism across backends', () => {
  it('RSA and Ed25519 CSRs are byte-identical on node and noble for the same key', async () => {
    const keys: PrivateKeyMaterial[] = [
      { type: 'rsa', key: wycheproofRsa(3072) },
      { type: 'ed25519', key: await edKey(nodeAsymmetric) },
    ];
    for (const key of keys) {
      const [a, b] = await Promise.all(
        BACKENDS.map(([, backend]) => signCsr({ key, backend, templatePem: fixtureTemplate })),
      );
      expect(a).toBe(b);
    }
  });
});

describe('round trip', () => {
  it('a CSR we signed is a template: re-signed with another key it keeps subject and attributes', async () => {
    for (const template of [undefined, fixtureTemplate, opensslTemplate]) {
      const first = await signCsr({
        key: { type: 'ed25519', key: await edKey(nodeAsymmetric) },
        backend: nodeAsymmetric,
        templatePem: template,
      });
      const key: PrivateKeyMaterial = { type: 'ec', key: await ecKey(nodeAsymmetric, 'p521') };
      const second = await signCsr({ key, backend: nodeAsymmetric, templatePem: first });
      expect(opensslVerifies(second)).toBe(true);
      const [a, b] = [parseCsr(first), parseCsr(second)];
      expect(hex(b.subject.toSchema().toBER())).toBe(hex(a.subject.toSchema().toBER()));
      expect(attributesHex(b)).toEqual(attributesHex(a));
      expect(hex(b.subjectPublicKeyInfo.toSchema().toBER())).toBe(
        hex(await publicKeySpki(key, nodeAsymmetric)),
      );
    }
  });
});

describe('bad templates are refused with invalid_request', () => {
  const fixtureDer = der(fixtureTemplate);
  const csrPem = (bytes: Uint8Array<ArrayBuffer>) =>
    `${PemConverter.encode(bytes, 'CERTIFICATE REQUEST')}\n`;
  const badExtensionRequest = (() => {
    const csr = parseCsr(fixtureTemplate);
    csr.attributes = [
      new Attribute({ type: '1.2.840.113549.1.9.14', values: [new asn1js.Integer({ value: 7 })] }),
    ];
    return csrPem(new Uint8Array(csr.toSchema(true).toBER()));
  })();
  const edPem = openssl('genpkey', '-algorithm', 'ed25519').stdout;
  const spkiPem = openssl('pkey', '-in', tmp(edPem), '-pubout').stdout;
  const headers =
    'Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00112233445566778899AABBCCDDEEFF\n';
  const label = 'CERTIFICATE REQUEST';
  const badBase64 = `-----BEGIN ${label}-----\n@@not base64@@\n-----END ${label}-----\n`;
  const DECODE = /^could not decode PEM certificate request/;
  const PARSE = 'could not parse certificate request: ';
  const cases: ReadonlyArray<readonly [string, string, RegExp | string]> = [
    ['text that is not PEM', 'not a certificate request', DECODE],
    ['whitespace only', ' \n\t', /^empty csr template$/],
    ['a PEM block with bad base64', badBase64, DECODE],
    ['a PEM block with no END line', fixtureTemplate.replace(/-----END[\s\S]*$/, ''), DECODE],
    [
      'a CERTIFICATE block',
      fixtureTemplate.replaceAll(label, 'CERTIFICATE'),
      'unexpected PEM block',
    ],
    ['a private key', edPem, 'unexpected PEM block type'],
    ['an encrypted PEM', fixtureTemplate.replace('-----\n', `-----\n${headers}\n`), 'encrypted'],
    ['DER that is not ASN.1', csrPem(new Uint8Array([0xde, 0xad])), `${PARSE}malformed ASN.1`],
    ['a truncated CSR', csrPem(fixtureDer.slice(0, -20)), `${PARSE}malformed ASN.1`],
    ['trailing bytes', csrPem(new Uint8Array([...fixtureDer, 0])), `${PARSE}trailing data`],
    ['an SPKI under the CSR label', csrPem(der(spkiPem)), `${PARSE}unexpected ASN.1 structure`],
    ['a malformed extension request', badExtensionRequest, `${PARSE}extension request`],
  ];

  it.each(cases)('%s', async (_what, templatePem, message) => {
    const key: PrivateKeyMaterial = { type: 'ec', key: await ecKey(nodeAsymmetric, 'p256') };
    const err = await signCsr({ key, backend: nodeAsymmetric, templatePem }).catch(
      (e: unknown) => e,
    );
    expect(isTransitError(err, 'invalid_request'), String(err)).toBe(true);
    expect((err as Error).message).toMatch(message);
    expect((err as Error).message).not.toMatch(/[A-Za-z0-9+/]{40}/); // never echoes the input
  });

  it('an unknown key type is a TypeError', async () => {
    const key = { type: 'dsa', key: {} } as unknown as PrivateKeyMaterial;
    await expect(signCsr({ key, backend: nodeAsymmetric })).rejects.toThrow(TypeError);
  });
});
