/**
 * Generating key versions: the type's family makes the material (a raw key
 * sized by the type or by `key_size`, or a key pair, RSA generated off the
 * event loop); each version also gets its own 256-bit HMAC secret (reference
 * §4) unless the family fixes it (hmac: the key). All from the backend CSPRNG.
 * @module
 */

import { rfc3339 } from '../clock.js';
import type { KeyTypeInfo } from '../keys/key-types.js';
import { CURRENT_CONVERGENT_VERSION, type KeyPolicy, type KeyVersion } from '../keys/policy.js';
import type { Engine } from './engine.js';

/** A fresh version for `policy`. @internal */
export async function newVersion(
  e: Engine,
  policy: KeyPolicy,
  info: KeyTypeInfo,
): Promise<KeyVersion> {
  const base = {
    hmac_key: e.backend.randomBytes(32),
    creation_time: 0,
    time: '',
    // As Vault's RotateInMemory: a key of the first convergent scheme (policy version 1,
    // restored from an old Vault) keeps it, so callers' nonces stay valid.
    convergent_version:
      policy.convergent_encryption &&
      (policy.convergent_version === -1 || policy.convergent_version > 1)
        ? CURRENT_CONVERGENT_VERSION
        : 0,
  };
  const { key, material, hmacKey } = await info.family.generate(e.backend, info, policy);
  const version: KeyVersion = {
    ...base,
    key,
    hmac_key: hmacKey ?? base.hmac_key,
    ...(material ? { asymmetric: material } : {}),
  };
  // Stamp the time once the material exists (RSA generation takes a while).
  const now = e.clock.now();
  return { ...version, creation_time: Math.floor(now / 1000), time: rfc3339(now) };
}
