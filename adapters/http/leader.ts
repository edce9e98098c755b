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
 * - HA enabled and unsealed: `is_self` is `!standby` of the same health state
 *   `sys/health` reports (one source: the node's leadership), and
 *   `active_time` when this instance became the leader (else Go's zero time).
 *
 * What this node cannot know, left empty rather than invented: the leader's
 * address (`leader_address`, `leader_cluster_address` are `""`: a node has no
 * advertised API or cluster address, and the leader lock does not name its
 * holder); performance standbys, WALs and raft indexes do not exist here
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
  const isSelf = !state.standby;
  const since = isSelf ? node.leases.leadership.leaderSince : undefined;
  return {
    ...body,
    ha_enabled: true,
    is_self: isSelf,
    active_time: since === undefined ? GO_ZERO_TIME : rfc3339(since),
  };
}
