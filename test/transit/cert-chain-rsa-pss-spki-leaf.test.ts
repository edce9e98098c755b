/**
 * set-certificate refuses (it accepted) a leaf whose
 * SubjectPublicKeyInfo uses the id-RSASSA-PSS OID (1.2.840.113549.1.1.10)
 * for an rsa-* key, because decodeSpki (src/crypto/pki/spki.ts) maps the PSS
 * OID to a plain RSA key (a PKCS#8 *import* fallback of Vault's, not a
 * certificate rule). Vault parses the chain with Go's x509.ParseCertificate,
 * which gives such a certificate PublicKeyAlgorithm Unknown, and
 * ValidateLeafCertKeyMatch then refuses it with 400 "provided leaf
 * certificate public key algorithm 'unknown' does not match the transit key
 * type". The stored chain would advertise a PSS-only key for a key that signs
 * PKCS#1 v1.5 as well.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as asn1js from 'asn1js';
import { MemoryStorage, Transit } from 'transitkit';
import { afterAll, describe, it } from 'vitest';
import { expectError } from './support.js';

const dir = mkdtempSync(path.join(tmpdir(), 'transitkit-pss-leaf-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const f = (name: string, content?: string) => {
  const p = path.join(dir, name);
  if (content !== undefined) writeFileSync(p, content);
  return p;
};
const openssl = (args: string[]) =>
  execFileSync('openssl', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const unpem = (p: string) =>
  new Uint8Array(Buffer.from(p.replace(/-----[^-]+-----/g, '').replace(/\s/g, ''), 'base64'));
function pem(der: Uint8Array, label: string): string {
  const b = Buffer.from(der)
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .replace(/\n$/, '');
  return `-----BEGIN ${label}-----\n${b}\n-----END ${label}-----\n`;
}

describe('set-certificate and an RSASSA-PSS SPKI leaf', () => {
  it('is refused, as Vault (Go x509: unknown public key algorithm)', async () => {
    const t = new Transit({ storage: new MemoryStorage(), autoRotate: false });
    await t.createKey('rsa', { type: 'rsa-2048' });
    // The transit key's own modulus, under the id-RSASSA-PSS OID (no parameters).
    const pub = (await t.exportKey('public-key', 'rsa', 1)).keys['1'] as string;
    const spki = asn1js.fromBER(unpem(pub)).result as asn1js.Sequence;
    const bits = spki.valueBlock.value[1] as asn1js.BitString;
    const pss = new asn1js.Sequence({
      value: [
        new asn1js.Sequence({
          value: [new asn1js.ObjectIdentifier({ value: '1.2.840.113549.1.1.10' })],
        }),
        new asn1js.BitString({ valueHex: bits.valueBlock.valueHexView.slice() }),
      ],
    });
    f('pss.pem', pem(new Uint8Array(pss.toBER(false)), 'PUBLIC KEY'));
    // An openssl CA issues a leaf for the transit CSR with the PSS key forced in.
    openssl([
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      f('ca.key'),
      '-out',
      f('ca.pem'),
      '-subj',
      '/CN=pss CA',
      '-days',
      '2',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
    ]);
    f('leaf.csr', (await t.signCsr('rsa')).csr);
    openssl([
      'x509',
      '-req',
      '-in',
      f('leaf.csr'),
      '-CA',
      f('ca.pem'),
      '-CAkey',
      f('ca.key'),
      '-CAcreateserial',
      '-force_pubkey',
      f('pss.pem'),
      '-out',
      f('leaf.pem'),
      '-days',
      '1',
    ]);
    const leaf = readFileSync(f('leaf.pem'), 'utf8');
    // openssl sees an RSASSA-PSS key in the certificate.
    if (!/rsassa-?pss/i.test(openssl(['x509', '-in', f('leaf.pem'), '-noout', '-text'])))
      throw new Error('fixture: leaf does not carry an RSASSA-PSS SPKI');
    await expectError(
      t.setCertificate('rsa', { certificate_chain: leaf }),
      'invalid_request',
      /does not match/,
    );
  });
});
