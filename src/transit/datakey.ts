/**
 * Data keys: a fresh random key returned encrypted under a named key, and in
 * the clear only on the `plaintext` path (so a policy can allow `wrapped` only).
 *
 * Route: `POST /transit/datakey/:type/:name` (`type` = `plaintext` | `wrapped`).
 * @module
 */
import { encodeBase64 } from '../encoding.js';
import { invalidRequest } from '../errors.js';
import { checkKeyName } from '../keys/names.js';
import { optInt } from '../request.js';
import { schemaFor } from '../schema.js';
import { againIfChanged, type Engine, requireKey } from './engine.js';
import * as F from './fields.js';
import { sealWith } from './seal-open.js';
import type { DataKeyRequest, DataKeyResult } from './types.js';

/** Fields of `POST /transit/datakey/:type/:name`. @public */
export const DATAKEY_FIELDS = schemaFor<DataKeyRequest>()({
  context: F.CONTEXT,
  associated_data: F.ASSOCIATED_DATA,
  nonce: F.NONCE,
  bits: { type: 'int', description: 'Data key size in bits: 128, 256 (default) or 512.' },
  key_version: F.KEY_VERSION,
});

const BITS = new Set([128, 256, 512]);

/** @internal */
export function generateDataKey(
  e: Engine,
  name: string,
  kind: string,
  req: DataKeyRequest = {},
): Promise<DataKeyResult> {
  return againIfChanged(generateDataKeyOnce(e, name, kind, req), () =>
    generateDataKeyOnce(e, name, kind, req),
  );
}

/** {@link generateDataKey}, once. */
async function generateDataKeyOnce(
  e: Engine,
  name: string,
  kind: string,
  req: DataKeyRequest = {},
): Promise<DataKeyResult> {
  checkKeyName(name);
  if (kind !== 'plaintext' && kind !== 'wrapped') {
    throw invalidRequest("Invalid path, must be 'plaintext' or 'wrapped'");
  }
  const r = DATAKEY_FIELDS.request(req);
  const bits = optInt(r.bits, 'bits') ?? 256;
  if (!BITS.has(bits)) throw invalidRequest('invalid bit length');
  const key = await requireKey(e, name, 'encryption key not found');
  e.ops('datakey', key.doc.policy.type, undefined);
  const material = e.backend.randomBytes(bits / 8);
  const out: DataKeyResult = await sealWith(e, key, r, material);
  if (kind === 'plaintext') out.plaintext = encodeBase64(material);
  return out;
}
