/**
 * What the symmetric families (`./aead.ts`, `./hmac.ts`) share: a version is
 * its raw `key` only — no asymmetric material in the stored JSON or the
 * backup `KeyEntry`, imported and byok-exported as raw bytes, exported as
 * base64 (`''`/`raw` only), no public key to read or export.
 * @module
 */
import { encodeBase64 } from '../../encoding.js';
import { internal, invalidRequest } from '../../errors.js';
import type { KeyFamily } from './family.js';

/** OpenBao's refusal of `der`/`pem` for a symmetric export. @internal */
export const SYMMETRIC_FORMAT = 'unknown format for HMAC key; supported values are `` or `raw`';

/** The base64 export of symmetric bytes (`''`/`raw`). @internal */
export function exportSymmetric(bytes: Uint8Array, format: string): string {
  if (format === 'der' || format === 'pem') throw invalidRequest(SYMMETRIC_FORMAT);
  return encodeBase64(bytes);
}

/** The members every symmetric family shares. @internal */
export const symmetricBase = {
  asymmetric: false,
  materialKind: undefined,

  materialToJson() {
    throw internal('a symmetric key version has no asymmetric material');
  },
  materialFromJson: () => undefined,
  entryFields: () => ({}),
  decodeEntry: async (_o, _info, key) => (key ? { key } : undefined),

  async importPrivate(_b, info, bytes) {
    if (bytes.length !== info.keyBytes) {
      throw invalidRequest(`invalid key size ${bytes.length} bytes for key type ${info.name}`);
    }
    return { key: bytes };
  },
  importPublic() {
    throw invalidRequest('provided type does not support public_key import');
  },
  isPublicOnly: () => false,
  byokMaterial: (v) => v.key,

  exportKey: (v, format) => exportSymmetric(v.key, format),
  exportPublicKey(info) {
    throw invalidRequest(`unknown key type ${info.name} for export type public-key`);
  },
  readBodyPublicKey: () => undefined,
} as const satisfies Partial<KeyFamily>;
