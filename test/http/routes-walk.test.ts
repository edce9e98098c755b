/**
 * Every row of the route table driven over real HTTP against the running CLI
 * server (`transitkit server --dev`), with its status and response shape
 * checked (style.md "Where the HTTP route table lives"). The steps are in
 * route-steps-transit.ts and route-steps-sys.ts.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../adapters/http/routes.js';
import { type CliServer, call, startDev } from './helpers.js';
import { sysSteps } from './route-steps-sys.js';
import { transitSteps } from './route-steps-transit.js';
import { key, rowFor, type Step } from './route-support.js';

describe('every row over real HTTP (transitkit server --dev)', () => {
  let server: CliServer;
  const state: Record<string, string> = {};
  beforeAll(async () => {
    server = await startDev();
  });
  afterAll(async () => {
    expect(await server.stop()).toBe(0);
  });

  const steps = (): Step[] => [...transitSteps(state), ...sysSteps(state)];

  it('walks every row in table order of need, and covers them all', async () => {
    const hit = new Set<string>();
    for (const step of steps()) {
      const url = typeof step.url === 'function' ? step.url() : step.url;
      const row = rowFor(step.method, url);
      expect(row, `${step.method} ${url} matches a row`).toBeDefined();
      if (row) hit.add(key(row));
      const body = typeof step.body === 'function' ? (step.body as () => unknown)() : step.body;
      const token =
        step.token === 'child'
          ? state.child
          : step.token === undefined && step.url === '/v1/sys/health'
            ? null
            : undefined;
      const r = await call(server, step.method, url, { body, token });
      expect(r.status, `${step.method} ${url}: ${r.text}`).toBe(step.status);
      if (r.status === 200) {
        expect(r.headers.get('content-type')).toBe('application/json');
        expect(r.headers.get('cache-control')).toBe('no-store');
      }
      step.check?.(r);
    }
    const missed = ROUTES.map(key).filter((k) => !hit.has(k));
    expect(missed, 'rows without a request in this walk').toEqual([]);
    // Revoked by revoke-self, revoke, their leases (by id, async) and revoke-prefix.
    for (const t of [state.child, state.other, state.t3, state.t4, state.t5]) {
      expect((await call(server, 'GET', '/v1/auth/token/lookup-self', { token: t })).status).toBe(
        403,
      );
    }
  });
});
