/**
 * The endpoint schemas of `POST /transit/keys/:name/csr` and
 * `POST /transit/keys/:name/set-certificate`, apart from `./certificates.ts`:
 * the HTTP route table needs the schemas, not the ASN.1 and PKI libraries that
 * building a CSR or reading a chain loads (a worker bundle of `transitkit/http`
 * carried them all).
 * @module
 */
import { schemaFor } from '../schema.js';
import type { SetCertificateRequest, SignCsrRequest } from './types.js';

/** Fields of `POST /transit/keys/:name/csr`. @public */
export const SIGN_CSR_FIELDS = schemaFor<SignCsrRequest>()({
  version: {
    type: 'string',
    description: 'Key version to sign with: a number or latest (default).',
  },
  csr: { type: 'string', description: 'PEM CSR template; its subject and attributes are kept.' },
});

/** Fields of `POST /transit/keys/:name/set-certificate`. @public */
export const SET_CERTIFICATE_FIELDS = schemaFor<SetCertificateRequest>()({
  version: {
    type: 'string',
    description: 'Key version of the chain: a number or latest (default).',
  },
  certificate_chain: { type: 'string', description: 'PEM certificates, end entity first.' },
});
