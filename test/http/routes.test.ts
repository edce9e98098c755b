/**
 * The route table against the spec, both directions (style.md "Where the HTTP route
 * table lives"): every endpoint of spec/transit-service.md has a row or is declared
 * pending with its issue, and every row is driven here over real HTTP against the
 * running CLI server, with its status and response shape checked.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expandOptional, Router } from '../../adapters/http/router.js';
import { PENDING, ROUTES } from '../../adapters/http/routes.js';
import { Transit } from '../../src/transit/transit.js';
import { wrapForImport } from '../transit/import-support.js';
import { b64, type CliServer, call, type Res, startDev } from './helpers.js';

const SPEC = new URL('../../../shared/spec/transit-service.md', import.meta.url);

/** `METHOD /path` pairs of the spec's Endpoints section (HEAD folds into GET). */
function specRoutes(): { method: string; path: string }[] {
  const text = readFileSync(SPEC, 'utf8');
  const start = text.indexOf('## Endpoints');
  const end = text.indexOf('## Authentication');
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

const key = (r: { method: string; path: string }) => `${r.method} ${r.path}`;

/** Have a throwaway openssl CA sign a CSR; returns leaf + CA PEM. */
function certify(csr: string): string {
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
function rowFor(method: string, url: string) {
  const path = url.split('?')[0] as string;
  const segs = path.slice(1).split('/').map(decodeURIComponent);
  const m = method === 'PUT' ? 'POST' : method === 'HEAD' ? 'GET' : method;
  const found = router.match(m as 'GET', segs);
  return found.kind === 'match' ? found.match.route : undefined;
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

interface Step {
  method: string;
  url: string | (() => string);
  body?: unknown;
  token?: 'root' | 'child';
  status: number;
  check?: (r: Res) => void;
}

describe('every row over real HTTP (transitkit server --dev)', () => {
  let server: CliServer;
  const state: Record<string, string> = {};
  beforeAll(async () => {
    server = await startDev();
  });
  afterAll(async () => {
    expect(await server.stop()).toBe(0);
  });

  const steps = (): Step[] => [
    {
      method: 'POST',
      url: '/v1/transit/keys/walk',
      body: { type: 'aes256-gcm96' },
      status: 200,
      check: (r) => expect(r.json.data.latest_version).toBe(1),
    },
    {
      method: 'GET',
      url: '/v1/transit/keys/walk',
      status: 200,
      check: (r) => expect(r.json.data).toMatchObject({ name: 'walk', type: 'aes256-gcm96' }),
    },
    {
      method: 'LIST',
      url: '/v1/transit/keys',
      status: 200,
      check: (r) => expect(r.json.data.keys).toContain('walk'),
    },
    {
      method: 'POST',
      url: '/v1/transit/keys/walk/config',
      body: { deletion_allowed: true, exportable: 'true', allow_plaintext_backup: true },
      status: 200,
      check: (r) => expect(r.json.data.deletion_allowed).toBe(true),
    },
    {
      method: 'POST',
      url: '/v1/transit/keys/walk/rotate',
      status: 200,
      check: (r) => expect(r.json.data.latest_version).toBe(2),
    },
    {
      method: 'PUT',
      url: '/v1/transit/keys/walk/config',
      body: { min_decryption_version: 2, min_encryption_version: '2' },
      status: 200,
    },
    {
      method: 'POST',
      url: '/v1/transit/keys/walk/trim',
      body: { min_available_version: 2 },
      status: 200,
      check: (r) => expect(Object.keys(r.json.data.keys)).toEqual(['2']),
    },
    {
      method: 'DELETE',
      url: '/v1/transit/keys/walk/soft-delete',
      status: 200,
      check: (r) => expect(r.json.data.soft_deleted).toBe(true),
    },
    {
      method: 'POST',
      url: '/v1/transit/keys/walk/soft-delete-restore',
      status: 200,
      check: (r) => expect(r.json.data.soft_deleted).toBe(false),
    },
    {
      method: 'GET',
      url: '/v1/transit/backup/walk',
      status: 200,
      check: (r) => {
        state.backup = r.json.data.backup;
      },
    },
    {
      method: 'POST',
      url: '/v1/transit/restore/walk2',
      body: () => ({ backup: state.backup }),
      status: 204,
    },
    // Key mobility: wrapping key, import, import_version, byok-export.
    {
      method: 'GET',
      url: '/v1/transit/wrapping_key',
      status: 200,
      check: (r) => {
        state.wrap = r.json.data.public_key;
        expect(state.wrap).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
      },
    },
    {
      method: 'POST',
      url: '/v1/transit/keys/walk-imp/import',
      body: () => ({
        type: 'aes256-gcm96',
        ciphertext: wrapForImport(state.wrap as string, randomBytes(32)),
        exportable: true,
      }),
      status: 204,
    },
    {
      method: 'PUT',
      url: '/v1/transit/keys/walk-imp/import_version',
      body: () => ({ ciphertext: wrapForImport(state.wrap as string, randomBytes(32)) }),
      status: 204,
    },
    {
      method: 'POST',
      url: '/v1/transit/keys/walk-wrap/import',
      body: () => ({ type: 'rsa-4096', public_key: state.wrap }),
      status: 204,
    },
    {
      method: 'GET',
      url: '/v1/transit/byok-export/walk-wrap/walk-imp?hash=SHA512',
      status: 200,
      check: (r) => {
        expect(r.json.data).toMatchObject({ name: 'walk-imp', type: 'aes256-gcm96' });
        expect(Object.keys(r.json.data.keys)).toEqual(['1', '2']);
      },
    },
    // Signing keys: sign, verify, export, CSR, certificate chain.
    {
      method: 'POST',
      url: '/v1/transit/keys/walk-ec',
      body: { type: 'ecdsa-p256', exportable: true },
      status: 200,
    },
    {
      method: 'POST',
      url: '/v1/transit/sign/walk-ec/sha2-256',
      body: { input: b64('signed') },
      status: 200,
      check: (r) => {
        state.sig = r.json.data.signature;
        expect(state.sig).toMatch(/^vault:v1:/);
      },
    },
    {
      method: 'POST',
      url: '/v1/transit/verify/walk-ec',
      body: () => ({ input: b64('signed'), signature: state.sig, hash_algorithm: 'sha2-256' }),
      status: 200,
      check: (r) => expect(r.json.data.valid).toBe(true),
    },
    {
      method: 'GET',
      url: '/v1/transit/export/public-key/walk-ec',
      status: 200,
      check: (r) => expect(r.json.data.keys['1']).toMatch(/^-----BEGIN PUBLIC KEY-----/),
    },
    { method: 'GET', url: '/v1/transit/export/signing-key/walk-ec/latest', status: 200 },
    {
      method: 'POST',
      url: '/v1/transit/keys/walk-ec/csr',
      body: {},
      status: 200,
      check: (r) => {
        state.csr = r.json.data.csr;
        expect(state.csr).toMatch(/^-----BEGIN CERTIFICATE REQUEST-----/);
      },
    },
    {
      method: 'POST',
      url: '/v1/transit/keys/walk-ec/set-certificate',
      body: () => ({ certificate_chain: certify(state.csr as string) }),
      status: 200,
      check: (r) => expect(r.json.data.certificate_chain).toMatch(/^-----BEGIN CERTIFICATE-----/),
    },
    {
      method: 'POST',
      url: '/v1/transit/config/keys',
      body: { disable_upsert: false },
      status: 200,
      check: (r) => expect(r.json.data).toEqual({ disable_upsert: false }),
    },
    {
      method: 'GET',
      url: '/v1/transit/config/keys',
      status: 200,
      check: (r) => expect(r.json.data).toEqual({ disable_upsert: false }),
    },
    {
      method: 'POST',
      url: '/v1/transit/cache-config',
      body: { size: 20 },
      status: 200,
      check: (r) => expect(r.json.data).toEqual({ size: 20 }),
    },
    {
      method: 'GET',
      url: '/v1/transit/cache-config',
      status: 200,
      check: (r) => expect(r.json.data).toEqual({ size: 20 }),
    },
    {
      method: 'POST',
      url: '/v1/transit/encrypt/walk',
      body: { plaintext: b64('walk the table') },
      status: 200,
      check: (r) => {
        state.ct = r.json.data.ciphertext;
        expect(state.ct).toMatch(/^vault:v2:/);
      },
    },
    {
      method: 'POST',
      url: '/v1/transit/decrypt/walk',
      body: () => ({ ciphertext: state.ct }),
      status: 200,
      check: (r) => expect(r.json.data.plaintext).toBe(b64('walk the table')),
    },
    {
      method: 'POST',
      url: '/v1/transit/rewrap/walk',
      body: () => ({ ciphertext: state.ct }),
      status: 200,
      check: (r) => expect(r.json.data.ciphertext).toMatch(/^vault:v2:/),
    },
    {
      method: 'POST',
      url: '/v1/transit/datakey/plaintext/walk',
      body: { bits: 256 },
      status: 200,
      check: (r) => expect(Buffer.from(r.json.data.plaintext, 'base64')).toHaveLength(32),
    },
    {
      method: 'POST',
      url: '/v1/transit/random/16',
      body: { format: 'hex' },
      status: 200,
      check: (r) => expect(r.json.data.random_bytes).toMatch(/^[0-9a-f]{32}$/),
    },
    {
      method: 'POST',
      url: '/v1/transit/hash/sha2-512',
      body: { input: b64('abc') },
      status: 200,
      check: (r) => expect(r.json.data.sum).toMatch(/^ddaf35a193617aba/),
    },
    {
      method: 'POST',
      url: '/v1/transit/hmac/walk/sha2-256',
      body: { input: b64('abc') },
      status: 200,
      check: (r) => {
        state.hmac = r.json.data.hmac;
      },
    },
    {
      method: 'POST',
      url: '/v1/transit/verify/walk/sha2-256',
      body: () => ({ input: b64('abc'), hmac: state.hmac }),
      status: 200,
      check: (r) => expect(r.json.data.valid).toBe(true),
    },
    { method: 'DELETE', url: '/v1/transit/keys/walk', status: 204 },
    {
      method: 'GET',
      url: '/v1/sys/health',
      token: undefined,
      status: 200,
      check: (r) =>
        expect(r.json).toMatchObject({ initialized: true, sealed: false, standby: false }),
    },
    {
      method: 'PUT',
      url: '/v1/sys/policy/walker',
      body: { policy: 'path "transit/*" { capabilities = ["read"] }' },
      status: 204,
    },
    {
      method: 'GET',
      url: '/v1/sys/policy/walker',
      status: 200,
      check: (r) => {
        expect(r.json.data.rules).toContain('transit/*');
        expect(r.json.rules).toBe(r.json.data.rules);
      },
    },
    {
      method: 'GET',
      url: '/v1/sys/policy',
      status: 200,
      check: (r) => expect(r.json.data.policies).toEqual(['default', 'root', 'walker']),
    },
    {
      method: 'LIST',
      url: '/v1/sys/policy',
      status: 200,
      check: (r) => expect(r.json.data.keys).toContain('walker'),
    },
    {
      method: 'POST',
      url: '/v1/sys/policies/acl/walker2',
      body: { policy: '{"path": {"transit/keys/*": {"capabilities": ["read"]}}}' },
      status: 204,
    },
    {
      method: 'GET',
      url: '/v1/sys/policies/acl/walker2',
      status: 200,
      check: (r) =>
        expect(r.json.data).toMatchObject({
          name: 'walker2',
          policy: expect.stringContaining('transit/keys/*'),
        }),
    },
    {
      method: 'LIST',
      url: '/v1/sys/policies/acl',
      status: 200,
      check: (r) => expect(r.json.data.keys).toEqual(['default', 'root', 'walker', 'walker2']),
    },
    { method: 'DELETE', url: '/v1/sys/policies/acl/walker2', status: 204 },
    { method: 'DELETE', url: '/v1/sys/policy/walker', status: 204 },
    {
      method: 'POST',
      url: '/v1/auth/token/create',
      body: { policies: ['default'], ttl: '1h' },
      status: 200,
      check: (r) => {
        state.child = r.json.auth.client_token;
        expect(r.json.auth.lease_duration).toBe(3600);
      },
    },
    {
      method: 'GET',
      url: '/v1/auth/token/lookup-self',
      token: 'child',
      status: 200,
      check: (r) => expect(r.json.data.policies).toEqual(['default']),
    },
    {
      method: 'POST',
      url: '/v1/auth/token/renew-self',
      token: 'child',
      body: { increment: '2h' },
      status: 200,
      check: (r) => expect(r.json.auth.lease_duration).toBe(7200),
    },
    { method: 'POST', url: '/v1/auth/token/revoke-self', token: 'child', status: 204 },
    {
      method: 'POST',
      url: '/v1/auth/token/create',
      body: { ttl: 60 },
      status: 200,
      check: (r) => {
        state.other = r.json.auth.client_token;
      },
    },
    {
      method: 'POST',
      url: '/v1/auth/token/revoke',
      body: () => ({ token: state.other }),
      status: 204,
    },
    // Token leases: the two tokens above took theirs with them; two new ones get leases.
    {
      method: 'POST',
      url: '/v1/auth/token/create',
      body: { ttl: '1h' },
      status: 200,
      check: (r) => {
        state.t3 = r.json.auth.client_token;
      },
    },
    {
      method: 'POST',
      url: '/v1/auth/token/create',
      body: { ttl: '1h' },
      status: 200,
      check: (r) => {
        state.t4 = r.json.auth.client_token;
      },
    },
    {
      method: 'LIST',
      url: '/v1/sys/leases/lookup/auth/token/create',
      status: 200,
      check: (r) => {
        expect(r.json.data.keys).toHaveLength(2);
        state.lease1 = `auth/token/create/${r.json.data.keys[0]}`;
        state.lease2 = `auth/token/create/${r.json.data.keys[1]}`;
      },
    },
    {
      method: 'POST',
      url: '/v1/sys/leases/lookup',
      body: () => ({ lease_id: state.lease1 }),
      status: 200,
      check: (r) => expect(r.json.data).toMatchObject({ id: state.lease1, renewable: true }),
    },
    {
      method: 'POST',
      url: '/v1/sys/leases/renew',
      body: () => ({ lease_id: state.lease1 }),
      status: 400,
      check: (r) =>
        expect(r.json.errors).toEqual(['tokens cannot be renewed through this endpoint']),
    },
    {
      method: 'PUT',
      url: () => `/v1/sys/leases/renew/${state.lease1}`,
      body: { increment: 60 },
      status: 400,
    },
    {
      method: 'GET',
      url: '/v1/sys/leases/count?type=irrevocable',
      status: 200,
      check: (r) => expect(r.json.data.lease_count).toBe(0),
    },
    {
      method: 'GET',
      url: '/v1/sys/leases?type=irrevocable',
      status: 200,
      check: (r) => expect(r.json.data.leases).toEqual([]),
    },
    {
      method: 'POST',
      url: '/v1/sys/leases/tidy',
      status: 202,
      check: (r) => expect(r.json.warnings[0]).toMatch(/^Tidy operation successfully started/),
    },
    { method: 'POST', url: () => `/v1/sys/leases/revoke/${state.lease1}`, status: 204 },
    {
      method: 'POST',
      url: '/v1/sys/leases/revoke',
      body: () => ({ lease_id: state.lease2, sync: false }),
      status: 202,
    },
    {
      method: 'POST',
      url: '/v1/auth/token/create',
      body: { ttl: '1h' },
      status: 200,
      check: (r) => {
        state.t5 = r.json.auth.client_token;
      },
    },
    {
      method: 'POST',
      url: '/v1/sys/leases/revoke-prefix/auth/token/create',
      body: { sync: true },
      status: 204,
    },
    { method: 'POST', url: '/v1/sys/leases/revoke-force/auth/token/create', status: 204 },
  ];

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
