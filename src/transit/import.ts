/**
 * BYOK import (reference §7).
 *
 * Routes: `POST /transit/keys/:name/import`, `POST /transit/keys/:name/import_version`
 * (the wrapping key is `./wrapping-key.ts`, byok-export `./byok.ts`).
 *
 * Material arrives as an import blob (`ciphertext`, unwrapped with the
 * wrapping key; `hash_function` names the OAEP hash) or as a `public_key`
 * PEM (a public-only version: verify and encrypt only). Everything is parsed
 * and checked before anything is written, so a refused import leaves no key.
 * Rules (spec, Vault): import refuses an existing name, `hmac`, convergent
 * encryption, auto-rotation without `allow_rotation`, a derived key without
 * `context` and a public-only derived Ed25519 key. import_version takes only
 * imported keys that the engine has not rotated; with `version` it fills the
 * private key of a public-only version (same key pair); without, it fills a
 * public-only latest version whose pair matches, or else adds a version.
 * Vault answers most of these with HTTP 500; here they are `invalid_request`.
 * @module
 */

import { rfc3339 } from '../clock.js';
import { toBytes } from '../encoding.js';
import { invalidRequest } from '../errors.js';
import { MISSING_CONTEXT } from '../keys/derive.js';
import type { KeyTypeInfo } from '../keys/key-types.js';
import { familyReady, keyTypeWithParameterSet } from '../keys/key-types.js';
import { checkKeyName } from '../keys/names.js';
import {
  assertNotSoftDeleted,
  assertVersionRoom,
  type KeyPolicy,
  type KeyVersion,
  oldestVersion,
  typeInfo,
} from '../keys/policy.js';
import { optBool, optInt, optString } from '../request.js';
import type { Engine } from './engine.js';
import {
  type ImportedMaterial,
  isPublicOnly,
  privateMaterial,
  publicDer,
  publicMaterial,
} from './import-material.js';
import { buildPolicy } from './keys.js';
import { IMPORT_KEY_FIELDS, IMPORT_KEY_VERSION_FIELDS } from './mobility-fields.js';

// The endpoint's schema lives apart (no PKI for the route table) and is exported here too.
export { IMPORT_KEY_FIELDS, IMPORT_KEY_VERSION_FIELDS };

import type { ImportKeyRequest, ImportKeyVersionRequest } from './mobility-types.js';
import { unwrapImport } from './wrapping-key.js';

const EXISTS =
  'the import path cannot be used with an existing key; use import_version to add a version to an existing imported key';

const isSet = (v: unknown): boolean => v !== undefined && v !== null && v !== '';

/** The request's material: an unwrapped `ciphertext`, or a `public_key` PEM. */
async function requestMaterial(
  e: Engine,
  info: KeyTypeInfo,
  r: Record<string, unknown>,
): Promise<{ material: ImportedMaterial; isPrivate: boolean }> {
  const pem = optString(r.public_key, 'public_key');
  if (isSet(r.ciphertext) && pem !== undefined) {
    throw invalidRequest('only one of the following fields, ciphertext and public_key, can be set');
  }
  if (isSet(r.ciphertext)) {
    const bytes = await unwrapImport(e, toBytes(r.ciphertext, 'ciphertext'), r.hash_function);
    return { material: await privateMaterial(e, info, bytes), isPrivate: true };
  }
  if (pem === undefined) throw invalidRequest("one of 'ciphertext' or 'public_key' must be set");
  return { material: publicMaterial(info, pem), isPrivate: false };
}

/** A new version holding imported material, with its own HMAC secret. */
function importedVersion(e: Engine, m: ImportedMaterial): KeyVersion {
  const now = e.clock.now();
  return {
    key: m.key,
    hmac_key: e.backend.randomBytes(32),
    creation_time: Math.floor(now / 1000),
    time: rfc3339(now),
    convergent_version: 0,
    ...(m.asymmetric ? { asymmetric: m.asymmetric } : {}),
  };
}

/**
 * `POST /transit/keys/:name/import`.
 * @internal
 */
export async function importKey(e: Engine, name: string, request: ImportKeyRequest): Promise<void> {
  checkKeyName(name);
  const r = IMPORT_KEY_FIELDS.request(request);
  if (r.convergent_encryption !== undefined) {
    throw invalidRequest('import cannot be used on keys with convergent encryption enabled');
  }
  // Vault's path_import.go: `type` defaults to aes256-gcm96.
  const typeName = optString(r.type, 'type') ?? 'aes256-gcm96';
  const info = keyTypeWithParameterSet(typeName, r.parameter_set);
  const ready = familyReady(info);
  if (ready) await ready;
  if (!info.family.importable) {
    throw invalidRequest(`keys of type ${info.name} cannot be imported`);
  }
  const allowRotation = optBool(r.allow_rotation, 'allow_rotation') ?? false;
  const base = buildPolicy(name, {
    type: info.name,
    derived: r.derived as boolean | undefined,
    exportable: r.exportable as boolean | undefined,
    allow_plaintext_backup: r.allow_plaintext_backup as boolean | undefined,
    auto_rotate_period: r.auto_rotate_period as string | number | undefined,
  });
  if (base.auto_rotate_period > 0 && !allowRotation) {
    throw invalidRequest('allow_rotation must be set to true if auto-rotation is enabled');
  }
  if (base.derived && toBytes(r.context, 'context').length === 0) {
    throw invalidRequest(MISSING_CONTEXT);
  }
  if (base.derived && info.family.asymmetric && !isSet(r.ciphertext)) {
    throw invalidRequest(
      'unable to import only public key for derived Ed25519 key: the imported key must be the private HKDF key',
    );
  }
  if (await e.store.get(name)) throw invalidRequest(EXISTS);
  const { material } = await requestMaterial(e, info, r);
  const policy: KeyPolicy = { ...base, imported: true, allow_imported_key_rotation: allowRotation };
  const { created } = await e.store.create(policy, new Map([[1, importedVersion(e, material)]]));
  if (!created) throw invalidRequest(EXISTS);
}

/** import_version applies to imported keys the engine has not rotated. */
function checkImportable(p: KeyPolicy): void {
  assertNotSoftDeleted(p);
  if (!p.imported) {
    throw invalidRequest(
      'the import_version endpoint can only be used with an imported key (not one generated or rotated by transit)',
    );
  }
  if (p.convergent_encryption) {
    throw invalidRequest(
      'import_version cannot be used on keys with convergent encryption enabled',
    );
  }
}

/**
 * `POST /transit/keys/:name/import_version`.
 * @internal
 */
export async function importKeyVersion(
  e: Engine,
  name: string,
  request: ImportKeyVersionRequest,
): Promise<void> {
  checkKeyName(name);
  const r = IMPORT_KEY_VERSION_FIELDS.request(request);
  const version = optInt(r.version, 'version');
  const missing = `no key found with name ${name}; to import a new key, use the import endpoint`;
  const current = await e.store.get(name);
  if (!current) throw invalidRequest(missing);
  checkImportable(current.doc.policy);
  const info = typeInfo(current.doc.policy);
  if (version !== undefined && !info.family.asymmetric) {
    throw invalidRequest('provided type does not support importing key versions');
  }
  const { material, isPrivate } = await requestMaterial(e, info, r);
  if (current.doc.policy.derived && info.family.asymmetric && !isPrivate) {
    // As importKey, and Vault's ImportPublicOrPrivate (which serves both).
    throw invalidRequest(
      'unable to import only public key for derived Ed25519 key: the imported key must be the private HKDF key',
    );
  }
  if (version !== undefined && !isPrivate) {
    throw invalidRequest(
      'cannot add a public key to a key version that already has a public key set',
    );
  }
  const samePair = (v: KeyVersion): boolean =>
    !!v.asymmetric &&
    !!material.asymmetric &&
    e.backend.timingSafeEqual(publicDer(info, v.asymmetric), publicDer(info, material.asymmetric));
  const fill = (v: KeyVersion): KeyVersion => ({
    ...v,
    key: material.key,
    ...(material.asymmetric ? { asymmetric: material.asymmetric } : {}),
  });
  const stored = await e.store.mutate(name, async (key) => {
    const p = key.doc.policy;
    checkImportable(p);
    if (version !== undefined) {
      if (
        version < Math.max(oldestVersion(p), p.min_decryption_version) ||
        version > p.latest_version
      ) {
        throw invalidRequest(`key version ${version} does not exist or cannot be found`);
      }
      const old = await e.store.version(key, version);
      if (!isPublicOnly(info, old)) {
        throw invalidRequest('private key imported, key version cannot be updated');
      }
      if (!samePair(old)) throw invalidRequest('cannot import key, key pair does not match');
      return { policy: p, add: new Map([[version, fill(old)]]), base: new Map([[version, old]]) };
    }
    if (isPrivate && info.family.asymmetric) {
      const latest = await e.store.version(key, p.latest_version);
      if (isPublicOnly(info, latest) && samePair(latest)) {
        const v = p.latest_version;
        return { policy: p, add: new Map([[v, fill(latest)]]), base: new Map([[v, latest]]) };
      }
    }
    assertVersionRoom(p, e.maxVersions);
    const n = p.latest_version + 1;
    return {
      policy: { ...p, latest_version: n },
      add: new Map([[n, importedVersion(e, material)]]),
    };
  });
  if (!stored) throw invalidRequest(missing);
}
