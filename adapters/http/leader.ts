/**
 * `GET /v1/sys/leader`: the node's HA state in Vault's shape (Vault's
 * `http/sys_leader.go` `handleSysLeaderGet` → `vault.Core.GetLeaderStatus`,
 * `vault/ha.go` `Core.Leader`), so hvac's `sys.read_leader_status()` works.
 * No token, as Vault.
 *
 * - HA not enabled (the node's leadership storage cannot lock, so every
 *   instance leads alone; `TransitNode.haEnabled`): 200 with
 *   `ha_enabled: false`, `is_self: false`, sealed or not. Vault's
 *   `Core.Leader` answers `ErrHANotEnabled` before it looks at the seal.
 * - HA enabled and sealed or uninitialised: 503 `{"errors":["Vault is
 *   sealed"]}` (Vault's `consts.ErrSealed`, made 503 by `respondError`).
 * - HA enabled and unsealed: `is_self` is whether this instance holds the
 *   leader lock, from the same leadership `sys/health`'s `standby` reads,
 *   and `active_time` when it took the lock (else Go's zero time); both come
 *   from one read, so they always agree.
 *
 * - `leader_address`: the active node's `apiAddr` (Vault's `api_addr`), which
 *   it advertises in storage on taking the lock (src/node/leader-advert.ts);
 *   `""` when it has none.
 *
 * Not here, left empty rather than invented: `leader_cluster_address` (no
 * cluster port); performance standbys, WALs and raft indexes do not exist here
 * (`performance_standby: false`, `performance_standby_last_remote_wal: 0`;
 * `last_wal`, `raft_committed_index` and `raft_applied_index` are left out,
 * as Vault's `omitempty` does for 0).
 *
 * Runtime-neutral.
 * @module
 */
import { rfc3339 } from '../../src/clock.js';
import { sealed } from '../../src/errors.js';
import { health } from './calls.js';
import type { ServedBy } from './route.js';

/**
 * The body of `GET sys/leader`: Vault's `LeaderResponse`, its fields in Vault's order.
 * @internal
 */
export interface LeaderBody {
  ha_enabled: boolean;
  is_self: boolean;
  /** RFC 3339; Go's zero time when unknown or not the leader. */
  active_time: string;
  leader_address: string;
  leader_cluster_address: string;
  performance_standby: boolean;
  performance_standby_last_remote_wal: number;
}

/**
 * Go's zero `time.Time` as `encoding/json` writes it (Vault's `active_time` when not active).
 * @internal
 */
export const GO_ZERO_TIME = '0001-01-01T00:00:00Z';

/**
 * The leader status of the handler's node.
 * @throws TransitError `sealed` ("Vault is sealed") when HA is enabled and the
 * node is sealed or uninitialised.
 * @internal
 */
export async function leaderStatus(s: ServedBy): Promise<LeaderBody> {
  const body: LeaderBody = {
    ha_enabled: false,
    is_self: false,
    active_time: GO_ZERO_TIME,
    leader_address: '',
    leader_cluster_address: '',
    performance_standby: false,
    performance_standby_last_remote_wal: 0,
  };
  const node = s.node;
  // A node from an older copy of the package has no `haEnabled`: not HA, as Vault
  // without an HA backend.
  if (node.haEnabled !== true) return body;
  const state = await health(s);
  if (!state.initialized || state.sealed) throw sealed();
  // One read of the leadership, after the await, for both fields: a lock lost
  // between health's read and a second one would give is_self with no active_time.
  const since = node.leases.leadership.leaderSince;
  // The leader names itself; a standby, the address the leader advertised on taking the lock.
  const address = since !== undefined ? (node.apiAddr ?? '') : await node.leaderAddress();
  return {
    ...body,
    ha_enabled: true,
    is_self: since !== undefined,
    leader_address: address,
    active_time: since === undefined ? GO_ZERO_TIME : rfc3339(since),
  };
}
