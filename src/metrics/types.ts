/**
 * The metrics interface of the core: counters, histograms and gauges by name
 * and labels, with no dependency. The engine, the lease manager, the node and
 * the instrumented storage record through it; an application routes it where
 * it wants — the HTTP adapter's `PrometheusMetrics` (prom-client), or
 * OpenTelemetry (whose `Counter.add`/`Histogram.record` already have this
 * shape; see docs/metrics.md). The default, {@link noopMetrics}, does nothing.
 *
 * Why it is shaped this way: instruments are resolved once (at construction
 * of the component that records), so the per-operation cost is one call on
 * an instrument, and nothing at all with the no-op default. Gauges are read
 * at collection time (a callback), as Prometheus collectors and OpenTelemetry
 * observable gauges are, so state such as "sealed" or "leader" is never
 * stale and costs nothing between scrapes. Every metric is declared once in
 * the catalog (catalog.ts) with its help text, labels and buckets; label
 * values are drawn from bounded sets (route patterns, key types, operation
 * names), never from key names, paths or tokens.
 *
 * Runtime-neutral.
 * @module
 */

/** Label values by label name (each name declared in the metric's definition). @public */
export type MetricLabels = Readonly<Record<string, string>>;

/**
 * One metric: its name (`transitkit_…`), kind, help text, label names and,
 * for a histogram, bucket upper bounds.
 * @public
 */
export interface MetricDefinition {
  readonly name: string;
  readonly kind: 'counter' | 'gauge' | 'histogram';
  /** One line for `# HELP` (or an OpenTelemetry description). */
  readonly help: string;
  /** The labels every observation carries, in order. */
  readonly labelNames: readonly string[];
  /** `seconds`, `bytes`, or `1` for a plain count. */
  readonly unit: string;
  /** Histogram bucket upper bounds, ascending. */
  readonly buckets?: readonly number[];
}

/** A monotonic counter (OpenTelemetry `Counter` has this shape). @public */
export interface CounterInstrument {
  /** Add `value` (≥ 0). */
  add(value: number, labels?: MetricLabels): void;
}

/** A distribution (OpenTelemetry `Histogram` has this shape). @public */
export interface HistogramInstrument {
  /** Record one observation (seconds for durations). */
  record(value: number, labels?: MetricLabels): void;
}

/** Reports a gauge's current values: one call per label set. @public */
export type GaugeObserver = (value: number, labels?: MetricLabels) => void;

/**
 * Reads a gauge at collection time (a scrape); may be asynchronous. Must not
 * throw for a state it can describe (a sealed node reports `sealed = 1`).
 * @public
 */
export type GaugeCallback = (observe: GaugeObserver) => void | Promise<void>;

/**
 * Where the core records its metrics. Implementations return the same
 * instrument for the same definition every time, and call every callback of
 * a gauge when it is collected.
 *
 * @example
 * ```ts
 * import { METRICS, type Metrics, noopMetrics } from 'transitkit';
 *
 * // A sink that counts crypto operations in a Map (an application would
 * // forward to its own metrics library instead).
 * const totals = new Map<string, number>();
 * const metrics: Metrics = {
 *   counter: (def) => ({
 *     add: (value, labels) => {
 *       const k = `${def.name}${JSON.stringify(labels ?? {})}`;
 *       totals.set(k, (totals.get(k) ?? 0) + value);
 *     },
 *   }),
 *   histogram: () => noopMetrics.histogram(METRICS.batchSize),
 *   gauge: () => () => undefined,
 * };
 * ```
 * @public
 */
export interface Metrics {
  /** The counter of `definition`. */
  counter(definition: MetricDefinition): CounterInstrument;
  /** The histogram of `definition`. */
  histogram(definition: MetricDefinition): HistogramInstrument;
  /**
   * Add `collect` to the gauge of `definition`: called at every collection.
   * Returns a function that removes it.
   */
  gauge(definition: MetricDefinition, collect: GaugeCallback): () => void;
}
