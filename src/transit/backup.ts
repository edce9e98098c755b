/**
 * Backup and restore in Vault's blob format (reference §6).
 *
 * Routes: `GET /transit/backup/:name`, `POST /transit/restore(/:name)`.
 *
 * Every key type is carried (asymmetric material in Vault's `ec_*`,
 * `rsa_key`, `public_key` fields; `./keys/vault-backup-entry.ts`).
 * A backup needs `exportable` and `allow_plaintext_backup`; it records
 * `backup_info` on the key before serialising (so the blob carries it, as
 * Vault's does). A soft-deleted key can be backed up (spec: backup is still
 * allowed; OpenBao refuses): the blob carries `soft_deleted: true`, so the key
 * restores soft-deleted here and in OpenBao (Vault ignores the field). A restore refuses an existing name unless `force`, renames
 * with `name`, records `restore_info`, and stores every version at once.
 * Where Vault answers these refusals with HTTP 500, they are `invalid_request`
 * (`not_found` for a missing key) here, with Vault's texts.
 * @module
 */

import { rfc3339 } from '../clock.js';
import { invalidRequest, notFound } from '../errors.js';
import { checkKeyName } from '../keys/names.js';
import type { KeyVersion } from '../keys/policy.js';
import { oldestVersion, typeInfo } from '../keys/policy.js';
import { CHANGE_RETRIES, isKeyChanged } from '../keys/policy-store.js';
import { decodeVaultBackup, encodeVaultBackup, restoreName } from '../keys/vault-backup.js';
import { optBool } from '../request.js';
import { schemaFor } from '../schema.js';
import type { Engine } from './engine.js';
import type { RestoreRequest } from './types.js';

/** Fields of `POST /transit/restore(/:name)`. @public */
export const RESTORE_FIELDS = schemaFor<RestoreRequest>()({
  backup: { type: 'string', description: 'The backup blob (base64), as backup returns it.' },
  name: { type: 'string', description: 'Restore under this name instead of the one in the blob.' },
  force: { type: 'bool', description: 'Replace an existing key of the same name.' },
});

/** @internal */
export async function backupKey(e: Engine, name: string): Promise<{ backup: string }> {
  checkKeyName(name);
  for (let attempt = 0; ; attempt++) {
    const key = await e.store.mutate(name, ({ doc }) => {
      const p = doc.policy;
      if (!p.exportable) throw invalidRequest('exporting is disallowed on the policy');
      if (!p.allow_plaintext_backup)
        throw invalidRequest('plaintext backup is disallowed on the policy');
      return {
        policy: { ...p, backup_info: { time: rfc3339(e.clock.now()), version: p.latest_version } },
      };
    });
    if (!key) throw notFound(`key "${name}" not found`);
    const p = key.doc.policy;
    const versions = new Map<number, KeyVersion>();
    try {
      for (let v = oldestVersion(p); v <= p.latest_version; v++) {
        versions.set(v, await e.store.version(key, v));
      }
    } catch (err) {
      // An archived version gone since the key was read: another instance
      // trimmed, deleted or replaced the key meanwhile. Back up the key as it
      // is now (PolicyStore.version tells a real fault from a change).
      if (!isKeyChanged(err) || attempt >= CHANGE_RETRIES) throw err;
      continue;
    }
    return { backup: encodeVaultBackup({ policy: p, versions }, typeInfo(p)) };
  }
}

/** @internal */
export async function restoreKey(e: Engine, req: RestoreRequest): Promise<void> {
  const r = RESTORE_FIELDS.request(req);
  const force = optBool(r.force, 'force') ?? false;
  const { policy, versions } = await decodeVaultBackup(r.backup, {
    random: (n) => e.backend.randomBytes(n),
    ed25519Public: (seed) => e.backend.ed25519PublicKey({ seed }),
  });
  const name = restoreName(r.name, policy.name);
  if (versions.size > e.maxVersions) {
    throw invalidRequest(
      `the backup holds ${versions.size} versions, the maximum per key is ${e.maxVersions}`,
    );
  }
  const restored = {
    ...policy,
    name,
    restore_info: { time: rfc3339(e.clock.now()), version: policy.latest_version },
  };
  await e.store.replace(restored, versions, force);
}
