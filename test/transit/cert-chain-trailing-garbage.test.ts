/**
 * set-certificate refuses text after the last PEM block. It was silently
 * dropped (src/crypto/pki/chain.ts parseCertificateChain counted only BEGIN
 * lines) and echoed back in the response. Vault's parseCertificateChain TrimSpaces the input and
 * loops pem.Decode until nothing is left; leftover text makes pem.Decode
 * return nil → 400 "could not decode PEM block in certificate chain".
 */
import { MemoryStorage, Transit } from 'transitkit';
import { beforeAll, describe, it } from 'vitest';
import { makeCa } from './ca-support.js';
import { expectError } from './support.js';

let t: Transit;
let leaf: string;
let ca: ReturnType<typeof makeCa>;
beforeAll(async () => {
  t = new Transit({ storage: new MemoryStorage(), autoRotate: false });
  await t.createKey('ec', { type: 'ecdsa-p256' });
  ca = makeCa('trailing garbage CA');
  leaf = ca.issue((await t.signCsr('ec')).csr);
});

describe('set-certificate refuses trailing non-PEM data (as Vault)', () => {
  it('text after the last END line', async () => {
    await expectError(
      t.setCertificate('ec', { certificate_chain: `${leaf}${ca.pem}garbage\n` }),
      'invalid_request',
    );
  });

  it('a dangling "-----BEGIN" after the last block', async () => {
    await expectError(
      t.setCertificate('ec', { certificate_chain: `${leaf}-----BEGIN` }),
      'invalid_request',
    );
  });
});
