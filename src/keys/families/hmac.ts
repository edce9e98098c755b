/**
 * The HMAC family (type `hmac`): the policy's `key_size` (32–512 bytes,
 * default 32) sizes each version's key, which is also its `hmac_key`.
 * Vault does not import hmac keys; its backups write `key_size`, which is
 * how the two type-id dialects are told apart (reference §0.1).
 * @module
 */
import { invalidRequest } from '../../errors.js';
import { INVALID_BACKUP, type KeyFamily } from './family.js';
import { symmetricBase } from './symmetric.js';

/** HMAC key size bounds in bytes, and the default when `key_size` is omitted. @internal */
export const HMAC_KEY_SIZE = { min: 32, max: 512, default: 32 } as const;

const inBounds = (n: number): boolean => n >= HMAC_KEY_SIZE.min && n <= HMAC_KEY_SIZE.max;

/** @internal */
export const hmacFamily: KeyFamily = {
  ...symmetricBase,
  name: 'hmac',
  keySized: true,
  importable: false,

  policyKeySize(_info, requested) {
    const size = requested === undefined || requested === 0 ? HMAC_KEY_SIZE.default : requested;
    if (!inBounds(size)) throw invalidRequest(`invalid key_size ${size}`);
    return size;
  },

  async generate(b, _info, policy) {
    const key = b.randomBytes(policy.key_size);
    return { key, hmacKey: key };
  },

  restoreVersion(info, v, keySize, n) {
    // Each version its own size within the bounds: Vault's import sets key_size to each
    // imported key's length, so an import and an import_version can differ; key_size
    // sizes only the versions rotation makes.
    if (!inBounds(v.key.length) || !inBounds(keySize)) {
      throw invalidRequest(
        `${INVALID_BACKUP}: key version ${n} has the wrong size for ${info.name}`,
      );
    }
    return { ...v, hmac_key: v.key };
  },
};
