/**
 * The `sys/seal-status` body (Vault's `SealStatusResponse`), from the stored
 * seal configuration and the node's in-memory unseal progress.
 *
 * Uninitialised: `initialized` false, `sealed` true, `t` = `n` = 0. The build
 * date is not tracked (an empty string); `migration` and `recovery_seal` are
 * always false (no seal migration, no recovery keys).
 *
 * Runtime-neutral.
 * @module
 */
import type { SealConfig } from './keyring.js';
import type { SealStatus } from './types.js';

/** @internal */
export function sealedStatus(
  seal: SealConfig | undefined,
  o: {
    sealed: boolean;
    auto: boolean;
    progress: number;
    nonce: string;
    version: string;
    storageType: string;
  },
): SealStatus {
  return {
    type: seal?.type ?? (o.auto ? 'auto' : 'shamir'),
    initialized: seal !== undefined,
    sealed: o.sealed,
    t: seal?.secret_threshold ?? 0,
    n: seal?.secret_shares ?? 0,
    progress: o.sealed ? o.progress : 0,
    nonce: o.sealed ? o.nonce : '',
    version: o.version,
    build_date: '',
    migration: false,
    recovery_seal: false,
    storage_type: o.storageType,
  };
}
