/**
 * The lease manager's metrics: `transitkit_leases_active` and
 * `transitkit_leases_irrevocable` (gauges read at scrape time), and
 * `transitkit_lease_expiry_lag_seconds` (how late the scheduler processed a
 * due lease, recorded by scheduler.ts through the context's `expiryLag`).
 *
 * The counts read keys only (`list` pages of the entry and irrevocable
 * indexes, never an entry), and are reused for `countIntervalMs` (default
 * 10 s), so frequent scrapes of many instances do not turn into storage scans.
 * @module
 */
import type { Clock } from '../clock.js';
import { METRICS } from '../metrics/catalog.js';
import { metricsOff } from '../metrics/noop.js';
import type { Metrics } from '../metrics/types.js';
import type { StorageAdapter } from '../storage/adapter.js';
import { keyspace } from '../storage/keyspace.js';

const PAGE = 1000;

/** Default reuse time of a lease count (ms). @internal */
export const DEFAULT_COUNT_INTERVAL_MS = 10_000;

/** Keys under `prefix`, counted page by page. */
async function countKeys(storage: StorageAdapter, prefix: string): Promise<number> {
  let n = 0;
  let after: string | undefined;
  for (;;) {
    const page = await storage.list(prefix, { after, limit: PAGE });
    n += page.length;
    if (page.length < PAGE) return n;
    after = page[page.length - 1];
  }
}

/** Stored leases: all entries, and the irrevocable ones. @internal */
export async function countStoredLeases(
  storage: StorageAdapter,
): Promise<{ active: number; irrevocable: number }> {
  const [entries, irrevocable] = await Promise.all([
    countKeys(storage, keyspace.leaseEntryPrefix),
    countKeys(storage, keyspace.leaseIrrevocablePrefix),
  ]);
  return { active: Math.max(0, entries - irrevocable), irrevocable };
}

/** What a lease manager records; `stop` removes its gauges. @internal */
export interface LeaseMetrics {
  /** Record how late a due pair was processed (seconds); `undefined` without metrics. */
  readonly expiryLag: ((seconds: number) => void) | undefined;
  stop(): void;
}

/** Register the lease gauges and the lag histogram on `metrics`. @internal */
export function leaseMetrics(
  metrics: Metrics | undefined,
  storage: StorageAdapter,
  clock: Clock,
  countIntervalMs = DEFAULT_COUNT_INTERVAL_MS,
): LeaseMetrics {
  if (metricsOff(metrics)) return { expiryLag: undefined, stop: () => undefined };
  const m = metrics as Metrics;
  const lag = m.histogram(METRICS.leaseExpiryLag);
  let last: { at: number; counts: Promise<{ active: number; irrevocable: number }> } | undefined;
  const counts = () => {
    const now = clock.now();
    if (!last || now - last.at >= countIntervalMs || now < last.at) {
      const pending = countStoredLeases(storage);
      last = { at: now, counts: pending };
      // A failed count is not reused: the next scrape tries again.
      pending.catch(() => {
        if (last?.counts === pending) last = undefined;
      });
    }
    return last.counts;
  };
  const removeActive = m.gauge(METRICS.leasesActive, async (observe) => {
    observe((await counts()).active);
  });
  const removeIrrevocable = m.gauge(METRICS.leasesIrrevocable, async (observe) => {
    observe((await counts()).irrevocable);
  });
  return {
    expiryLag: (seconds) => lag.record(Math.max(0, seconds)),
    stop() {
      removeActive();
      removeIrrevocable();
    },
  };
}
