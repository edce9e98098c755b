/**
 * Generating key versions: the raw key (sized by type, or `key_size` for
 * hmac) and the version's own 256-bit HMAC secret (reference §4), from the
 * backend CSPRNG.
 * @module
 */
import type { KeyTypeInfo } from '../keys/key-types.js';
import { CURRENT_CONVERGENT_VERSION, type KeyPolicy, type KeyVersion } from '../keys/policy.js';
import { type Engine, rfc3339 } from './engine.js';

/** A fresh version for `policy`. @internal */
export function newVersion(e: Engine, policy: KeyPolicy, info: KeyTypeInfo): KeyVersion {
  const now = e.clock.now();
  const size = info.family === 'hmac' ? policy.key_size : info.keyBytes;
  const key = e.backend.randomBytes(size);
  return {
    key,
    hmac_key: info.family === 'hmac' ? key : e.backend.randomBytes(32),
    creation_time: Math.floor(now / 1000),
    time: rfc3339(now),
    convergent_version: policy.convergent_encryption ? CURRENT_CONVERGENT_VERSION : 0,
  };
}
