/**
 * `GET /v1/sys/metrics` (Vault's telemetry endpoint) and the handler's own
 * request metrics.
 *
 * - `format=prometheus`: the Prometheus text exposition, with Prometheus'
 *   content type; no `format`: Vault's JSON summary (metrics-json.ts); any
 *   other format is a 400, as Vault's "metric response format unknown".
 * - Access: `read` on `sys/metrics`, as Vault; with the handler option
 *   `unauthenticatedMetricsAccess` (Vault's listener telemetry
 *   `unauthenticated_metrics_access`), no token, and the endpoint answers
 *   while the node is sealed too (so a sealed node can be seen as sealed).
 * - The row is served only when the handler has `metrics` (else 404, as an
 *   unknown path).
 *
 * Requests are recorded into `transitkit_http_request_duration_seconds` by
 * route *pattern* (`/transit/encrypt/:name`: never a key name or a token),
 * row method and status: one `performance.now()` pair and one histogram
 * observation per request, nothing without metrics.
 *
 * Runtime-neutral.
 * @module
 */

import type { Metrics } from 'transitkit';
import { invalidRequest, notFound } from '../../src/errors.js';
import { METRICS } from '../../src/metrics/catalog.js';
import { defineSchema } from '../../src/schema.js';
import type { VaultMetricsSummary } from './metrics-json.js';

/**
 * What the HTTP adapter needs from a metrics sink to serve `sys/metrics`:
 * the core `Metrics` interface plus the two expositions.
 * @public
 */
export interface MetricsExporter extends Metrics {
  /** The Prometheus text exposition of every metric. */
  prometheus(): Promise<string>;
  /** Content type of {@link MetricsExporter.prometheus} (`text/plain; version=0.0.4; charset=utf-8`). */
  readonly prometheusContentType: string;
  /** Vault's JSON summary (`GET /v1/sys/metrics` without `format`). */
  vaultJson(): Promise<VaultMetricsSummary>;
}

/** `GET /sys/metrics`. @internal */
export const METRICS_FIELDS = defineSchema({
  format: {
    type: 'string',
    description: 'Response format: prometheus for the text exposition; empty for JSON.',
  },
});

/** The row's result for the `text` reply kind: a body with its own content type. @internal */
export interface TextResult {
  contentType: string;
  text: string;
}

/**
 * The body of `GET /sys/metrics` for `format`.
 * @throws TransitError `invalid_request` for an unknown format.
 * @internal
 */
export async function metricsBody(
  exporter: MetricsExporter | undefined,
  format: unknown,
): Promise<TextResult> {
  // The row is served only with metrics (route-front.ts); this is the type's guard.
  if (!exporter) throw notFound('metrics are not enabled on this handler');
  if (format === 'prometheus') {
    return { contentType: exporter.prometheusContentType, text: await exporter.prometheus() };
  }
  if (format === undefined || format === '') {
    return { contentType: 'application/json', text: JSON.stringify(await exporter.vaultJson()) };
  }
  throw invalidRequest(`metric response format ${JSON.stringify(String(format))} unknown`);
}

/** The methods a route row can have (anything else is recorded as `OTHER`). */
const METHODS = new Set(['GET', 'POST', 'PUT', 'DELETE', 'LIST', 'HEAD']);

/**
 * Records one request: the row's path pattern (`undefined`: no row matched,
 * recorded as `unmatched`), its method, the status and the time taken.
 * @internal
 */
export type RequestRecorder = (
  route: string | undefined,
  method: string,
  status: number,
  seconds: number,
) => void;

/** The recorder of `exporter`'s request histogram (label sets made once each). @internal */
export function requestRecorder(exporter: MetricsExporter): RequestRecorder {
  const histogram = exporter.histogram(METRICS.httpRequestDuration);
  // route → method → status → labels: lookups on strings V8 has hashed already,
  // no key string built per request.
  type Labels = Readonly<{ route: string; method: string; status: string }>;
  const byRoute = new Map<string, Map<string, Map<number, Labels>>>();
  return (route, method, status, seconds) => {
    const r = route ?? 'unmatched';
    let byMethod = byRoute.get(r);
    if (!byMethod) {
      byMethod = new Map();
      byRoute.set(r, byMethod);
    }
    let byStatus = byMethod.get(method);
    if (!byStatus) {
      // An unknown verb shares the `OTHER` series: callers cannot add label values.
      const m = METHODS.has(method) ? method : 'OTHER';
      byStatus = m === method ? new Map() : (byMethod.get(m) ?? new Map());
      byMethod.set(m, byStatus);
    }
    let l = byStatus.get(status);
    if (!l) {
      // Frozen: the instrument finds its series by this object's identity.
      const m = METHODS.has(method) ? method : 'OTHER';
      l = Object.freeze({ route: r, method: m, status: String(status) });
      byStatus.set(status, l);
    }
    histogram.record(seconds, l);
  };
}
