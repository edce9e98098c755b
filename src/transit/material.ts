/**
 * Generating key versions: the raw key (sized by type, or `key_size` for
 * hmac) or, for asymmetric types, a key pair from the family (RSA generated
 * off the event loop), plus the version's own 256-bit HMAC secret (reference
 * §4), all from the backend CSPRNG.
 * @module
 */
import { familyOf } from '../keys/asymmetric/family.js';
import type { KeyTypeInfo } from '../keys/key-types.js';
import { CURRENT_CONVERGENT_VERSION, type KeyPolicy, type KeyVersion } from '../keys/policy.js';
import { type Engine, rfc3339 } from './engine.js';

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
    convergent_version: policy.convergent_encryption ? CURRENT_CONVERGENT_VERSION : 0,
  };
  let version: KeyVersion;
  if (info.asymmetric) {
    const { key, material } = await familyOf(info).generate(e.backend, info);
    version = { ...base, key, asymmetric: material };
  } else {
    const size = info.family === 'hmac' ? policy.key_size : info.keyBytes;
    const key = e.backend.randomBytes(size);
    version = { ...base, key, hmac_key: info.family === 'hmac' ? key : base.hmac_key };
  }
  // Stamp the time once the material exists (RSA generation takes a while).
  const now = e.clock.now();
  return { ...version, creation_time: Math.floor(now / 1000), time: rfc3339(now) };
}
