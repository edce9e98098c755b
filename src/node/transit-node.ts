/**
 * `TransitNode`: the service that owns the sealed state (Vault's core) —
 * `sys/init`, `sys/unseal`, `sys/seal`, `sys/seal-status`, the node's health,
 * auto-unseal, and keyring rotation (`sys/rotate`, `sys/key-status`).
 *
 * Life cycle:
 * - **uninitialised**: the store has no `core/keyring`. `init` makes a random
 *   root key and keyring, stores the keyring under the root key (one atomic
 *   compare-and-set, so two nodes cannot both initialise), creates the root
 *   token through the barrier, splits the root key into Shamir shares, and
 *   leaves the node **sealed** (as Vault);
 * - **sealed**: `unseal` collects shares (duplicates ignored, `reset` drops
 *   them, a new attempt gets a new `nonce`); at the threshold it rebuilds the
 *   root key and opens the keyring — wrong shares are refused and the
 *   progress reset;
 * - **unsealed**: new {@link NodeServices} (engine, tokens, policies, leases,
 *   audit devices) on the barrier. `seal` closes and drops them and wipes the keyring and
 *   root key: nothing made while unsealed survives. `node.transit` and the
 *   other facades fail with `sealed` meanwhile;
 * - **active / standby**: an unsealed node is active while it holds the
 *   storage's leader lock, standby otherwise. One `Leadership`
 *   (leadership.ts) per unsealed period holds it for every background duty:
 *   lease expiry and auto-rotation both run on the active node only.
 *
 * Auto-unseal: with `rootKey`, {@link TransitNode.start} initialises a new
 * store and unseals; `init` and `unseal` are refused. The node keeps a copy of
 * the root key until it is sealed: a sealed auto-unseal node stays sealed
 * (as Vault's until a restart); make a new node to unseal again.
 *
 * With a storage that can `watch`, a keyring rotated by another node is
 * loaded at once, so this node's next writes use the new term too.
 *
 * State changes run one at a time (a promise chain); reads do not wait.
 * Runtime-neutral.
 * @module
 */

import { AuditBroker } from '../audit/broker.js';
import { AclPolicyStore } from '../auth/acl-policies.js';
import { TokenStore } from '../auth/token-store.js';
import { type Clock, systemClock } from '../clock.js';
import type { CryptoBackend } from '../crypto/backend.js';
import { internal, invalidRequest, sealed } from '../errors.js';
import { LeaseManager } from '../leases/lease-manager.js';
import { hasLock, type StorageAdapter } from '../storage/adapter.js';
import { Barrier } from '../storage/barrier.js';
import { resolveBackend } from '../transit/options.js';
import { Transit } from '../transit/transit.js';
import { serial } from '../util/serial.js';
import { PACKAGE_VERSION } from '../version.js';
import type { HealthState } from './health.js';
import { initializeStore } from './initialize.js';
import {
  KEYRING_PATH,
  ROOT_KEY_BYTES,
  readSealedKeyring,
  type SealConfig,
  type SealedKeyring,
} from './keyring.js';
import { advertisedLeader } from './leader-advert.js';
import { initRequest, nodeOptions, unsealRequest } from './node-input.js';
import { NodeKeys } from './node-keys.js';
import { nodeMetrics } from './node-metrics.js';
import { UnsealProgress } from './progress.js';
import { sealedRef } from './sealed-ref.js';
import { closeServices, clusterOf, openServices } from './services.js';
import { checkShareParams, combineShares, decodeShare, shareOut } from './shares.js';
import { sealedStatus } from './status.js';
import type {
  InitRequest,
  InitResponse,
  NodeServices,
  SealStatus,
  TransitNodeOptions,
  UnsealRequest,
} from './types.js';

const AUTO: SealConfig = { type: 'auto', secret_shares: 1, secret_threshold: 1 };

/** How long a seal waits for storage calls in flight (see `Barrier.drained`). */
const SEAL_DRAIN_MS = 2_000;

/**
 * A sealable transit node: the engine, tokens, policies and leases behind a
 * barrier whose keys exist in memory only while unsealed.
 *
 * @example
 * ```ts
 * const node = new TransitNode({ storage: new MemoryStorage() });
 * const { keys, root_token } = await node.init({ secret_shares: 3, secret_threshold: 2 });
 * await node.unseal({ key: keys[0] });
 * await node.unseal({ key: keys[2] }); // unsealed
 * await node.transit.createKey('orders');
 * await node.seal(); // node.transit now fails with `sealed`
 * ```
 * @public
 */
export class TransitNode {
  readonly #storage: StorageAdapter;
  readonly #backend: CryptoBackend;
  readonly #clock: Clock;
  readonly #options: TransitNodeOptions;
  readonly #barrier: Barrier;
  /** Auto-unseal: this node's copy of the application's root key, wiped by {@link TransitNode.seal}. */
  #autoKey: Uint8Array | undefined;
  readonly #auto: boolean;
  /**
   * Auto-unseal: the root token this node generated when it initialised the
   * store, until a {@link TransitNode.start} returns it (a start that failed
   * after initialising must not lose it: the next one shows it).
   */
  #unshownRoot: string | undefined;
  /** The root key and keyring while unsealed. */
  readonly #keys: NodeKeys;
  #live: NodeServices | undefined;
  #initialized = false;
  readonly #progress: UnsealProgress;
  /** State changes, one at a time; reads do not wait. */
  readonly #serial = serial();

  /** The engine of the current unsealed period (fails with `sealed` while sealed). */
  readonly transit: Transit = sealedRef(Transit.prototype, () => this.#live?.transit);
  /** The token store of the current unsealed period. */
  readonly tokens: TokenStore = sealedRef(TokenStore.prototype, () => this.#live?.tokens);
  /** The ACL policies of the current unsealed period. */
  readonly policies: AclPolicyStore = sealedRef(
    AclPolicyStore.prototype,
    () => this.#live?.policies,
  );
  /** The lease manager of the current unsealed period. */
  readonly leases: LeaseManager = sealedRef(LeaseManager.prototype, () => this.#live?.leases);
  /** The audit devices of the current unsealed period. */
  readonly audit: AuditBroker = sealedRef(AuditBroker.prototype, () => this.#live?.audit);

  /**
   * @throws TransitError `invalid_request` for an unknown option (nested ones
   * included), a storage that is not a whole adapter, or a bad root key.
   */
  constructor(options: TransitNodeOptions) {
    const o = nodeOptions(options);
    const measured = nodeMetrics(o.metrics, o.storage, o.storageType);
    this.#options = { ...o, metrics: measured.metrics };
    this.#auto = o.rootKey !== undefined;
    this.#autoKey = o.rootKey?.slice();
    this.#storage = measured.storage;
    this.#backend = resolveBackend(o.crypto);
    this.#clock = o.clock ?? systemClock;
    this.#barrier = new Barrier(measured.storage, this.#backend);
    this.#progress = new UnsealProgress((a, b) => this.#backend.timingSafeEqual(a, b));
    this.#keys = new NodeKeys({
      storage: this.#storage,
      backend: this.#backend,
      barrier: this.#barrier,
      clock: this.#clock,
      serial: (fn) => this.#serial(() => (this.#live ? fn() : Promise.resolve())),
    });
    measured.watch(this);
  }

  /** True while sealed (also before initialisation). */
  get sealed(): boolean {
    return this.#live === undefined;
  }

  /**
   * Whether this node shares its leader lock with other instances (Vault's
   * `ha_enabled`, `sys/leader`): its leadership's storage can lock (see
   * leadership.ts). Known while sealed too: the `leases.leadership` option's,
   * else the storage's.
   */
  get haEnabled(): boolean {
    const leadership = this.#live?.leases.leadership ?? this.#options.leases?.leadership;
    return leadership ? leadership.shared : hasLock(this.#storage);
  }

  /** This node's API address (the `apiAddr` option), if it has one. */
  get apiAddr(): string | undefined {
    return this.#options.apiAddr;
  }

  /**
   * The API address the active node advertised when it took the leader lock
   * (leader-advert.ts); `""` when it had none. @throws TransitError `sealed`.
   */
  leaderAddress(): Promise<string> {
    if (!this.#live) return Promise.reject(sealed(this.#initialized));
    return advertisedLeader(this.#barrier);
  }

  /**
   * With `rootKey` (auto-unseal): initialise a new store, then unseal. Returns
   * the root token when this node initialised the store (if a start fails
   * after initialising, the next start that succeeds returns it). Without `rootKey`,
   * only reads the initialisation state.
   * @throws TransitError `invalid_request` when the root key does not open the
   * store's keyring; `sealed` when this auto-unseal node was sealed.
   */
  start(): Promise<{ root_token?: string }> {
    return this.#serial(async () => {
      if (!this.#auto) {
        await this.initStatus();
        return {};
      }
      if (this.#live) return {};
      const rootKey = this.#autoKey;
      if (!rootKey) throw sealed();
      let doc = await readSealedKeyring(this.#storage);
      if (!doc) {
        this.#unshownRoot = await this.#initialize(
          rootKey.slice(),
          AUTO,
          this.#options.initialRootToken,
        );
        doc = await readSealedKeyring(this.#storage);
        if (!doc) throw internal('the keyring written at initialisation is missing');
      }
      await this.#unsealWith(rootKey.slice(), doc);
      const root_token = this.#unshownRoot;
      this.#unshownRoot = undefined;
      return root_token === undefined ? {} : { root_token };
    });
  }

  /** `GET sys/init`. */
  async initStatus(): Promise<{ initialized: boolean }> {
    if (!this.#initialized) {
      this.#initialized = (await this.#storage.get(KEYRING_PATH)) !== undefined;
    }
    return { initialized: this.#initialized };
  }

  /**
   * `PUT sys/init`: create the root key, keyring and root token; returns the
   * unseal key shares (shown once). The node stays sealed.
   * @throws TransitError `invalid_request` when already initialised, for bad
   * share parameters, or on an auto-unseal node.
   */
  init(request: InitRequest): Promise<InitResponse> {
    return this.#serial(async () => {
      if (this.#auto) {
        throw invalidRequest('this node initialises itself from its root key (auto-unseal)');
      }
      const r = initRequest(request);
      checkShareParams(r.secret_shares, r.secret_threshold);
      const n = r.secret_shares as number;
      const t = r.secret_threshold as number;
      const rootKey = this.#backend.randomBytes(ROOT_KEY_BYTES);
      try {
        const seal: SealConfig = { type: 'shamir', secret_shares: n, secret_threshold: t };
        const root_token = await this.#initialize(rootKey, seal);
        if (root_token === undefined) throw invalidRequest('Vault is already initialized');
        return { ...(await shareOut(rootKey, n, t)), root_token };
      } finally {
        rootKey.fill(0);
      }
    });
  }

  /**
   * `PUT sys/unseal`: submit one share (or `reset`). Returns the seal status.
   * @throws TransitError `invalid_request` when not initialised, for a malformed
   * share, when the shares do not rebuild the root key, or on an auto-unseal node.
   */
  unseal(request: UnsealRequest): Promise<SealStatus> {
    return this.#serial(async () => {
      if (this.#auto) throw invalidRequest('this node unseals itself (auto-unseal)');
      const r = unsealRequest(request);
      const doc = await readSealedKeyring(this.#storage);
      if (!doc) throw invalidRequest('Vault is not initialized');
      this.#initialized = true;
      // Vault's checks (http/sys_seal.go), sealed or not: a key or a reset, then the rest.
      if (r.reset !== true && (r.key === undefined || r.key === '')) {
        throw invalidRequest(
          "'key' must be specified in request body as JSON, or 'reset' set to true",
        );
      }
      if (this.#live) {
        // Unsealed already: Vault still checks the request.
        if (r.reset === true) throw invalidRequest('vault is unsealed');
        decodeShare(r.key, doc.seal.secret_shares).fill(0);
      } else if (r.reset === true) this.#progress.reset();
      else {
        const shares = this.#progress.add(
          decodeShare(r.key, doc.seal.secret_shares),
          doc.seal.secret_threshold,
        );
        if (shares) await this.#unsealWith(await combineShares(shares), doc);
      }
      return this.#status(doc);
    });
  }

  /**
   * `PUT sys/seal`: drop the services and every key from memory (an
   * auto-unseal node's root key too). Sealing a sealed node does nothing.
   */
  seal(): Promise<void> {
    return this.#serial(async () => {
      const live = this.#live;
      this.#live = undefined;
      this.#progress.reset();
      if (live) await closeServices(live);
      this.#keys.drop();
      this.#autoKey?.fill(0);
      this.#autoKey = undefined;
      // A storage call that passed the barrier before the drop (a rotate's
      // write, say) settles before the seal returns: nothing of this period
      // lands after it. Bounded, so a call that never answers cannot hold it.
      if (await this.#barrier.drained(SEAL_DRAIN_MS)) {
        // And the calls those writes answer settle first (their continuations
        // run before the next macrotask), so none reports after the seal does.
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
    });
  }

  /** `GET sys/seal-status`. */
  async sealStatus(): Promise<SealStatus> {
    const doc = await readSealedKeyring(this.#storage);
    // Another node may have initialised the store: services() then says "sealed".
    if (doc) this.#initialized = true;
    return this.#status(doc);
  }

  /**
   * The node state for `sys/health`: initialised, sealed, standby, and while
   * unsealed the store's cluster name and id (the same on every node).
   */
  async health(): Promise<HealthState> {
    const { initialized } = await this.initStatus();
    const live = this.#live;
    if (!live) return { initialized, sealed: true, standby: false };
    const state: HealthState = { initialized, sealed: false, standby: !live.leases.isLeader() };
    const cluster = clusterOf(live);
    if (cluster) {
      state.cluster_name = cluster.name;
      state.cluster_id = cluster.id;
    }
    return state;
  }

  /**
   * The services, as the facades {@link TransitNode.transit}, `tokens`,
   * `policies` and `leases` (never the instances themselves, so nothing a
   * caller keeps outlives a seal).
   * @throws TransitError `sealed` while sealed or uninitialised.
   */
  services(): NodeServices {
    if (this.#live) {
      return {
        transit: this.transit,
        tokens: this.tokens,
        policies: this.policies,
        leases: this.leases,
        audit: this.audit,
      };
    }
    throw sealed(this.#initialized);
  }

  /**
   * `PUT sys/rotate`: add a keyring term; new writes use it, older entries stay
   * readable. Other nodes pick the term up when they first meet it.
   * @throws TransitError `sealed`; `conflict` when another node kept rotating concurrently.
   */
  rotateKeyring(): Promise<{ term: number }> {
    return this.#serial(async () => {
      if (!this.#live) throw sealed();
      return { term: await this.#keys.rotate() };
    });
  }

  /**
   * `GET sys/key-status`: the active keyring term and when it was installed
   * (RFC 3339, as Vault). @throws TransitError `sealed`.
   */
  keyStatus(): { term: number; install_time: string } {
    if (!this.#live) throw sealed();
    return this.#keys.status();
  }

  /** Seal (the storage stays open: the application owns it). */
  close(): Promise<void> {
    return this.seal();
  }

  /** Write the sealed keyring and the root token; `undefined` when another node initialised first. */
  async #initialize(
    rootKey: Uint8Array,
    seal: SealConfig,
    rootTokenId?: string,
  ): Promise<string | undefined> {
    const deps = { storage: this.#storage, backend: this.#backend, clock: this.#clock };
    const root = await initializeStore(deps, rootKey, seal, rootTokenId);
    this.#initialized = true;
    return root;
  }

  /** Open the keyring with `rootKey` (which the node then owns) and start the services. */
  async #unsealWith(rootKey: Uint8Array, doc: SealedKeyring): Promise<void> {
    await this.#keys.open(rootKey, doc);
    this.#initialized = true;
    try {
      this.#live = await openServices(this.#barrier, this.#backend, this.#clock, this.#options);
    } catch (e) {
      this.#keys.drop();
      throw e;
    }
    try {
      await this.#options.onUnseal?.(this.services());
    } catch (e) {
      const live = this.#live;
      this.#live = undefined;
      await closeServices(live);
      this.#keys.drop();
      throw e;
    }
  }

  #status(doc: SealedKeyring | undefined): SealStatus {
    return sealedStatus(doc?.seal, {
      sealed: !this.#live,
      auto: this.#auto,
      progress: this.#progress.count,
      nonce: this.#progress.nonce,
      version: this.#options.version ?? PACKAGE_VERSION,
      storageType: this.#options.storageType ?? 'custom',
    });
  }
}
