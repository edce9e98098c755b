/**
 * A CSR template whose extensionRequest attribute has an empty SET of values
 * is refused with invalid_request. It crashed signCsr with a TypeError
 * ("attribute.values is not iterable", src/crypto/pki/csr.ts parseCsrTemplate)
 * (the HTTP adapter answered 500). Vault answers
 * a template that x509.ParseCertificateRequest refuses with 400.
 */
import * as asn1js from 'asn1js';
import { MemoryStorage, Transit, TransitError } from 'transitkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AclPolicyStore, TokenStore } from '../../adapters/http/index.js';
import { pemArmor } from '../../src/crypto/pki/pem.js';
import { call, serveServices } from '../http/helpers.js';

const EXTENSION_REQUEST = '1.2.840.113549.1.9.14';
const ED25519 = '1.3.101.112';

const pem = (der: Uint8Array, label: string): string => `${pemArmor(der, label)}\n`;

/** CertificationRequest { CRI { 0, empty subject, Ed25519 SPKI, [0] { extReq SET {} } }, alg, sig }. */
function templateWithEmptyExtensionRequest(): string {
  const alg = () =>
    new asn1js.Sequence({ value: [new asn1js.ObjectIdentifier({ value: ED25519 })] });
  const cri = new asn1js.Sequence({
    value: [
      new asn1js.Integer({ value: 0 }),
      new asn1js.Sequence({ value: [] }),
      new asn1js.Sequence({
        value: [alg(), new asn1js.BitString({ valueHex: new Uint8Array(32).fill(1) })],
      }),
      new asn1js.Constructed({
        idBlock: { tagClass: 3, tagNumber: 0 },
        value: [
          new asn1js.Sequence({
            value: [
              new asn1js.ObjectIdentifier({ value: EXTENSION_REQUEST }),
              new asn1js.Set({ value: [] }),
            ],
          }),
        ],
      }),
    ],
  });
  const req = new asn1js.Sequence({
    value: [cri, alg(), new asn1js.BitString({ valueHex: new Uint8Array(64) })],
  });
  return pem(new Uint8Array(req.toBER(false)), 'CERTIFICATE REQUEST');
}

let storage: MemoryStorage;
let transit: Transit;
let server: Awaited<ReturnType<typeof serveServices>>;
beforeAll(async () => {
  storage = new MemoryStorage();
  transit = new Transit({ storage, autoRotate: false });
  await transit.createKey('ed', { type: 'ed25519' });
  server = await serveServices({
    transit,
    tokens: new TokenStore({ storage }),
    policies: new AclPolicyStore({ storage }),
  });
});
afterAll(() => server.close());

describe('csr template with an empty extensionRequest value set', () => {
  it('library: invalid_request, not a TypeError', async () => {
    let err: unknown;
    try {
      await transit.signCsr('ed', { csr: templateWithEmptyExtensionRequest() });
    } catch (e) {
      err = e;
    }
    expect(err, String(err)).toBeInstanceOf(TransitError);
    expect((err as TransitError).code).toBe('invalid_request');
  });

  it('HTTP: 400 with {"errors":[...]}, not 500', async () => {
    const r = await call(server, 'POST', '/v1/transit/keys/ed/csr', {
      body: { csr: templateWithEmptyExtensionRequest() },
    });
    expect(r.status, r.text).toBe(400);
    expect(Array.isArray(r.json?.errors)).toBe(true);
  });
});
