/**
 * Key lifecycle: create, read, list, delete, soft-delete and restore.
 *
 * Routes: `POST /transit/keys/:name`, `GET /transit/keys/:name`,
 * `LIST /transit/keys`, `DELETE /transit/keys/:name`,
 * `DELETE /transit/keys/:name/soft-delete`, `POST /transit/keys/:name/soft-delete-restore`.
 * @module
 */
import { toBytes } from '../encoding.js';
import { invalidRequest, notFound } from '../errors.js';
import { parseAutoRotatePeriod } from '../keys/duration.js';
import {
  DEFAULT_KEY_TYPE,
  familyReady,
  type KeyTypeInfo,
  keyType,
  keyTypeWithParameterSet,
} from '../keys/key-types.js';
import { checkKeyName } from '../keys/names.js';
import type { KeyPolicy } from '../keys/policy.js';
import type { LoadedKey } from '../keys/policy-store.js';
import { optBool, optInt, optString } from '../request.js';
import { schemaFor } from '../schema.js';
import type { Engine } from './engine.js';
import * as F from './fields.js';
import { newVersion } from './material.js';
import { keyInfo } from './read-body.js';
import type { CreateKeyRequest, KeyInfo, ListKeysRequest, ReadKeyRequest } from './types.js';

/** Fields of `POST /transit/keys/:name`. @public */
export const CREATE_KEY_FIELDS = schemaFor<CreateKeyRequest>()({
  type: F.KEY_TYPE,
  parameter_set: F.PARAMETER_SET,
  derived: F.DERIVED,
  convergent_encryption: F.CONVERGENT_ENCRYPTION,
  exportable: F.EXPORTABLE,
  allow_plaintext_backup: F.ALLOW_PLAINTEXT_BACKUP,
  key_size: {
    type: 'int',
    description: 'HMAC key size in bytes, 32..512 (type hmac; default 32).',
  },
  auto_rotate_period: F.AUTO_ROTATE_PERIOD,
});

/** Fields of `GET /transit/keys/:name`. @public */
export const READ_KEY_FIELDS = schemaFor<ReadKeyRequest>()({
  context: {
    ...F.CONTEXT,
    description: "Shows a derived Ed25519 key's public key for this context.",
  },
});

/** Fields of `LIST /transit/keys`. @public */
export const LIST_KEYS_FIELDS = schemaFor<ListKeysRequest>()({
  after: { type: 'string', description: 'List names strictly after this one.' },
  limit: { type: 'int', description: 'At most this many names; 0 = all.' },
});

/**
 * Validate a create request into a new policy (no I/O), in Vault's order
 * (pathPolicyWrite): the rotation period, convergence without derivation,
 * the type, its key size; then, unless `typeChecks` is false, what the type
 * cannot do (lock_manager's create branch: Vault makes those checks only when
 * the key is new, so a create of an existing key ignores them).
 * @internal
 */
export function buildPolicy(name: string, request: CreateKeyRequest, typeChecks = true): KeyPolicy {
  checkKeyName(name);
  const req = CREATE_KEY_FIELDS.request(request);
  const autoRotatePeriod = parseAutoRotatePeriod(req.auto_rotate_period);
  const derived = optBool(req.derived, 'derived') ?? false;
  const convergent = optBool(req.convergent_encryption, 'convergent_encryption') ?? false;
  if (convergent && !derived) {
    throw invalidRequest('convergent encryption requires derivation to be enabled');
  }
  const info = keyTypeWithParameterSet(
    optString(req.type, 'type') ?? DEFAULT_KEY_TYPE,
    req.parameter_set,
  );
  const keySize = info.family.policyKeySize(info, optInt(req.key_size, 'key_size'));
  if (typeChecks) checkTypeSupport(info, derived, convergent);
  return {
    name,
    type: info.name,
    derived,
    kdf: derived ? 1 : 0,
    convergent_encryption: convergent,
    convergent_version: convergent ? -1 : 0,
    exportable: optBool(req.exportable, 'exportable') ?? false,
    allow_plaintext_backup: optBool(req.allow_plaintext_backup, 'allow_plaintext_backup') ?? false,
    deletion_allowed: false,
    min_decryption_version: 1,
    min_encryption_version: 0,
    min_available_version: 0,
    latest_version: 1,
    auto_rotate_period: autoRotatePeriod,
    key_size: keySize,
    imported: false,
    allow_imported_key_rotation: false,
    soft_deleted: false,
    backup_info: null,
    restore_info: null,
  };
}

/** What a new key's type cannot do: derivation, convergent encryption. */
function checkTypeSupport(info: KeyTypeInfo, derived: boolean, convergent: boolean): void {
  if (derived && !info.supportsDerivation) {
    throw invalidRequest(
      `key derivation and convergent encryption not supported for keys of type ${info.name}`,
    );
  }
  if (convergent && !info.supportsEncryption) {
    throw invalidRequest(`convergent encryption not supported for keys of type ${info.name}`);
  }
}

/**
 * Load the family of the requested type first when it is a key pair not loaded
 * yet (the registry loads those on demand: issue 22). A request that names no
 * valid type is left to {@link buildPolicy}, which refuses it in its own order.
 */
async function requestedFamilyReady(req: CreateKeyRequest): Promise<void> {
  const r = req as { type?: unknown; parameter_set?: unknown } | null;
  if (typeof r !== 'object' || r === null || r.type === undefined) return;
  let info: KeyTypeInfo;
  try {
    info = keyTypeWithParameterSet(r.type, r.parameter_set);
  } catch {
    return;
  }
  const ready = familyReady(info);
  if (ready) await ready;
}

/**
 * Create a key; an existing key is returned unchanged (`created: false`), as Vault.
 * @internal
 */
export async function createKey(
  e: Engine,
  name: string,
  req: CreateKeyRequest = {},
): Promise<{ info: KeyInfo; created: boolean }> {
  await requestedFamilyReady(req);
  const policy = buildPolicy(name, req, false);
  // An existing key is returned as is: do not generate material (an RSA key
  // takes seconds) only to discard it. A concurrent creation is still handled
  // by the store's compare-and-set.
  const existing = await e.store.get(name);
  if (existing) return { info: await keyInfo(e, existing), created: false };
  checkTypeSupport(keyType(policy.type), policy.derived, policy.convergent_encryption);
  const first = await newVersion(e, policy, keyType(policy.type));
  const { key, created } = await e.store.create(policy, new Map([[1, first]]));
  return { info: await keyInfo(e, key), created };
}

/**
 * `GET /transit/keys/:name` (`context` derives a derived Ed25519 key's public keys).
 * @throws TransitError `not_found` for a missing key; `invalid_request` for a bad name or context.
 * @internal
 */
export async function readKey(
  e: Engine,
  name: string,
  request: ReadKeyRequest = {},
): Promise<KeyInfo> {
  checkKeyName(name);
  const context = toBytes(READ_KEY_FIELDS.request(request).context, 'context');
  const key = await e.store.get(name);
  if (!key) throw notFound(`no key named ${name}`);
  return keyInfo(e, key, context);
}

/** @internal */
export async function listKeys(
  e: Engine,
  request: ListKeysRequest = {},
): Promise<{ keys: string[] }> {
  const req = LIST_KEYS_FIELDS.request(request);
  const after = optString(req.after, 'after') ?? '';
  const limit = optInt(req.limit, 'limit') ?? 0;
  if (limit < 0) throw invalidRequest("'limit' must not be negative");
  return { keys: await e.store.list(after, limit) };
}

/** @internal */
export async function deleteKey(e: Engine, name: string): Promise<void> {
  checkKeyName(name);
  const deleted = await e.store.delete(name, (key: LoadedKey) => {
    if (!key.doc.policy.deletion_allowed) {
      throw invalidRequest(`error deleting policy ${name}: deletion is not allowed for this key`);
    }
  });
  if (!deleted)
    throw invalidRequest(`error deleting policy ${name}: could not delete key; not found`);
}

/**
 * Set or clear `soft_deleted`. Returns the read body and Vault's warning when
 * nothing changed.
 * @internal
 */
export async function setSoftDeleted(
  e: Engine,
  name: string,
  value: boolean,
): Promise<{ info: KeyInfo; warning?: string }> {
  checkKeyName(name);
  let warning: string | undefined;
  const key = await e.store.mutate(name, ({ doc }) => {
    warning = undefined;
    if (doc.policy.soft_deleted === value) {
      warning = value ? 'key was already marked as soft deleted' : 'key was already restored';
    }
    return { policy: { ...doc.policy, soft_deleted: value } };
  });
  if (!key) throw notFound(`no key named ${name}`);
  const info = await keyInfo(e, key);
  return warning ? { info, warning } : { info };
}
