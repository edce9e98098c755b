/**
 * Shared pieces of the route-table tests (routes.test.ts, routes-walk.test.ts):
 * the row key, the router's pick for a request, the walk's Step shape and a
 * throwaway openssl CA. Not a test file.
 */

import { Router } from '../../adapters/http/router.js';
import { ROUTES } from '../../adapters/http/routes.js';
import { makeCa } from '../transit/ca-support.js';
import type { Res } from './helpers.js';

/** `METHOD /path` of a route row or spec endpoint. */
export const key = (r: { method: string; path: string }) => `${r.method} ${r.path}`;

let walkCa: ReturnType<typeof makeCa> | undefined;

/** Have a throwaway openssl CA sign a CSR; returns leaf + CA PEM. */
export function certify(csr: string): string {
  walkCa ??= makeCa('walk-ca');
  return walkCa.issue(csr) + walkCa.pem;
}

const router = new Router(ROUTES, (first) =>
  first === 'transit' ? ['v1', 'transit'] : ['v1', first],
);

/** The row the router picks for a request (as the server would). */
export function rowFor(method: string, url: string) {
  const path = url.split('?')[0] as string;
  // A trailing `/` (LIST paths) names no segment, as in the dispatcher.
  const segs = path.slice(1).replace(/\/$/, '').split('/').map(decodeURIComponent);
  const m = method === 'PUT' ? 'POST' : method === 'HEAD' ? 'GET' : method;
  const found = router.match(m as 'GET', segs);
  return found.kind === 'match' ? found.match.route : undefined;
}

/** One request of the route walk, with its expected status and checks. */
export interface Step {
  method: string;
  url: string | (() => string);
  body?: unknown;
  token?: 'root' | 'child';
  status: number;
  check?: (r: Res) => void;
}
