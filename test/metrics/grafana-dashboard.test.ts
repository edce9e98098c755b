/**
 * examples/grafana-dashboard.json: a valid Grafana dashboard (panels, targets,
 * grid, the data source and instance variables) whose every query references
 * only metrics transitkit exports — checked against the catalog and against a
 * real scrape of a node with metrics — and that charts every catalog metric.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { METRIC_DEFINITIONS, MemoryStorage, TransitNode } from 'transitkit';
import { createHandler } from 'transitkit/http';
import { PrometheusMetrics } from 'transitkit/http/node';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/vectors.js';

interface Target {
  refId: string;
  expr: string;
  datasource: { type: string; uid: string };
}
interface Panel {
  type: string;
  title: string;
  id: number;
  gridPos: { x: number; y: number; w: number; h: number };
  targets?: Target[];
}

const dashboard = JSON.parse(
  readFileSync(path.join(REPO_ROOT, 'examples/grafana-dashboard.json'), 'utf8'),
) as {
  title: string;
  uid: string;
  schemaVersion: number;
  panels: Panel[];
  templating: { list: Array<{ name: string; type: string }> };
};
const queryPanels = dashboard.panels.filter((p) => p.type !== 'row');
const exprs = queryPanels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
const tokens = (expr: string) => [...expr.matchAll(/\btransitkit_[a-z0-9_]+/g)].map((m) => m[0]);

/** Series names a definition produces in the exposition. */
const seriesOf = (d: (typeof METRIC_DEFINITIONS)[number]) =>
  d.kind === 'histogram' ? [`${d.name}_bucket`, `${d.name}_count`, `${d.name}_sum`] : [d.name];
const EXPORTED = new Map(METRIC_DEFINITIONS.flatMap((d) => seriesOf(d).map((s) => [s, d.name])));

describe('examples/grafana-dashboard.json', () => {
  it('is a Grafana dashboard: ids, grid, targets, variables', () => {
    expect(dashboard.title).toBe('transitkit');
    expect(dashboard.uid).toMatch(/^[a-z0-9-]{1,40}$/);
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of dashboard.panels) {
      expect(p.gridPos.x + p.gridPos.w, p.title).toBeLessThanOrEqual(24);
      expect(p.gridPos.h, p.title).toBeGreaterThan(0);
    }
    expect(queryPanels.length).toBeGreaterThan(10);
    for (const p of queryPanels) {
      expect(p.targets?.length, p.title).toBeGreaterThan(0);
      for (const t of p.targets ?? []) {
        expect(t.refId).toMatch(/^[A-Z]$/);
        // Grafana's data source variable, as a literal string.
        expect(t.datasource).toEqual({ type: 'prometheus', uid: ['$', '{datasource}'].join('') });
      }
    }
    const vars = Object.fromEntries(dashboard.templating.list.map((v) => [v.name, v.type]));
    expect(vars).toEqual({ datasource: 'datasource', instance: 'query' });
  });

  it('queries only metrics transitkit exports, with balanced PromQL', () => {
    for (const expr of exprs) {
      const used = tokens(expr);
      expect(used.length, expr).toBeGreaterThan(0);
      for (const t of used) expect(EXPORTED.has(t), `${t} in ${expr}`).toBe(true);
      for (const [open, close] of [
        ['(', ')'],
        ['{', '}'],
        ['[', ']'],
      ] as const) {
        expect(expr.split(open).length, expr).toBe(expr.split(close).length);
      }
    }
  });

  it('charts every metric of the catalog', () => {
    const charted = new Set(exprs.flatMap(tokens).map((t) => EXPORTED.get(t)));
    expect([...METRIC_DEFINITIONS.map((d) => d.name)].filter((n) => !charted.has(n))).toEqual([]);
  });

  it('every series it queries is in a real scrape of a node with metrics', async () => {
    const metrics = new PrometheusMetrics();
    const node = new TransitNode({
      storage: new MemoryStorage(),
      rootKey: new Uint8Array(32).fill(9),
      metrics,
      storageType: 'inmem',
      leases: { tickMs: false },
      audit: { sink: () => undefined },
    });
    await node.start();
    const handler = createHandler(node, { metrics, auth: false });
    await node.transit.createKey('k');
    await node.transit.encrypt('k', { batch_input: [{ plaintext: 'aGk=' }] });
    await handler.dispatch({ method: 'GET', url: '/v1/sys/health', headers: () => undefined });
    const text = await metrics.prometheus();
    const types = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]));
    for (const t of new Set(exprs.flatMap(tokens))) {
      expect(types.has(EXPORTED.get(t) as string), t).toBe(true);
    }
    await node.close();
  });
});
