/**
 * Key configuration, rotation and trimming.
 *
 * Routes: `POST /transit/keys/:name/config`, `POST /transit/keys/:name/rotate`,
 * `POST /transit/keys/:name/trim`.
 * @module
 */
import { invalidRequest } from '../errors.js';
import { parseAutoRotatePeriod } from '../keys/duration.js';
import { checkKeyName } from '../keys/names.js';
import {
  applyConfig,
  assertNotSoftDeleted,
  assertVersionRoom,
  checkTrim,
  typeInfo,
} from '../keys/policy.js';
import type { LoadedKey } from '../keys/policy-store.js';
import { schemaFor } from '../schema.js';
import type { Engine } from './engine.js';
import * as F from './fields.js';
import { newVersion } from './material.js';
import { keyInfo } from './read-body.js';
import type { KeyConfigRequest, KeyInfo } from './types.js';

/** Fields of `POST /transit/keys/:name/config`. @public */
export const KEY_CONFIG_FIELDS = schemaFor<KeyConfigRequest>()({
  min_decryption_version: { type: 'int', description: 'Oldest version that may decrypt.' },
  min_encryption_version: {
    type: 'int',
    description: 'Oldest version that may encrypt; 0 = latest.',
  },
  deletion_allowed: { type: 'bool', description: 'Allow the key to be deleted.' },
  exportable: F.EXPORTABLE,
  allow_plaintext_backup: F.ALLOW_PLAINTEXT_BACKUP,
  auto_rotate_period: F.AUTO_ROTATE_PERIOD,
});

/** Fields of `POST /transit/keys/:name/trim`. @public */
export const TRIM_FIELDS = schemaFor<{ min_available_version?: number }>()({
  min_available_version: { type: 'int', description: 'Delete every version below this one.' },
});

/** @internal */
export async function updateKeyConfig(
  e: Engine,
  name: string,
  req: KeyConfigRequest = {},
): Promise<{ info: KeyInfo; warnings: string[] }> {
  checkKeyName(name);
  const request = KEY_CONFIG_FIELDS.request(req);
  let warnings: string[] = [];
  const key = await e.store.mutate(name, ({ doc }) => {
    const r = applyConfig(doc.policy, request, parseAutoRotatePeriod);
    warnings = r.warnings;
    return { policy: r.policy };
  });
  if (!key) throw invalidRequest(`no existing key named ${name} could be found`);
  return { info: await keyInfo(e, key), warnings };
}

/** Add a version. @internal */
export async function rotateKey(e: Engine, name: string): Promise<KeyInfo> {
  checkKeyName(name);
  const { key } = await rotate(e, name);
  if (!key) throw invalidRequest('key not found');
  return keyInfo(e, key);
}

/**
 * Rotation without the read body. With `ifDue` (auto-rotation) the key is
 * rotated only if its period has elapsed, checked under the key's lock so
 * concurrent passes never rotate twice.
 * @internal
 */
export async function rotate(
  e: Engine,
  name: string,
  ifDue = false,
): Promise<{ key: LoadedKey | undefined; rotated: boolean }> {
  let rotated = false;
  const key = await e.store.mutate(name, async (current) => {
    rotated = false;
    const p = current.doc.policy;
    if (ifDue && !(await isDue(e, current))) return undefined;
    assertNotSoftDeleted(p);
    if (p.imported && !p.allow_imported_key_rotation) {
      throw invalidRequest(`imported key ${name} does not allow rotation within Vault`);
    }
    assertVersionRoom(p, e.maxVersions);
    const latest = p.latest_version + 1;
    // As Vault: once the engine rotates an imported key it is no longer
    // "imported", and import_version stops applying to it.
    const policy = { ...p, latest_version: latest, imported: false };
    rotated = true;
    return { policy, add: new Map([[latest, await newVersion(e, policy, typeInfo(p))]]) };
  });
  return { key, rotated };
}

/** Whether a key's auto-rotation period has elapsed since its latest version. @internal */
export async function isDue(e: Engine, key: LoadedKey): Promise<boolean> {
  const p = key.doc.policy;
  if (p.auto_rotate_period <= 0 || p.soft_deleted) return false;
  if (p.imported && !p.allow_imported_key_rotation) return false;
  const latest = await e.store.version(key, p.latest_version);
  return e.clock.now() > (latest.creation_time + p.auto_rotate_period) * 1000;
}

/** Permanently remove versions below `min_available_version`. @internal */
export async function trimKey(
  e: Engine,
  name: string,
  req: { min_available_version?: number } = {},
): Promise<KeyInfo> {
  checkKeyName(name);
  const request = TRIM_FIELDS.request(req);
  const key = await e.store.mutate(name, ({ doc }) => {
    const v = checkTrim(doc.policy, request.min_available_version);
    return { policy: { ...doc.policy, min_available_version: v } };
  });
  if (!key) throw invalidRequest('invalid key name');
  return keyInfo(e, key);
}
