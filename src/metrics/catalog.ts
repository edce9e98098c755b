/**
 * THE metric catalog: every metric transitkit records, declared once with its
 * name, kind, help, labels and buckets. The Prometheus implementation, the
 * Grafana dashboard (examples/grafana-dashboard.json) and the docs are all
 * checked against this table.
 *
 * Labels are bounded by construction: `route` is a route pattern of the HTTP
 * table (`/transit/encrypt/:name`, never the key name), `key_type` a key type
 * of the registry, `operation` a fixed verb, `adapter` the storage kind, and
 * `status` an HTTP status code. No label ever carries a key name, a path
 * typed by a caller, or a token.
 *
 * Runtime-neutral.
 * @module
 */
import type { MetricDefinition } from './types.js';

/** Latency buckets (seconds) of requests and storage operations: 0.1 ms to 10 s. */
const LATENCY_BUCKETS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
] as const;
/** Batch sizes up to the default maximum of 10,000 items. */
const BATCH_BUCKETS = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000] as const;
/** Expiry lag (seconds): how late a due lease was processed. */
const LAG_BUCKETS = [0.01, 0.1, 0.5, 1, 2, 5, 10, 30, 60, 300, 900, 3600] as const;

const def = (d: MetricDefinition): MetricDefinition => Object.freeze(d);

/**
 * Every metric transitkit records (all names start with `transitkit_`).
 * @public
 */
export const METRICS = /* @__PURE__ */ Object.freeze({
  /** HTTP requests: latency by route pattern, method and status (`_count` counts requests). */
  httpRequestDuration: def({
    name: 'transitkit_http_request_duration_seconds',
    kind: 'histogram',
    help: 'HTTP request latency by route pattern, method and status code',
    labelNames: ['route', 'method', 'status'],
    unit: 'seconds',
    buckets: LATENCY_BUCKETS,
  }),
  /** Cryptographic operations (batch items count one each). */
  cryptoOperations: def({
    name: 'transitkit_crypto_operations_total',
    kind: 'counter',
    help: 'Cryptographic operations requested, by operation and key type (each batch item counts)',
    labelNames: ['operation', 'key_type'],
    unit: '1',
  }),
  /** Items per `batch_input` request. */
  batchSize: def({
    name: 'transitkit_batch_size',
    kind: 'histogram',
    help: 'Items per batch_input request, by operation',
    labelNames: ['operation'],
    unit: '1',
    buckets: BATCH_BUCKETS,
  }),
  /** Parsed-key cache hits. */
  keyCacheHits: def({
    name: 'transitkit_key_cache_hits_total',
    kind: 'counter',
    help: 'Key loads answered by the parsed-key cache',
    labelNames: [],
    unit: '1',
  }),
  /** Parsed-key cache misses (read from storage). */
  keyCacheMisses: def({
    name: 'transitkit_key_cache_misses_total',
    kind: 'counter',
    help: 'Key loads that read storage (not cached, or past the re-check age)',
    labelNames: [],
    unit: '1',
  }),
  /** Keys evicted from the parsed-key cache by its size limit. */
  keyCacheEvictions: def({
    name: 'transitkit_key_cache_evictions_total',
    kind: 'counter',
    help: 'Keys evicted from the parsed-key cache by its size limit (cache-config)',
    labelNames: [],
    unit: '1',
  }),
  /** Storage operation latency, by adapter and operation. */
  storageDuration: def({
    name: 'transitkit_storage_operation_duration_seconds',
    kind: 'histogram',
    help: 'Storage operation latency by adapter and operation',
    labelNames: ['adapter', 'operation'],
    unit: 'seconds',
    buckets: LATENCY_BUCKETS,
  }),
  /** Storage operations that failed, by adapter and operation. */
  storageErrors: def({
    name: 'transitkit_storage_errors_total',
    kind: 'counter',
    help: 'Storage operations that failed, by adapter and operation',
    labelNames: ['adapter', 'operation'],
    unit: '1',
  }),
  /** Leases not yet expired or revoked (irrevocable ones excluded). */
  leasesActive: def({
    name: 'transitkit_leases_active',
    kind: 'gauge',
    help: 'Leases stored and not irrevocable (sampled at most every leaseCountIntervalMs)',
    labelNames: [],
    unit: '1',
  }),
  /** Leases whose revocation gave up. */
  leasesIrrevocable: def({
    name: 'transitkit_leases_irrevocable',
    kind: 'gauge',
    help: 'Irrevocable leases (revocation gave up; see sys/leases?type=irrevocable)',
    labelNames: [],
    unit: '1',
  }),
  /** How late the expiry scheduler processed due leases. */
  leaseExpiryLag: def({
    name: 'transitkit_lease_expiry_lag_seconds',
    kind: 'histogram',
    help: 'Delay between a lease falling due and the scheduler processing it',
    labelNames: [],
    unit: 'seconds',
    buckets: LAG_BUCKETS,
  }),
  /** 1 while this instance holds the leader lock (active), 0 on a standby. */
  nodeActive: def({
    name: 'transitkit_node_active',
    kind: 'gauge',
    help: '1 while this instance holds the leader lock (active), 0 when standby or sealed',
    labelNames: [],
    unit: '1',
  }),
  /** 1 while sealed (or not initialised), 0 when unsealed. */
  nodeSealed: def({
    name: 'transitkit_node_sealed',
    kind: 'gauge',
    help: '1 while this node is sealed or uninitialised, 0 when unsealed',
    labelNames: [],
    unit: '1',
  }),
  /** 1 once the store is initialised. */
  nodeInitialized: def({
    name: 'transitkit_node_initialized',
    kind: 'gauge',
    help: '1 once the storage holds an initialised keyring',
    labelNames: [],
    unit: '1',
  }),
  /**
   * Audit entries a device (or the in-process sink) failed to record, by
   * device path and entry kind (Vault's `audit.log_request_failure` and
   * `log_response_failure`). When no device records an entry, the request is
   * refused (fail closed).
   */
  auditFailures: def({
    name: 'transitkit_audit_failures_total',
    kind: 'counter',
    help: 'Audit entries a device (or the sink) failed to record, by device path and entry kind',
    labelNames: ['device', 'entry'],
    unit: '1',
  }),
});

/** Every definition of {@link METRICS}, as a list. @public */
export const METRIC_DEFINITIONS: readonly MetricDefinition[] = /* @__PURE__ */ Object.freeze(
  Object.values(METRICS),
);
