/**
 * The public shapes of the seal: Vault's `sys/init`, `sys/unseal` and
 * `sys/seal-status` bodies (snake_case, as the API), and the options of
 * {@link TransitNode}.
 * @module
 */
import type { AuditBroker, AuditBrokerOptions } from '../audit/broker.js';
import type { AclPolicyStore } from '../auth/acl-policies.js';
import type { TokenStoreOptions } from '../auth/token-entry.js';
import type { TokenStore } from '../auth/token-store.js';
import type { Clock } from '../clock.js';
import type { CryptoBackend } from '../crypto/backend.js';
import type { LeaseManager } from '../leases/lease-manager.js';
import type { LeaseManagerOptions } from '../leases/types.js';
import type { Metrics } from '../metrics/types.js';
import type { StorageAdapter } from '../storage/adapter.js';
import type { Transit, TransitOptions } from '../transit/transit.js';

/**
 * Body of `PUT sys/init` ({@link TransitNode.init}).
 * @public
 */
export interface InitRequest {
  /** Number of unseal key shares (1-255). */
  secret_shares: number;
  /** Shares needed to unseal (2..secret_shares; 1 only with a single share). */
  secret_threshold: number;
}

/**
 * Result of `PUT sys/init`: the unseal key shares (shown once) and the root token.
 * @public
 */
export interface InitResponse {
  /** The shares, hex. */
  keys: string[];
  /** The same shares, base64. */
  keys_base64: string[];
  /** The initial root token. */
  root_token: string;
}

/**
 * Body of `PUT sys/unseal` ({@link TransitNode.unseal}).
 * @public
 */
export interface UnsealRequest {
  /** One key share, hex or base64. Required unless `reset`. */
  key?: string;
  /** Discard the shares submitted so far. */
  reset?: boolean;
}

/**
 * `GET sys/seal-status` (and the reply of `sys/unseal`), as Vault.
 * @public
 */
export interface SealStatus {
  /** `shamir`, or `auto` when the application supplies the root key. */
  type: 'shamir' | 'auto';
  initialized: boolean;
  sealed: boolean;
  /** Threshold. */
  t: number;
  /** Number of shares. */
  n: number;
  /** Shares submitted toward the next unseal. */
  progress: number;
  /** Identifies the unseal attempt in progress (empty when none). */
  nonce: string;
  version: string;
  build_date: string;
  migration: boolean;
  recovery_seal: boolean;
  storage_type: string;
  cluster_name?: string;
  cluster_id?: string;
}

/**
 * The services of an unsealed node. New instances are made on every unseal
 * and discarded on seal.
 * @public
 */
export interface NodeServices {
  transit: Transit;
  tokens: TokenStore;
  policies: AclPolicyStore;
  leases: LeaseManager;
  /** The audit devices (`sys/audit`), stored in the barrier. */
  audit: AuditBroker;
}

/**
 * Options of {@link TransitNode}.
 * @public
 */
export interface TransitNodeOptions {
  /** The store (below the barrier: it only ever sees ciphertext). */
  storage: StorageAdapter;
  /** Crypto backend for the barrier and the engine, as `TransitOptions.crypto`. Default: the platform default. */
  crypto?: 'node' | 'noble' | 'default' | CryptoBackend;
  /** Time source for the engine, tokens and leases. Default: the wall clock. */
  clock?: Clock;
  /**
   * Auto-unseal: the 32-byte root key, held by the application (a KMS, a
   * secrets file). {@link TransitNode.start} then initialises a new store and
   * unseals on every start; `sys/init` and `sys/unseal` are refused.
   */
  rootKey?: Uint8Array;
  /** With `rootKey`: the root token created when the store is initialised (default: random). */
  initialRootToken?: string;
  /** Engine options (the storage, crypto and clock are the node's). */
  transit?: Omit<TransitOptions, 'storage' | 'crypto' | 'clock'>;
  /** Lease options; `tickMs` (default 1,000; `false`: call `leases.tick()` yourself). */
  leases?: Omit<LeaseManagerOptions, 'storage' | 'clock' | 'tokenExists' | 'tokenKey'> & {
    tickMs?: number | false;
  };
  /** Token store options (TTLs). */
  tokens?: Omit<TokenStoreOptions, 'storage' | 'clock' | 'crypto' | 'leases'>;
  /**
   * Audit: device types (`nodeAuditDevices()` of `transitkit/http/node` for
   * `file` and `socket`), the in-process `sink`, and `onFailure` (an
   * audit-failures counter). The table itself is stored in the barrier.
   */
  audit?: Omit<AuditBrokerOptions, 'storage' | 'crypto' | 'clock'>;
  /** Called after every unseal with the new services (e.g. to write configured policies). */
  onUnseal?: (services: NodeServices) => void | Promise<void>;
  /**
   * This node's API address (Vault's `api_addr`), an `http:` or `https:` URL
   * such as `https://vault-1.example:8200`. The node advertises it in storage
   * each time it takes the shared leader lock, so `sys/leader` names the
   * active node's address (`leader_address`) on every node. Default: none
   * (`leader_address` is then `""`).
   */
  apiAddr?: string;
  /** `version` of seal-status. Default: the package version (as `sys/health`). */
  version?: string;
  /** `storage_type` of seal-status, and the `adapter` label of the storage metrics. Default `custom`. */
  storageType?: string;
  /**
   * Where the node records its metrics (`METRICS`): its storage operations,
   * seal and leader state, and — passed on to the services of every unsealed
   * period — the engine's and the lease manager's. Use one per node (each
   * instance reports its own). Default: none.
   */
  metrics?: Metrics;
}
