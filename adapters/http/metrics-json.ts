/**
 * Vault's JSON form of `GET /v1/sys/metrics` (go-metrics' `MetricsSummary`):
 * `{"Timestamp","Gauges":[{Name,Value,Labels}],"Points":[],"Counters":[…],
 * "Samples":[…]}`, built from prom-client's values, so clients that read
 * Vault's summary (Telegraf's vault input, scripts) read ours.
 *
 * One difference, by design: Vault aggregates over 10-second intervals;
 * these are cumulative since the metrics instance started (`Rate` is per
 * second over that time), as Prometheus counters are. Names are the
 * Prometheus names (`transitkit_…`), the same in both formats. Histograms
 * become `Samples` with `Count`, `Sum`, `Mean` and `Rate`; their buckets are
 * in the Prometheus format only.
 *
 * Runtime-neutral.
 * @module
 */

/** A gauge of the summary. @public */
export interface VaultGaugeValue {
  Name: string;
  Value: number;
  Labels: Record<string, string>;
}

/** A counter or a sample (histogram) of the summary. @public */
export interface VaultSampledValue {
  Name: string;
  /** Observations (a counter: its value). */
  Count: number;
  /** `Sum` per second since the metrics started. */
  Rate: number;
  Sum: number;
  /** `Sum / Count` (0 when empty). */
  Mean: number;
  Labels: Record<string, string>;
}

/** The JSON body of `GET /v1/sys/metrics`, in Vault's shape. @public */
export interface VaultMetricsSummary {
  Timestamp: string;
  Gauges: VaultGaugeValue[];
  Points: never[];
  Counters: VaultSampledValue[];
  Samples: VaultSampledValue[];
}

/** What prom-client's `getMetricsAsJSON()` gives (the part read here). @internal */
export interface PromMetricJson {
  name: string;
  /** `counter`, `gauge`, `histogram`, `summary` (strings at run time; typed as an enum by prom-client). */
  type: unknown;
  values: ReadonlyArray<{
    value: number;
    labels: Readonly<Record<string, string | number | undefined>>;
    metricName?: string;
  }>;
}

/** Go's `time.Time.String()` in UTC, to the second: `2006-01-02 15:04:05 +0000 UTC`. */
function goTime(d: Date): string {
  return `${d.toISOString().slice(0, 19).replace('T', ' ')} +0000 UTC`;
}

function labelsOf(
  labels: Readonly<Record<string, string | number | undefined>>,
  without?: string,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(labels)) {
    if (k !== without && v !== undefined) out[k] = String(v);
  }
  return out;
}

const finite = (n: number): number => (Number.isFinite(n) ? n : 0);

/**
 * The summary of `metrics` at `now`; rates over the time since `startedMs`.
 * @internal
 */
export function vaultSummary(
  metrics: readonly PromMetricJson[],
  now: Date,
  startedMs: number,
): VaultMetricsSummary {
  const seconds = Math.max((now.getTime() - startedMs) / 1000, 1e-3);
  const sampled = (name: string, count: number, sum: number, labels: Record<string, string>) => ({
    Name: name,
    Count: count,
    Rate: finite(sum / seconds),
    Sum: finite(sum),
    Mean: count > 0 ? finite(sum / count) : 0,
    Labels: labels,
  });
  const out: VaultMetricsSummary = {
    Timestamp: goTime(now),
    Gauges: [],
    Points: [],
    Counters: [],
    Samples: [],
  };
  for (const m of metrics) {
    const type = String(m.type);
    if (type === 'gauge') {
      // An unknown gauge (NaN: its source could not be read) is left out.
      for (const v of m.values) {
        if (!Number.isFinite(v.value)) continue;
        out.Gauges.push({ Name: m.name, Value: v.value, Labels: labelsOf(v.labels) });
      }
    } else if (type === 'counter') {
      for (const v of m.values)
        out.Counters.push(sampled(m.name, v.value, v.value, labelsOf(v.labels)));
    } else if (type === 'histogram' || type === 'summary') {
      // One sample per label set, from its `_count` and `_sum` series.
      const series = new Map<
        string,
        { count: number; sum: number; labels: Record<string, string> }
      >();
      for (const v of m.values) {
        const kind = v.metricName?.endsWith('_count')
          ? 'count'
          : v.metricName?.endsWith('_sum')
            ? 'sum'
            : undefined;
        if (kind === undefined) continue;
        const labels = labelsOf(v.labels, 'quantile');
        const key = JSON.stringify(Object.entries(labels).sort());
        const s = series.get(key) ?? { count: 0, sum: 0, labels };
        s[kind] = v.value;
        series.set(key, s);
      }
      for (const s of series.values()) out.Samples.push(sampled(m.name, s.count, s.sum, s.labels));
    }
  }
  return out;
}
