/**
 * The hot-path instruments of `PrometheusMetrics`: counters and histograms
 * whose recording is a table lookup and a few additions, with prom-client
 * still owning the registry and the exposition format.
 *
 * Why: prom-client validates and hashes the label set on every `inc` and
 * `observe` (≈ 0.2–0.5 µs each), and a request records several. Here the
 * series of a label set is found once — by identity for the frozen label
 * objects the recorders reuse (a `WeakMap` hit), else by its values, checked
 * against the definition's label names — and each recording only adds to it.
 *
 * - Counter: a prom-client `Counter` whose `collect` (run at every scrape)
 *   adds what was recorded since the last scrape.
 * - Histogram: a metric object registered on the prom-client registry, whose
 *   `get()` gives the values in prom-client's histogram form (cumulative
 *   `_bucket` series with `le`, `_sum`, `_count`); prom-client formats them.
 *
 * Runtime-neutral.
 * @module
 */

import { Counter, type Registry } from 'prom-client';
import type {
  CounterInstrument,
  HistogramInstrument,
  MetricDefinition,
  MetricLabels,
} from 'transitkit';
import { invalidRequest } from '../../src/errors.js';

const NO_LABELS: MetricLabels = Object.freeze({});

/** The series of a metric by label set. */
class SeriesTable<T> {
  readonly #def: MetricDefinition;
  readonly #make: (labels: Record<string, string>) => T;
  readonly #byObject = new WeakMap<MetricLabels, T>();
  readonly #byKey = new Map<string, T>();

  constructor(def: MetricDefinition, make: (labels: Record<string, string>) => T) {
    this.#def = def;
    this.#make = make;
  }

  /** @throws TransitError `invalid_request` for labels other than the definition's. */
  get(labels: MetricLabels | undefined): T {
    const l = labels ?? NO_LABELS;
    const known = this.#byObject.get(l);
    if (known !== undefined) return known;
    const names = this.#def.labelNames;
    if (Object.keys(l).length !== names.length || !names.every((n) => typeof l[n] === 'string')) {
      throw invalidRequest(
        `metric ${this.#def.name} takes the labels [${names.join(', ')}], got [${Object.keys(l).join(', ')}]`,
      );
    }
    const key = names.map((n) => l[n]).join('\u0000');
    let series = this.#byKey.get(key);
    if (series === undefined) {
      series = this.#make(Object.fromEntries(names.map((n) => [n, l[n] as string])));
      this.#byKey.set(key, series);
    }
    // Only a frozen object cannot change after this: remember it by identity.
    if (Object.isFrozen(l)) this.#byObject.set(l, series);
    return series;
  }

  values(): IterableIterator<T> {
    return this.#byKey.values();
  }

  clear(): void {
    this.#byKey.clear();
  }
}

const checkValue = (def: MetricDefinition, value: number, min: number) => {
  if (!(value >= min) || !Number.isFinite(value)) {
    throw invalidRequest(`metric ${def.name}: ${value} is not a valid value`);
  }
};

/** A counter on `registry`: additions accumulate here and reach prom-client at each scrape. @internal */
export function fastCounter(def: MetricDefinition, registry: Registry): CounterInstrument {
  const table = new SeriesTable(def, (labels) => ({ labels, pending: 0 }));
  new Counter({
    name: def.name,
    help: def.help,
    labelNames: [...def.labelNames],
    registers: [registry],
    collect() {
      for (const s of table.values()) {
        if (s.pending > 0) {
          this.inc(s.labels, s.pending);
          s.pending = 0;
        }
      }
    },
  });
  return {
    add(value, labels) {
      checkValue(def, value, 0);
      table.get(labels).pending += value;
    },
  };
}

interface HistogramSeries {
  labels: Record<string, string>;
  /** Observations per bucket (not cumulative); the last is above every bound. */
  counts: number[];
  sum: number;
  count: number;
}

/** A value of prom-client's metric form. */
interface PromValue {
  labels: Record<string, string | number>;
  value: number;
  metricName: string;
}

/** A histogram registered on `registry` (prom-client formats what `get()` returns). @internal */
export class FastHistogram implements HistogramInstrument {
  readonly name: string;
  readonly help: string;
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly #def: MetricDefinition;
  readonly #bounds: readonly number[];
  readonly #table: SeriesTable<HistogramSeries>;

  constructor(def: MetricDefinition, registry: Registry) {
    this.#def = def;
    this.name = def.name;
    this.help = def.help;
    this.#bounds = [...(def.buckets ?? [])];
    const slots = this.#bounds.length + 1;
    this.#table = new SeriesTable(def, (labels) => ({
      labels,
      counts: new Array<number>(slots).fill(0),
      sum: 0,
      count: 0,
    }));
    registry.registerMetric(this as unknown as Parameters<Registry['registerMetric']>[0]);
  }

  record(value: number, labels?: MetricLabels): void {
    checkValue(this.#def, value, Number.NEGATIVE_INFINITY);
    const s = this.#table.get(labels);
    const b = this.#bounds;
    let i = 0;
    while (i < b.length && value > (b[i] as number)) i++;
    s.counts[i] = (s.counts[i] as number) + 1;
    s.sum += value;
    s.count++;
  }

  /** prom-client's histogram values: cumulative buckets, `+Inf`, `_sum`, `_count` per series. */
  async get(): Promise<{
    name: string;
    help: string;
    type: string;
    aggregator: string;
    values: PromValue[];
  }> {
    const values: PromValue[] = [];
    const bucket = `${this.name}_bucket`;
    for (const s of this.#table.values()) {
      let acc = 0;
      this.#bounds.forEach((le, i) => {
        acc += s.counts[i] as number;
        values.push({ labels: { le, ...s.labels }, value: acc, metricName: bucket });
      });
      values.push({ labels: { le: '+Inf', ...s.labels }, value: s.count, metricName: bucket });
      values.push({ labels: { ...s.labels }, value: s.sum, metricName: `${this.name}_sum` });
      values.push({ labels: { ...s.labels }, value: s.count, metricName: `${this.name}_count` });
    }
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: this.aggregator,
      values,
    };
  }

  /** Drop every series (prom-client's `registry.resetMetrics()`). */
  reset(): void {
    this.#table.clear();
  }
}
