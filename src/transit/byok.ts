/**
 * Secure (BYOK) export (reference §7).
 *
 * Route: `GET /transit/byok-export/:destination/:source(/:version)`.
 *
 * Each version of `source` is wrapped for the RSA public key of the latest
 * version of `destination` — typically another engine's wrapping key,
 * imported here public-only — in exactly the import format: RSA-OAEP(`hash`)
 * of a fresh AES-256 key ‖ AES-KWP of the material (raw bytes for symmetric
 * and hmac keys, PKCS#8 for asymmetric ones). Only an rsa-4096 destination
 * gives a blob another engine's `import` accepts (its first 512 bytes are the
 * wrapped key), as in Vault. The source must be exportable; neither key may
 * be soft-deleted; versions are chosen as for export.
 * @module
 */
import { importHash, wrapImportBlob } from '../crypto/import-blob.js';
import { encodeBase64 } from '../encoding.js';
import { invalidRequest, notFound } from '../errors.js';
import { asymmetricFamilyOf } from '../keys/asymmetric/family.js';
import { requireMaterial } from '../keys/asymmetric/material.js';
import { checkKeyName } from '../keys/names.js';
import { assertNotSoftDeleted, typeInfo } from '../keys/policy.js';
import { againIfChanged, type Engine } from './engine.js';
import { versionsOf } from './export.js';
import { exportMaterial } from './import-material.js';
import { BYOK_EXPORT_FIELDS } from './mobility-fields.js';

// The endpoint's schema lives apart (no PKI for the route table) and is exported here too.
export { BYOK_EXPORT_FIELDS };

import type { ByokExportOptions, ByokExportResult } from './mobility-types.js';

/** @internal */
export function byokExport(
  e: Engine,
  destination: string,
  source: string,
  options: ByokExportOptions = {},
): Promise<ByokExportResult> {
  return againIfChanged(byokExportOnce(e, destination, source, options), () =>
    byokExportOnce(e, destination, source, options),
  );
}

/** {@link byokExport}, once. */
async function byokExportOnce(
  e: Engine,
  destination: string,
  source: string,
  options: ByokExportOptions = {},
): Promise<ByokExportResult> {
  checkKeyName(destination);
  checkKeyName(source);
  const o = BYOK_EXPORT_FIELDS.request(options, 'options');
  const hash = importHash(o.hash);
  const dest = await e.store.get(destination);
  if (!dest) throw notFound('no such destination key to export to');
  const dp = dest.doc.policy;
  assertNotSoftDeleted(dp);
  const destFamily = asymmetricFamilyOf(typeInfo(dp));
  if (!destFamily?.wrappingPublicKey) {
    throw invalidRequest('unsupported key type in use; must be a rsa key');
  }
  const src = await e.store.get(source);
  if (!src) throw notFound('no such source key for export');
  const sp = src.doc.policy;
  if (!sp.exportable) throw invalidRequest('key is not exportable');
  assertNotSoftDeleted(sp);
  const dv = await e.store.version(dest, dp.latest_version);
  const pub = destFamily.wrappingPublicKey(requireMaterial(dv.asymmetric));
  const info = typeInfo(sp);
  const keys: Record<string, string> = {};
  // `version` is the route's path parameter, not a field of the schema.
  for (const n of versionsOf(sp, (o as { version?: unknown }).version)) {
    const material = exportMaterial(info, await e.store.version(src, n), n);
    keys[String(n)] = encodeBase64(await wrapImportBlob(e.backend, pub, hash, material));
  }
  return { name: sp.name, type: sp.type, keys };
}
