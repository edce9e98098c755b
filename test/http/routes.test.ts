/**
 * The route table against the project's API document, both directions: every
 * endpoint of docs/api.md's Endpoints section (the transit service's endpoints,
 * in the service spec's order) has a row or is declared pending with its issue. Every row is driven over real HTTP against the running
 * CLI server in routes-walk.test.ts.
 */

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { expandOptional } from '../../adapters/http/router.js';
import { PENDING, ROUTES } from '../../adapters/http/routes.js';
import { Transit } from '../../src/transit/transit.js';
import { key } from './route-support.js';

const SPEC = new URL('../../docs/api.md', import.meta.url);

/** `METHOD /path` pairs of the spec's Endpoints section (HEAD folds into GET). */
function specRoutes(): { method: string; path: string }[] {
  const text = readFileSync(SPEC, 'utf8');
  const start = text.indexOf('\n## Endpoints\n');
  const end = text.indexOf('\n## ', start + 1);
  expect(start, 'spec has an Endpoints section').toBeGreaterThan(0);
  const out = new Map<string, { method: string; path: string }>();
  for (const [, method, path] of text
    .slice(start, end)
    .matchAll(/`(GET|POST|DELETE|LIST|HEAD|PUT) (\/[^`\s]+)`/g)) {
    const m = method === 'HEAD' ? 'GET' : (method as string);
    out.set(`${m} ${path}`, { method: m, path: path as string });
  }
  return [...out.values()];
}

describe('route table vs spec', () => {
  it('every spec endpoint has a row or is pending with an issue', () => {
    const rows = new Set(ROUTES.map(key));
    const pending = new Set(PENDING.map(key));
    const spec = specRoutes();
    expect(spec.length).toBeGreaterThanOrEqual(35);
    const missing = spec.filter((r) => !rows.has(key(r)) && !pending.has(key(r)));
    expect(missing, 'spec routes with neither a row nor a PENDING entry').toEqual([]);
  });

  it('every row and pending entry names a spec route, or is a token/policy route', () => {
    const spec = new Set(specRoutes().map(key));
    for (const r of [...ROUTES, ...PENDING]) {
      const extra =
        /^\/(auth\/token|sys\/polic)/.test(r.path) ||
        /^\/sys\/leases\/(renew|revoke)\/:url_lease_id$/.test(r.path);
      expect(spec.has(key(r)) || extra, key(r)).toBe(true);
    }
  });

  it('pending rows still wait: their Transit methods have not landed', () => {
    const proto = Transit.prototype as unknown as Record<string, unknown>;
    for (const p of PENDING.filter((x) => x.awaits.startsWith('Transit.'))) {
      const name = p.awaits.slice('Transit.'.length);
      expect(typeof proto[name], `${p.awaits} exists now: add the row for ${key(p)}`).not.toBe(
        'function',
      );
    }
  });

  it('nothing is pending since key mobility (issue 4) landed; its methods exist', () => {
    expect(PENDING).toEqual([]);
    const proto = Transit.prototype as unknown as Record<string, unknown>;
    for (const m of ['importKey', 'importKeyVersion', 'getWrappingKey', 'byokExport']) {
      expect(typeof proto[m], m).toBe('function');
    }
  });

  it('rows are in the spec order within the spec routes', () => {
    const order = specRoutes().map(key);
    const served = ROUTES.map(key).filter((k) => order.includes(k));
    const positions = served.map((k) => order.indexOf(k));
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
  });

  it('optional parts expand to every variant', () => {
    expect(expandOptional('/transit/random(/:source)(/:bytes)')).toEqual([
      '/transit/random',
      '/transit/random/:source',
      '/transit/random/:bytes',
      '/transit/random/:source/:bytes',
    ]);
  });
});
