/**
 * The services of one unsealed period: a Transit engine, a token store, ACL
 * policies and a lease manager, all on the barrier. Made on unseal, closed and
 * dropped on seal, so no cache, timer or parsed key outlives the keyring.
 *
 * On opening, the lease manager ticks once before answering: that takes the
 * storage's leader lock when it is free, which decides `active` vs `standby`.
 * The engine shares that `Leadership` (the lease manager's), so
 * auto-rotation runs on the active node only, as lease expiry does.
 *
 * Runtime-neutral.
 * @module
 */
import { AuditBroker } from '../audit/broker.js';
import { AclPolicyStore } from '../auth/acl-policies.js';
import { TokenStore } from '../auth/token-store.js';
import type { Clock } from '../clock.js';
import type { CryptoBackend } from '../crypto/backend.js';
import { LeaseManager } from '../leases/lease-manager.js';
import type { Barrier } from '../storage/barrier.js';
import { Transit } from '../transit/transit.js';
import { type ClusterInfo, loadClusterInfo } from './cluster-info.js';
import { advertiseLeader } from './leader-advert.js';
import { auditFailureCounter } from './node-metrics.js';
import type { NodeServices, TransitNodeOptions } from './types.js';

/** Each open period's leader advertisement (leader-advert.ts), stopped by {@link closeServices}. */
const advertising = new WeakMap<NodeServices, () => void>();
/** Each open period's cluster identity (cluster-info.ts), read at unseal. */
const clusters = new WeakMap<NodeServices, ClusterInfo>();

/** The cluster identity `services` were opened with, if the store has one. @internal */
export const clusterOf = (services: NodeServices): ClusterInfo | undefined =>
  clusters.get(services);

/** Build and start the services on an unsealed barrier. @internal */
export async function openServices(
  barrier: Barrier,
  backend: CryptoBackend,
  clock: Clock,
  options: TransitNodeOptions,
): Promise<NodeServices> {
  const { tickMs, ...leaseOptions } = options.leases ?? {};
  const policies = new AclPolicyStore({ storage: barrier, clock });
  const leases: LeaseManager = new LeaseManager({
    metrics: options.metrics,
    ...leaseOptions,
    storage: barrier,
    clock,
    // The token store below binds itself: tidy() asks it whether a lease's token still
    // exists (without spending a use), and a token's leases are indexed by its salted hash.
  });
  // One leader lock for every background duty: auto-rotation runs where expiry does.
  const transit = new Transit({
    metrics: options.metrics,
    ...options.transit,
    storage: barrier,
    crypto: backend,
    clock,
    leadership: leases.leadership,
  });
  const tokens: TokenStore = new TokenStore({
    ...options.tokens,
    storage: barrier,
    clock,
    crypto: backend,
    leases,
  });
  let audit: AuditBroker;
  try {
    audit = await AuditBroker.open({
      ...options.audit,
      // Every device failure also counts in transitkit_audit_failures_total.
      onFailure: auditFailureCounter(options.metrics, options.audit?.onFailure),
      storage: barrier,
      crypto: backend,
      clock,
    });
  } catch (e) {
    await closeServices({ transit, tokens, policies, leases } as NodeServices);
    throw e;
  }
  const services = { transit, tokens, policies, leases, audit };
  const cluster = await loadClusterInfo(barrier);
  if (cluster) clusters.set(services, cluster);
  // Before the first tick, which may take the lock: every gain names this node's address.
  // Undone on close: a caller's own Leadership outlives this period.
  advertising.set(services, advertiseLeader(barrier, leases.leadership, options.apiAddr ?? ''));
  try {
    await leases.tick();
    if (tickMs !== false) leases.start(tickMs ?? 1_000);
  } catch (e) {
    await closeServices(services);
    throw e;
  }
  return services;
}

/** Stop timers and storage watches, wait for background work, release the leader lock. @internal */
export async function closeServices(s: NodeServices): Promise<void> {
  advertising.get(s)?.();
  advertising.delete(s);
  // The engine's timer first, so that it cannot take the lock the leases then release.
  await s.transit.close().catch(() => undefined);
  await s.leases.stop().catch(() => undefined);
  await s.policies.close().catch(() => undefined);
  await s.tokens.close().catch(() => undefined);
  // Last: every entry accepted so far is written before the node reports sealed.
  await s.audit?.close().catch(() => undefined);
}
