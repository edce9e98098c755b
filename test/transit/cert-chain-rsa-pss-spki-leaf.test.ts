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
import * as asn1js from 'asn1js';
import { MemoryStorage, Transit } from 'transitkit';
import { describe, it } from 'vitest';
import { pemArmor } from '../../src/crypto/pki/pem.js';
import { file, makeCa, openssl } from './ca-support.js';
import { expectError } from './support.js';

const unpem = (p: string) =>
  new Uint8Array(Buffer.from(p.replace(/-----[^-]+-----/g, '').replace(/\s/g, ''), 'base64'));

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
    const pssPem = file(`${pemArmor(new Uint8Array(pss.toBER(false)), 'PUBLIC KEY')}\n`);
    // An openssl CA issues a leaf for the transit CSR with the PSS key forced in.
    const ca = makeCa('pss CA');
    const leaf = ca.issue((await t.signCsr('rsa')).csr, ['-force_pubkey', pssPem]);
    // openssl sees an RSASSA-PSS key in the certificate.
    if (!/rsassa-?pss/i.test(openssl(['x509', '-in', file(leaf), '-noout', '-text'])))
      throw new Error('fixture: leaf does not carry an RSASSA-PSS SPKI');
    await expectError(
      t.setCertificate('rsa', { certificate_chain: leaf }),
      'invalid_request',
      /does not match/,
    );
  });
});
