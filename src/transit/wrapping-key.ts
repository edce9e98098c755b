/**
 * The BYOK wrapping key (reference §7).
 *
 * Route: `GET /transit/wrapping_key`.
 *
 * One rsa-4096 key per storage, created on first use and stored like any
 * key, under Vault's internal name `import/wrapping-key`: user names cannot
 * contain `/`, so none can collide with it, and listings skip it. Concurrent
 * first calls in one engine share one generation (RSA-4096 takes seconds);
 * engines on shared storage race through the store's compare-and-set, and
 * the loser adopts the winner's key. The latest version unwraps imports.
 * @module
 */
import { importHash, unwrapImportBlob } from '../crypto/import-blob.js';
import { internal, invalidRequest } from '../errors.js';
import { familyOf } from '../keys/asymmetric/family.js';
import { requireMaterial } from '../keys/asymmetric/material.js';
import { keyType, loadAsymmetricFamilies, WRAPPING_KEY_TYPE } from '../keys/key-types.js';
import { WRAPPING_KEY_NAME } from '../keys/names.js';
import type { KeyPolicy } from '../keys/policy.js';
import type { LoadedKey } from '../keys/policy-store.js';
import type { Engine } from './engine.js';
import { buildPolicy } from './keys.js';
import { newVersion } from './material.js';

/** Generations in flight, per engine, so concurrent first calls make one key. */
const pending = new WeakMap<Engine, Promise<LoadedKey>>();

async function create(e: Engine): Promise<LoadedKey> {
  const existing = await e.store.get(WRAPPING_KEY_NAME);
  if (existing) return existing;
  await loadAsymmetricFamilies();
  const policy: KeyPolicy = {
    ...buildPolicy('wrapping-key', { type: WRAPPING_KEY_TYPE }),
    name: WRAPPING_KEY_NAME,
  };
  const first = await newVersion(e, policy, keyType(WRAPPING_KEY_TYPE));
  return (await e.store.create(policy, new Map([[1, first]]))).key;
}

/** The wrapping key, created on first use. @internal */
export async function wrappingKey(e: Engine): Promise<LoadedKey> {
  const existing = await e.store.get(WRAPPING_KEY_NAME);
  if (existing) return existing;
  let p = pending.get(e);
  if (!p) {
    p = create(e).finally(() => pending.delete(e));
    pending.set(e, p);
  }
  return p;
}

/** `GET /transit/wrapping_key`: the PKIX PEM of the latest version. @internal */
export async function getWrappingKey(e: Engine): Promise<{ public_key: string }> {
  const key = await wrappingKey(e);
  const p = key.doc.policy;
  const v = await e.store.version(key, p.latest_version);
  return { public_key: familyOf(keyType(p.type)).readPublicKey(requireMaterial(v.asymmetric)) };
}

/**
 * Unwrap an import `ciphertext` (already base64-decoded) with the wrapping key.
 * No wrapping key yet means nothing can have been wrapped for this engine.
 * @throws TransitError `invalid_request` for a bad hash name or a blob that does not unwrap.
 * @internal
 */
export async function unwrapImport(
  e: Engine,
  blob: Uint8Array,
  hashFunction: unknown,
): Promise<Uint8Array> {
  const hash = importHash(hashFunction);
  const key = await e.store.get(WRAPPING_KEY_NAME);
  if (!key) {
    throw invalidRequest('no wrapping key exists yet: read wrapping_key and wrap the key for it');
  }
  const v = await e.store.version(key, key.doc.policy.latest_version);
  const family = familyOf(keyType(key.doc.policy.type));
  const priv = family.wrappingPrivateKey?.(requireMaterial(v.asymmetric));
  if (!priv) throw internal('the wrapping key has no RSA private key');
  return unwrapImportBlob(e.backend, priv, hash, blob);
}
