/**
 * The cluster's name and id in `sys/health` (Vault's `cluster_name`,
 * `cluster_id`, which Vault stores once in `core/cluster/local/info`): made
 * on the first unseal of a store and kept in it, through the barrier, at
 * `sys/cluster/info`, so every node on the store, and every restart, reports
 * the same. Monitoring keys on the id; a random one per process made each
 * node and each restart look like a new cluster.
 *
 * Runtime-neutral.
 * @module
 */
import { fromUtf8, utf8 } from '../encoding.js';
import type { StorageAdapter } from '../storage/adapter.js';

/** Where the cluster identity is stored (through the barrier). @internal */
export const CLUSTER_INFO_PATH = 'sys/cluster/info';

/** A store's cluster identity. @internal */
export interface ClusterInfo {
  /** `vault-cluster-<8 hex digits>`, as Vault names a cluster it names itself. */
  readonly name: string;
  /** A random UUID. */
  readonly id: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function parse(raw: Uint8Array): ClusterInfo | undefined {
  try {
    const j = JSON.parse(fromUtf8(raw)) as Partial<ClusterInfo> | null;
    if (typeof j?.name === 'string' && typeof j.id === 'string' && UUID.test(j.id)) {
      return { name: j.name, id: j.id };
    }
  } catch {
    // damaged: not reported (health falls back to the handler's defaults)
  }
  return undefined;
}

/**
 * The store's cluster identity, made and stored (compare-and-set: the first
 * node to store one wins) when it has none. `undefined` when the stored one
 * is damaged or storage fails: `sys/health` then reports the handler's
 * defaults, and unsealing goes on.
 * @internal
 */
export async function loadClusterInfo(storage: StorageAdapter): Promise<ClusterInfo | undefined> {
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      const raw = await storage.get(CLUSTER_INFO_PATH);
      if (raw) return parse(raw);
      const id = globalThis.crypto.randomUUID();
      const made: ClusterInfo = { name: `vault-cluster-${id.slice(0, 8)}`, id };
      if (await storage.compareAndSet(CLUSTER_INFO_PATH, undefined, utf8(JSON.stringify(made)))) {
        return made;
      }
    }
  } catch {
    // storage failed: the defaults this time, stored on a later unseal
  }
  return undefined;
}
