/**
 * Shared pieces of the route-table tests (routes.test.ts, routes-walk.test.ts):
 * the row key, the router's pick for a request, the walk's Step shape and a
 * throwaway openssl CA. Not a test file.
 */

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Router } from '../../adapters/http/router.js';
import { ROUTES } from '../../adapters/http/routes.js';
import type { Res } from './helpers.js';

/** `METHOD /path` of a route row or spec endpoint. */
export const key = (r: { method: string; path: string }) => `${r.method} ${r.path}`;

/** Have a throwaway openssl CA sign a CSR; returns leaf + CA PEM. */
export function certify(csr: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'transitkit-ca-'));
  try {
    const f = (n: string) => join(dir, n);
    writeFileSync(f('csr.pem'), csr);
    const ssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
    ssl(
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      f('ca.key'),
      '-out',
      f('ca.pem'),
      '-subj',
      '/CN=walk-ca',
      '-days',
      '1',
    );
    ssl(
      'x509',
      '-req',
      '-in',
      f('csr.pem'),
      '-CA',
      f('ca.pem'),
      '-CAkey',
      f('ca.key'),
      '-set_serial',
      '1',
      '-out',
      f('leaf.pem'),
      '-days',
      '1',
    );
    return readFileSync(f('leaf.pem'), 'utf8') + readFileSync(f('ca.pem'), 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const router = new Router(ROUTES, (first) =>
  first === 'transit' ? ['v1', 'transit'] : ['v1', first],
);

/** The row the router picks for a request (as the server would). */
export function rowFor(method: string, url: string) {
  const path = url.split('?')[0] as string;
  const segs = path.slice(1).split('/').map(decodeURIComponent);
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
