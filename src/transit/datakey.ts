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
import { asRequest, optInt } from '../request.js';
import { sealWith } from './encrypt.js';
import { type Engine, requireKey } from './engine.js';
import type { DataKeyRequest, DataKeyResult } from './types.js';

const BITS = new Set([128, 256, 512]);

/** @internal */
export async function generateDataKey(
  e: Engine,
  name: string,
  kind: string,
  req: DataKeyRequest = {},
): Promise<DataKeyResult> {
  checkKeyName(name);
  if (kind !== 'plaintext' && kind !== 'wrapped') {
    throw invalidRequest("Invalid path, must be 'plaintext' or 'wrapped'");
  }
  const r = asRequest(req);
  const bits = optInt(r.bits, 'bits') ?? 256;
  if (!BITS.has(bits)) throw invalidRequest('invalid bit length');
  const key = await requireKey(e, name, 'encryption key not found');
  const material = e.backend.randomBytes(bits / 8);
  const out: DataKeyResult = await sealWith(e, key, r, material);
  if (kind === 'plaintext') out.plaintext = encodeBase64(material);
  return out;
}
