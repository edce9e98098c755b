/**
 * A `Metrics` that keeps what it is given, for tests of the core's
 * instrumentation without prom-client: counters and histogram observations
 * by name and label set, and gauges read on {@link RecordingMetrics.collect}.
 * Not a test file.
 */
import type {
  CounterInstrument,
  GaugeCallback,
  HistogramInstrument,
  MetricDefinition,
  MetricLabels,
  Metrics,
} from 'transitkit';

const key = (labels: MetricLabels | undefined) =>
  JSON.stringify(Object.entries(labels ?? {}).sort(([a], [b]) => (a < b ? -1 : 1)));

/** Records every observation; checks labels against each definition. */
export class RecordingMetrics implements Metrics {
  readonly counters = new Map<string, Map<string, number>>();
  readonly observations = new Map<string, Map<string, number[]>>();
  readonly gauges = new Map<string, Set<GaugeCallback>>();
  readonly definitions = new Map<string, MetricDefinition>();

  #check(def: MetricDefinition, labels: MetricLabels | undefined): void {
    const names = Object.keys(labels ?? {}).sort();
    const want = [...def.labelNames].sort();
    if (JSON.stringify(names) !== JSON.stringify(want)) {
      throw new Error(`${def.name}: labels ${names} instead of ${want}`);
    }
  }

  counter(def: MetricDefinition): CounterInstrument {
    this.definitions.set(def.name, def);
    const series = this.counters.get(def.name) ?? new Map<string, number>();
    this.counters.set(def.name, series);
    return {
      add: (value, labels) => {
        this.#check(def, labels);
        series.set(key(labels), (series.get(key(labels)) ?? 0) + value);
      },
    };
  }

  histogram(def: MetricDefinition): HistogramInstrument {
    this.definitions.set(def.name, def);
    const series = this.observations.get(def.name) ?? new Map<string, number[]>();
    this.observations.set(def.name, series);
    return {
      record: (value, labels) => {
        this.#check(def, labels);
        const list = series.get(key(labels)) ?? [];
        list.push(value);
        series.set(key(labels), list);
      },
    };
  }

  gauge(def: MetricDefinition, collect: GaugeCallback): () => void {
    this.definitions.set(def.name, def);
    const set = this.gauges.get(def.name) ?? new Set<GaugeCallback>();
    this.gauges.set(def.name, set);
    set.add(collect);
    return () => set.delete(collect);
  }

  /** A counter's value for `labels` (0 when never added). */
  count(name: string, labels?: MetricLabels): number {
    return this.counters.get(name)?.get(key(labels)) ?? 0;
  }

  /** A histogram's observations for `labels`. */
  observed(name: string, labels?: MetricLabels): number[] {
    return this.observations.get(name)?.get(key(labels)) ?? [];
  }

  /** Every label set a metric has series for. */
  series(name: string): string[] {
    return [...(this.counters.get(name)?.keys() ?? this.observations.get(name)?.keys() ?? [])];
  }

  /** Read a gauge now: its values by label set (undefined when no callback is registered). */
  async collect(name: string): Promise<Map<string, number> | undefined> {
    const callbacks = this.gauges.get(name);
    if (!callbacks || callbacks.size === 0) return undefined;
    const out = new Map<string, number>();
    for (const cb of callbacks) await cb((v, labels) => out.set(key(labels), v));
    return out;
  }

  /** A gauge's unlabelled value now. */
  async value(name: string): Promise<number | undefined> {
    return (await this.collect(name))?.get(key(undefined));
  }
}
