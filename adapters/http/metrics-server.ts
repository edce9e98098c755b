/**
 * A separate scrape listener: `GET /metrics` answers the Prometheus text
 * exposition of a {@link MetricsExporter}, without a token (`transitkit
 * server --metrics-listen HOST:PORT` serves it with `createServer` of
 * `transitkit/http/node`). Nothing else is served: every other path is a 404
 * and every other method a 405, and no request reaches the engine, so the
 * port exposes metric values only.
 *
 * It is unauthenticated by design (a Prometheus scrape job needs no Vault
 * token): bind it to a private interface, or a port only the monitoring
 * network reaches, never a public one. `GET /v1/sys/metrics` on the main
 * listener stays ACL-protected.
 *
 * A `(req, res)` listener on structural types, as the node binding: no
 * `node:*` import.
 * @module
 */
import type { MetricsExporter } from './metrics.js';

/** The request fields the scrape listener reads. @public */
export interface ScrapeRequestLike {
  method?: string | undefined;
  url?: string | undefined;
}

/** The response calls the scrape listener makes (every `node:http` response has them). @public */
export interface ScrapeResponseLike {
  writeHead(status: number, headers: Record<string, string>): unknown;
  end(body?: string): unknown;
}

/** Options of {@link metricsListener}. @public */
export interface MetricsListenerOptions {
  /** Path served. Default `/metrics` (Prometheus' default `metrics_path`). */
  path?: string;
  /** Where collection failures go (answered with a 500 without detail). Default `console`. */
  logger?: { error(message: string, error?: unknown): void };
}

/**
 * A `(req, res)` listener answering `GET /metrics` with `metrics`' Prometheus
 * text exposition, without a token. Serve it on a private port only.
 *
 * @example
 * ```ts
 * import { createServer, metricsListener, PrometheusMetrics } from 'transitkit/http/node';
 *
 * const metrics = new PrometheusMetrics();
 * const scrape = createServer(metricsListener(metrics), { listMethod: false });
 * const { url } = await scrape.listen(9102, '127.0.0.1'); // a private interface
 * await scrape.close();
 * ```
 * @public
 */
export function metricsListener(
  metrics: MetricsExporter,
  options: MetricsListenerOptions = {},
): (req: ScrapeRequestLike, res: ScrapeResponseLike) => void {
  const path = options.path ?? '/metrics';
  const logger = options.logger ?? console;
  return (req, res) => {
    const url = (req.url ?? '/').split('?')[0];
    const text = (status: number, body: string, extra: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...extra });
      res.end(body);
    };
    if (url !== path) return text(404, 'not found\n');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return text(405, 'method not allowed\n', { allow: 'GET, HEAD' });
    }
    metrics.prometheus().then(
      (body) => {
        res.writeHead(200, {
          'content-type': metrics.prometheusContentType,
          'cache-control': 'no-store',
        });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      (e: unknown) => {
        logger.error('transitkit/metrics: collection failed', e);
        text(500, 'metrics collection failed\n');
      },
    );
  };
}
