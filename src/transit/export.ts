/**
 * Export of key material (reference §8, OpenBao's `format` included).
 *
 * Route: `GET /transit/export/:key_type/:name(/:version)`.
 *
 * Export types: `encryption-key`, `signing-key`, `hmac-key`, `public-key`
 * and `certificate-chain`. Every type but `public-key` and
 * `certificate-chain` needs `exportable`. The strings are Vault's table:
 * HMAC secrets as base64; keys through their type's family (symmetric keys
 * base64; PKCS#1 / SEC 1 / PKIX PEM, PKCS#8 for `der`/`pem`, Ed25519
 * base64), PEM trimmed or not exactly as Vault does. Vault answers several of these
 * refusals with HTTP 500; here they are all `invalid_request`.
 * @module
 */
import { chainToPem } from '../crypto/pki/pem.js';
import { invalidRequest, notFound } from '../errors.js';
import type { ExportFormat } from '../keys/families/family.js';
import { exportSymmetric } from '../keys/families/symmetric.js';
import type { KeyTypeInfo } from '../keys/key-types.js';
import { checkKeyName } from '../keys/names.js';
import {
  assertNotSoftDeleted,
  type KeyPolicy,
  type KeyVersion,
  oldestVersion,
  typeInfo,
} from '../keys/policy.js';
import { optString } from '../request.js';
import { schemaFor } from '../schema.js';
import { againIfChanged, type Engine } from './engine.js';
import type { ExportKeyOptions, ExportKeyResult, ExportKeyType } from './types.js';

/** Fields of `GET /transit/export/:key_type/:name(/:version)`. @public */
export const EXPORT_KEY_FIELDS = schemaFor<ExportKeyOptions>()({
  format: { type: 'string', description: "'' (Vault's native strings, default), raw, der or pem." },
});

const TYPES: ReadonlySet<string> = new Set<ExportKeyType>([
  'encryption-key',
  'signing-key',
  'hmac-key',
  'public-key',
  'certificate-chain',
]);
const FORMATS: ReadonlySet<string> = new Set<ExportFormat>(['', 'raw', 'der', 'pem']);

/** Vault's per-type capability checks. */
function checkCapability(type: ExportKeyType, info: KeyTypeInfo): void {
  if (type === 'encryption-key' && !info.supportsEncryption) {
    throw invalidRequest('encryption not supported for the key');
  }
  if (type === 'signing-key' && !info.supportsSigning) {
    throw invalidRequest('signing not supported for the key');
  }
  if (type === 'certificate-chain' && !info.supportsSigning) {
    throw invalidRequest('certificate chain not supported for keys that do not support signing');
  }
}

/** The versions to export: all (omitted), `latest`, `N` or `vN` (also byok-export). @internal */
export function versionsOf(p: KeyPolicy, version: unknown): number[] {
  const first = Math.max(oldestVersion(p), p.min_decryption_version);
  if (version === undefined || version === null || version === '') {
    const all: number[] = [];
    for (let v = first; v <= p.latest_version; v++) all.push(v);
    return all;
  }
  let n: number;
  if (version === 'latest') n = p.latest_version;
  else if (typeof version === 'number' && Number.isSafeInteger(version)) n = version;
  else if (typeof version === 'string' && /^v?[+-]?[0-9]{1,15}$/.test(version)) {
    n = Number(version.replace(/^v/, ''));
  } else throw invalidRequest('invalid key version');
  if (n < p.min_decryption_version) {
    throw invalidRequest('version for export is below minimum decryption version');
  }
  if (n > p.latest_version || n < first) {
    throw invalidRequest('version does not exist or cannot be found');
  }
  return [n];
}

/** One version's export string (Vault `getExportKey`). */
function exportString(
  type: ExportKeyType,
  p: KeyPolicy,
  info: KeyTypeInfo,
  v: KeyVersion,
  format: ExportFormat,
): string {
  switch (type) {
    case 'hmac-key':
      if (!info.supportsHmac) {
        throw invalidRequest(`HMAC is not supported for keys of type ${info.name}`);
      }
      return exportSymmetric(v.hmac_key, format);
    case 'certificate-chain':
      if (!v.certificate_chain) {
        throw invalidRequest('selected key version does not have a certificate chain imported');
      }
      return chainToPem(v.certificate_chain);
    case 'public-key':
      return info.family.exportPublicKey(info, p, v, format);
    default:
      // encryption-key and signing-key (capabilities checked before).
      return info.family.exportKey(v, format);
  }
}

/**
 * `GET /transit/export/:key_type/:name(/:version)`.
 * @throws TransitError `not_found` for a missing key; `invalid_request` for a bad
 * type, format or version, a non-exportable or soft-deleted key, or a type the key lacks.
 * @internal
 */
export function exportKey(
  e: Engine,
  exportType: string,
  name: string,
  version?: string | number,
  options: ExportKeyOptions = {},
): Promise<ExportKeyResult> {
  return againIfChanged(exportKeyOnce(e, exportType, name, version, options), () =>
    exportKeyOnce(e, exportType, name, version, options),
  );
}

/** {@link exportKey}, once. */
async function exportKeyOnce(
  e: Engine,
  exportType: string,
  name: string,
  version?: string | number,
  options: ExportKeyOptions = {},
): Promise<ExportKeyResult> {
  if (typeof exportType !== 'string' || !TYPES.has(exportType)) {
    const shown = typeof exportType === 'string' ? exportType : `(${typeof exportType})`;
    throw invalidRequest(`invalid export type: ${shown}`);
  }
  const type = exportType as ExportKeyType;
  const format = optString(EXPORT_KEY_FIELDS.request(options, 'options').format, 'format') ?? '';
  if (!FORMATS.has(format)) throw invalidRequest(`invalid format: ${format}`);
  checkKeyName(name);
  const key = await e.store.get(name);
  if (!key) throw notFound(`no key named ${name}`);
  const p = key.doc.policy;
  if (!p.exportable && type !== 'public-key' && type !== 'certificate-chain') {
    throw invalidRequest('private key material is not exportable');
  }
  assertNotSoftDeleted(p);
  const info = typeInfo(p);
  checkCapability(type, info);
  const keys: Record<string, string> = {};
  for (const n of versionsOf(p, version)) {
    const v = await e.store.version(key, n);
    keys[String(n)] = exportString(type, p, info, v, format as ExportFormat);
  }
  return { name: p.name, type: p.type, keys };
}
