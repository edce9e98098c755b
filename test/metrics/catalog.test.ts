/**
 * The metric catalog (src/metrics/catalog.ts) and the no-op default: names,
 * kinds, label names and buckets are well formed, and the core never imports
 * prom-client (it records through the dependency-free interface).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { METRIC_DEFINITIONS, METRICS, noopMetrics } from 'transitkit';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/vectors.js';

describe('the metric catalog', () => {
  it('names every metric transitkit_*, once, with Prometheus-valid names and labels', () => {
    const names = METRIC_DEFINITIONS.map((d) => d.name);
    expect(new Set(names).size).toBe(names.length);
    for (const d of METRIC_DEFINITIONS) {
      expect(d.name).toMatch(/^transitkit_[a-z0-9_]+$/);
      if (d.kind === 'counter') expect(d.name).toMatch(/_total$/);
      if (d.unit === 'seconds') expect(d.name).toMatch(/_seconds$/);
      expect(d.help.length).toBeGreaterThan(10);
      for (const l of d.labelNames) expect(l).toMatch(/^[a-z][a-z0-9_]*$/);
      // Bounded labels only: nothing that could carry a key name, a path or a token.
      for (const l of d.labelNames)
        expect(['name', 'key', 'path', 'token', 'url']).not.toContain(l);
    }
    expect(METRIC_DEFINITIONS.length).toBe(Object.keys(METRICS).length);
  });

  it('gives every histogram ascending buckets', () => {
    const histograms = METRIC_DEFINITIONS.filter((d) => d.kind === 'histogram');
    expect(histograms.map((d) => d.name)).toContain('transitkit_http_request_duration_seconds');
    for (const d of histograms) {
      const b = d.buckets ?? [];
      expect(b.length, d.name).toBeGreaterThan(3);
      for (let i = 1; i < b.length; i++) expect(b[i], d.name).toBeGreaterThan(b[i - 1] as number);
    }
  });

  it('covers what issue #19 asks for', () => {
    expect(Object.keys(METRICS).sort()).toEqual(
      [
        'auditFailures',
        'batchSize',
        'cryptoOperations',
        'httpRequestDuration',
        'keyCacheEvictions',
        'keyCacheHits',
        'keyCacheMisses',
        'leaseExpiryLag',
        'leasesActive',
        'leasesIrrevocable',
        'nodeActive',
        'nodeInitialized',
        'nodeSealed',
        'storageDuration',
        'storageErrors',
      ].sort(),
    );
  });

  it('noopMetrics records nothing and returns a remover', () => {
    expect(() => noopMetrics.counter(METRICS.cryptoOperations).add(1, {})).not.toThrow();
    expect(() => noopMetrics.histogram(METRICS.batchSize).record(3, {})).not.toThrow();
    let called = false;
    const remove = noopMetrics.gauge(METRICS.nodeSealed, () => {
      called = true;
    });
    remove();
    expect(called).toBe(false);
  });

  it('the core never imports prom-client', () => {
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const e of readdirSync(path.join(REPO_ROOT, dir), { withFileTypes: true })) {
        const rel = `${dir}/${e.name}`;
        if (e.isDirectory()) walk(rel);
        else if (
          e.name.endsWith('.ts') &&
          /['"]prom-client['"]/.test(readFileSync(path.join(REPO_ROOT, rel), 'utf8'))
        ) {
          offenders.push(rel);
        }
      }
    };
    walk('src');
    expect(offenders).toEqual([]);
    expect(
      readFileSync(path.join(REPO_ROOT, 'adapters/http/metrics-prometheus.ts'), 'utf8'),
    ).toContain("from 'prom-client'");
  });
});
