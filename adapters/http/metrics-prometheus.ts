/**
 * `PrometheusMetrics`: the core's {@link Metrics} interface on prom-client,
 * with its own registry (so each instance — each node in a process, each
 * test — reports only its own series), the Prometheus text exposition, and
 * the JSON summary of Vault's `sys/metrics` (metrics-json.ts).
 *
 * prom-client is a dependency of the HTTP adapter only, and reaches users
 * through `transitkit/http/node` (it uses Node builtins): the core records
 * through the dependency-free interface and never imports it, and
 * `transitkit/http` stays runtime-neutral (it needs only `MetricsExporter`).
 * @module
 */

import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type {
  CounterInstrument,
  GaugeCallback,
  HistogramInstrument,
  MetricDefinition,
  MetricLabels,
} from 'transitkit';
import { invalidRequest } from '../../src/errors.js';
import type { MetricsExporter } from './metrics.js';
import { type VaultMetricsSummary, vaultSummary } from './metrics-json.js';
import { FastHistogram, fastCounter } from './metrics-series.js';

/** Options of {@link PrometheusMetrics}. @public */
export interface PrometheusMetricsOptions {
  /**
   * The prom-client registry to register on (to expose the application's own
   * metrics on the same scrape). Default: a new registry of this instance's own.
   */
  registry?: Registry;
  /**
   * Also collect prom-client's process and Node.js runtime metrics (CPU,
   * memory, event-loop lag, GC), prefixed `transitkit_`. Default false (the
   * CLI server turns them on).
   */
  processMetrics?: boolean;
}

type Instrument = { def: MetricDefinition; instrument: CounterInstrument | HistogramInstrument };

/**
 * The core's metrics on prom-client: pass it to `TransitNode` (or `Transit`,
 * `LeaseManager`) and to `createHandler`, and scrape `GET /v1/sys/metrics?format=prometheus`.
 *
 * @example
 * ```ts
 * import { MemoryStorage, TransitNode } from 'transitkit';
 * import { createHandler } from 'transitkit/http';
 * import { PrometheusMetrics } from 'transitkit/http/node';
 *
 * const metrics = new PrometheusMetrics();
 * const node = new TransitNode({ storage: new MemoryStorage(), metrics, storageType: 'inmem' });
 * const handler = createHandler(node, { metrics });
 * const text = await metrics.prometheus(); // transitkit_node_sealed 1 …
 * ```
 * @public
 */
export class PrometheusMetrics implements MetricsExporter {
  /** The prom-client registry holding every transitkit metric of this instance. */
  readonly registry: Registry;
  readonly #instruments = new Map<string, Instrument>();
  readonly #gauges = new Map<string, { def: MetricDefinition; callbacks: Set<GaugeCallback> }>();
  readonly #started = Date.now();

  /** @throws TransitError `invalid_request` for a registry that is not a prom-client `Registry`. */
  constructor(options: PrometheusMetricsOptions = {}) {
    const registry = options.registry ?? new Registry();
    if (typeof (registry as Partial<Registry>).metrics !== 'function') {
      throw invalidRequest("'registry' must be a prom-client Registry");
    }
    this.registry = registry;
    if (options.processMetrics === true) {
      collectDefaultMetrics({ register: registry, prefix: 'transitkit_' });
    }
  }

  get prometheusContentType(): string {
    return this.registry.contentType;
  }

  /** The counter of `def` (one per name; recording is a table lookup, metrics-series.ts). */
  counter(def: MetricDefinition): CounterInstrument {
    const known = this.#known(def, 'counter');
    if (known) return known.instrument as CounterInstrument;
    const counter = fastCounter(def, this.registry);
    this.#instruments.set(def.name, { def, instrument: counter });
    return counter;
  }

  /** The histogram of `def` (one per name; recording is a table lookup, metrics-series.ts). */
  histogram(def: MetricDefinition): HistogramInstrument {
    const known = this.#known(def, 'histogram');
    if (known) return known.instrument as HistogramInstrument;
    const histogram = new FastHistogram(def, this.registry);
    this.#instruments.set(def.name, { def, instrument: histogram });
    return histogram;
  }

  gauge(def: MetricDefinition, collect: GaugeCallback): () => void {
    if (def.kind !== 'gauge') throw invalidRequest(`metric ${def.name} is a ${def.kind}`);
    let entry = this.#gauges.get(def.name);
    if (!entry) {
      if (this.#instruments.has(def.name))
        throw invalidRequest(`metric ${def.name} is not a gauge`);
      const callbacks = new Set<GaugeCallback>();
      entry = { def, callbacks };
      this.#gauges.set(def.name, entry);
      new Gauge({
        name: def.name,
        help: def.help,
        labelNames: [...def.labelNames],
        registers: [this.registry],
        // Read at every scrape. A callback that fails leaves its series out;
        // an unlabelled gauge nobody could read is NaN ("unknown"), never a
        // made-up 0 (prom-client keeps an unlabelled series at 0 otherwise).
        async collect() {
          this.reset();
          let seen = false;
          const observe = (value: number, labels?: MetricLabels) => {
            seen = true;
            this.set(labels ?? {}, value);
          };
          await Promise.all(
            [...callbacks].map(async (cb) => {
              try {
                await cb(observe);
              } catch {
                // No value from this callback in this scrape.
              }
            }),
          );
          if (!seen && def.labelNames.length === 0) this.set(Number.NaN);
        },
      });
    }
    const callbacks = entry.callbacks;
    callbacks.add(collect);
    return () => {
      callbacks.delete(collect);
    };
  }

  /** The Prometheus text exposition (gauges read now). */
  prometheus(): Promise<string> {
    return this.registry.metrics();
  }

  /** Vault's JSON summary; counters and histograms are cumulative since this instance started. */
  async vaultJson(): Promise<VaultMetricsSummary> {
    return vaultSummary(await this.registry.getMetricsAsJSON(), new Date(), this.#started);
  }

  /** The instrument already made for `def.name`, checked to be the same kind. */
  #known(def: MetricDefinition, kind: 'counter' | 'histogram'): Instrument | undefined {
    if (def.kind !== kind) throw invalidRequest(`metric ${def.name} is a ${def.kind}`);
    const known = this.#instruments.get(def.name);
    if (known && known.def.kind !== kind) {
      throw invalidRequest(`metric ${def.name} is already a ${known.def.kind}`);
    }
    if (!known && this.#gauges.has(def.name)) throw invalidRequest(`metric ${def.name} is a gauge`);
    return known;
  }
}
