/**
 * The default {@link Metrics}: every instrument does nothing, so a component
 * built without metrics pays one empty call per recording point at most (the
 * hot paths test `enabled` first and pay nothing).
 *
 * Runtime-neutral.
 * @module
 */
import type { CounterInstrument, HistogramInstrument, Metrics } from './types.js';

const NOOP_COUNTER: CounterInstrument = Object.freeze({ add: () => undefined });
const NOOP_HISTOGRAM: HistogramInstrument = Object.freeze({ record: () => undefined });
const NOOP_REMOVE = (): void => undefined;

/**
 * Metrics that record nothing (the default of every component).
 * @public
 */
export const noopMetrics: Metrics = /* @__PURE__ */ Object.freeze({
  counter: () => NOOP_COUNTER,
  histogram: () => NOOP_HISTOGRAM,
  gauge: () => NOOP_REMOVE,
});

/** True for {@link noopMetrics} or an absent option: the caller may skip recording entirely. @internal */
export function metricsOff(m: Metrics | undefined): boolean {
  return m === undefined || m === noopMetrics;
}

/**
 * The option as given, checked: `undefined` → {@link noopMetrics}.
 * @internal
 */
export function resolveMetrics(m: unknown, invalid: (message: string) => Error): Metrics {
  if (m === undefined) return noopMetrics;
  const x = m as Partial<Metrics> | null;
  if (
    typeof x !== 'object' ||
    x === null ||
    typeof x.counter !== 'function' ||
    typeof x.histogram !== 'function' ||
    typeof x.gauge !== 'function'
  ) {
    throw invalid("'metrics' must implement Metrics (counter, histogram, gauge)");
  }
  return x as Metrics;
}
