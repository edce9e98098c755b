/**
 * The AEAD family (`aes128-gcm96`, `aes256-gcm96`, `chacha20-poly1305`,
 * `xchacha20-poly1305`): a random key of the row's `keyBytes`, no
 * `key_size`. Encryption itself stays on the row (`aead`, `nonceBytes`),
 * read directly by the hot path in `../../transit/encrypt.ts`.
 * @module
 */
import { invalidRequest } from '../../errors.js';
import { INVALID_BACKUP, type KeyFamily, noKeySize } from './family.js';
import { symmetricBase } from './symmetric.js';

/** @internal */
export const aeadFamily: KeyFamily = {
  ...symmetricBase,
  name: 'aead',
  keySized: false,
  importable: true,
  policyKeySize: noKeySize,
  generate: async (b, info) => ({ key: b.randomBytes(info.keyBytes) }),
  restoreVersion(info, v, _keySize, n) {
    if (v.key.length !== info.keyBytes) {
      throw invalidRequest(
        `${INVALID_BACKUP}: key version ${n} has the wrong size for ${info.name}`,
      );
    }
    return v;
  },
};
