/**
 * The endpoint schemas of key import and BYOK export, apart from `./import.ts`
 * and `./byok.ts`: the HTTP route table needs the schemas, not the ASN.1 and
 * PKI libraries that reading or writing key material loads (a worker bundle of
 * `transitkit/http` carried them all).
 * @module
 */
import { type FieldSpecs, schemaFor } from '../schema.js';
import * as F from './fields.js';
import type {
  ByokExportOptions,
  ImportKeyRequest,
  ImportKeyVersionRequest,
} from './mobility-types.js';

/**
 * Fields of `GET /transit/byok-export/:destination/:source(/:version)`
 * (`version` is a path parameter).
 * @public
 */
export const BYOK_EXPORT_FIELDS = schemaFor<Omit<ByokExportOptions, 'version'>>()({
  hash: { ...F.IMPORT_HASH_FUNCTION, description: 'The RSA-OAEP hash; default SHA256.' },
});

const MATERIAL_FIELDS = {
  ciphertext: F.IMPORT_CIPHERTEXT,
  hash_function: F.IMPORT_HASH_FUNCTION,
  public_key: F.IMPORT_PUBLIC_KEY,
} as const satisfies FieldSpecs;

/**
 * Fields of `POST /transit/keys/:name/import`; `convergent_encryption` is
 * accepted only to be refused with Vault's message.
 * @public
 */
export const IMPORT_KEY_FIELDS = schemaFor<
  ImportKeyRequest & { convergent_encryption?: boolean }
>()({
  ...MATERIAL_FIELDS,
  type: F.KEY_TYPE,
  parameter_set: F.PARAMETER_SET,
  allow_rotation: { type: 'bool', description: 'Allow rotating the imported key.' },
  derived: F.DERIVED,
  context: F.CONTEXT,
  exportable: F.EXPORTABLE,
  allow_plaintext_backup: F.ALLOW_PLAINTEXT_BACKUP,
  auto_rotate_period: F.AUTO_ROTATE_PERIOD,
  convergent_encryption: {
    ...F.CONVERGENT_ENCRYPTION,
    description: 'Not supported on imported keys (refused when set).',
  },
});

/** Fields of `POST /transit/keys/:name/import_version`. @public */
export const IMPORT_KEY_VERSION_FIELDS = schemaFor<ImportKeyVersionRequest>()({
  ...MATERIAL_FIELDS,
  version: {
    type: 'int',
    description: 'The public-only version to complete with its private key.',
  },
});
