/**
 * The node's metrics: the storage below the barrier, instrumented
 * (`transitkit_storage_*`, labelled with the node's `storageType`), and the
 * gauges of its state, read at scrape time — `transitkit_node_sealed`,
 * `transitkit_node_active` (holds the leader lock), `transitkit_node_initialized`.
 * The engine and the lease manager of each unsealed period record on the same
 * {@link Metrics} (services.ts passes it on).
 *
 * Kept out of transit-node.ts, which only calls {@link nodeMetrics}.
 * @module
 */
import type { AuditFailureInfo } from '../audit/types.js';
import { invalidRequest } from '../errors.js';
import { METRICS } from '../metrics/catalog.js';
import { metricsOff, resolveMetrics } from '../metrics/noop.js';
import type { Metrics } from '../metrics/types.js';
import type { StorageAdapter } from '../storage/adapter.js';
import { instrumentStorage } from '../storage/instrumented.js';

/**
 * The audit broker's `onFailure`: counts each failed entry in
 * `transitkit_audit_failures_total` by device path and entry kind, then calls
 * the application's own `next` (the option as given when metrics are off).
 * @internal
 */
export function auditFailureCounter(
  metrics: Metrics | undefined,
  next: ((info: AuditFailureInfo) => void) | undefined,
): ((info: AuditFailureInfo) => void) | undefined {
  if (metricsOff(metrics)) return next;
  const failures = (metrics as Metrics).counter(METRICS.auditFailures);
  return (info) => {
    failures.add(1, { device: info.path, entry: info.entry });
    next?.(info);
  };
}

/** The node state the gauges read. @internal */
export interface NodeStateSource {
  health(): Promise<{ initialized: boolean; sealed: boolean; standby: boolean }>;
}

/** What the node keeps: the storage to use, and the metrics for its services. @internal */
export interface NodeMetrics {
  /** `storage`, instrumented when metrics are on. */
  readonly storage: StorageAdapter;
  readonly metrics: Metrics;
  /** Register the state gauges of `node` (once, from its constructor). */
  watch(node: NodeStateSource): void;
}

/**
 * Resolve the node's `metrics` option and wrap its storage.
 * @throws TransitError `invalid_request` for a `metrics` that is not a {@link Metrics}.
 * @internal
 */
export function nodeMetrics(
  option: unknown,
  storage: StorageAdapter,
  storageType: string | undefined,
): NodeMetrics {
  const metrics = resolveMetrics(option, invalidRequest);
  if (metricsOff(metrics)) return { storage, metrics, watch: () => undefined };
  return {
    storage: instrumentStorage(storage, metrics, storageType ?? 'custom'),
    metrics,
    watch(node) {
      metrics.gauge(METRICS.nodeSealed, async (observe) => {
        observe((await node.health()).sealed ? 1 : 0);
      });
      metrics.gauge(METRICS.nodeActive, async (observe) => {
        const h = await node.health();
        observe(!h.sealed && !h.standby ? 1 : 0);
      });
      metrics.gauge(METRICS.nodeInitialized, async (observe) => {
        observe((await node.health()).initialized ? 1 : 0);
      });
    },
  };
}
