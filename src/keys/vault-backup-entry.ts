/**
 * One `KeyEntry` of Vault's backup blob (reference §6, §0.2), for every key
 * type: the symmetric `key`/`hmac_key`, the asymmetric material in Vault's
 * own fields, written and read by the key's family (`entryFields`,
 * `decodeEntry`) —
 * - ECDSA: `ec_x`, `ec_y`, `ec_d` as bare decimal numbers (`ec_d` null when
 *   public-only) and `public_key`, the PKIX PEM with its trailing newline;
 * - Ed25519: `key` = Go's 64-byte private key `seed ‖ pub` (null when
 *   public-only) and `public_key` = base64 of the 32-byte public key;
 * - RSA: `rsa_key` as Go's `rsa.PrivateKey` struct and `rsa_public_key`
 *   `{N, E}` (`./asymmetric/rsa-codec.ts`);
 * - `certificate_chain` (base64 DER, end entity first) only when set, as
 *   Vault ≥ 1.15 writes it with `omitempty`.
 *
 * Reading validates everything a restore would otherwise trust: points on
 * the curve, `d·G`, RSA consistency (Dp/Dq/Qinv recomputed when absent), the
 * modulus size and curve of the type, and the Ed25519 seed against its public
 * key. Errors name the field, never its value.
 * @module
 */
import { encodeBase64, tryDecodeBase64 } from '../encoding.js';
import { invalidRequest, TransitError } from '../errors.js';
import { type Ed25519Public, type ImportedMaterial, INVALID_BACKUP } from './families/family.js';
import { bytesField, type GoObject, GoStruct, intField, stringField } from './go-json.js';
import type { KeyTypeInfo } from './key-types.js';
import type { KeyVersion } from './policy.js';

export type { Ed25519Public } from './families/family.js';

const ZERO_TIME = '0001-01-01T00:00:00Z';
const WHAT = INVALID_BACKUP;

/**
 * Byte equality of *public* data in a restored entry (an Ed25519 public key
 * derived from the seed against the stored one): variable-time, so never
 * for secrets (test/reliability/secrets.test.ts lists this file for it).
 * @internal
 */
export const samePublicBytes = (a: Uint8Array, b: Uint8Array): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * Encode one version of a key of type `type` as Vault's `KeyEntry`;
 * `undefined` gives the archive's index-0 placeholder.
 * @internal
 */
export function encodeEntry(v: KeyVersion | undefined, type: KeyTypeInfo): GoStruct {
  const a = type.family.entryFields(v?.asymmetric);
  const fields: [string, unknown][] = [
    ['key', v && v.key.length > 0 ? encodeBase64(v.key) : null],
    ['hmac_key', v ? encodeBase64(v.hmac_key) : null],
    ['time', v ? v.time : ZERO_TIME],
    ['ec_x', a.ec_x ?? null],
    ['ec_y', a.ec_y ?? null],
    ['ec_d', a.ec_d ?? null],
    ['rsa_key', a.rsa_key ?? null],
    ['rsa_public_key', a.rsa_public_key ?? null],
    ['public_key', a.public_key ?? ''],
    ['convergent_version', v ? v.convergent_version : 0],
    ['creation_time', v ? v.creation_time : 0],
  ];
  if (v?.certificate_chain && v.certificate_chain.length > 0) {
    fields.push(['certificate_chain', v.certificate_chain.map(encodeBase64)]);
  }
  return new GoStruct(fields);
}

function chainField(o: GoObject): Uint8Array[] | undefined {
  const v = o.get('certificate_chain');
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) throw invalidRequest(`${WHAT}: 'certificate_chain' must be an array`);
  const out = v.map((c) => {
    const b = typeof c === 'string' ? tryDecodeBase64(c) : undefined;
    if (!b || b.length === 0) throw invalidRequest(`${WHAT}: 'certificate_chain' is not base64`);
    return b;
  });
  return out.length > 0 ? out : undefined;
}

/** An entry with no material at all (the archive's index-0 placeholder). */
function isEmpty(o: GoObject, key: Uint8Array | undefined): boolean {
  const none = (f: string) => o.get(f) === undefined || o.get(f) === null;
  return (
    (!key || key.length === 0) &&
    none('ec_x') &&
    none('rsa_key') &&
    none('rsa_public_key') &&
    stringField(o, 'public_key', WHAT) === ''
  );
}

/**
 * Decode one `KeyEntry` of a key of type `type`; `undefined` for the empty
 * placeholder. Symmetric key sizes are checked by the caller (hmac depends on
 * the policy's `key_size`).
 * @throws TransitError `invalid_request` for malformed or inconsistent material.
 * @internal
 */
export async function decodeEntry(
  o: GoObject,
  type: KeyTypeInfo,
  ed25519Public: Ed25519Public,
): Promise<KeyVersion | undefined> {
  const key = bytesField(o, 'key', WHAT);
  if (isEmpty(o, key)) return undefined;
  let material: ImportedMaterial | undefined;
  try {
    material = await type.family.decodeEntry(o, type, key, ed25519Public);
  } catch (err) {
    if (err instanceof TransitError && !err.message.startsWith(WHAT)) {
      throw invalidRequest(`${WHAT}: ${err.message}`);
    }
    throw err;
  }
  if (!material) return undefined;
  const { asymmetric } = material;
  const chain = chainField(o);
  return {
    // As the family keeps it (ECDSA and RSA: in the asymmetric fields only).
    key: material.key,
    hmac_key: bytesField(o, 'hmac_key', WHAT) ?? new Uint8Array(0),
    time: stringField(o, 'time', WHAT) || ZERO_TIME,
    creation_time: intField(o, 'creation_time', WHAT),
    convergent_version: intField(o, 'convergent_version', WHAT),
    ...(asymmetric ? { asymmetric } : {}),
    ...(chain ? { certificate_chain: chain } : {}),
  };
}
