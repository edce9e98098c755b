import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeAuditDevices } from '../../adapters/audit/index.js';
import { createHandler } from '../../adapters/http/index.js';
import {
  AclPolicyStore,
  AuditBroker,
  MemoryStorage,
  TokenStore,
  Transit,
} from '../../src/index.js';
import { withAuditServer } from './audit-helpers.js';
import { call } from './helpers.js';

let dir: string;
let server: { url: string; root: string };

withAuditServer((s) => ({ server, dir } = s));

describe('sys/audit routes', () => {
  it('need sudo: a token whose policy grants the paths without sudo is refused', async () => {
    const policy =
      'path "sys/audit*" { capabilities = ["create", "read", "update", "delete", "list"] }';
    expect(
      (await call(server, 'PUT', '/v1/sys/policies/acl/auditor', { body: { policy } })).status,
    ).toBe(204);
    const t = await call(server, 'POST', '/v1/auth/token/create', {
      body: { policies: ['auditor'] },
    });
    const token = t.json.auth.client_token as string;
    const as = { url: server.url, root: token };
    expect((await call(as, 'GET', '/v1/sys/audit')).status).toBe(403);
    const body = { type: 'file', options: { file_path: join(dir, 'nope.log') } };
    expect((await call(as, 'PUT', '/v1/sys/audit/nope', { body })).status).toBe(403);
    expect(
      (await call(as, 'PUT', '/v1/sys/audit-hash/nope', { body: { input: 'x' } })).status,
    ).toBe(403);
    const sudo =
      'path "sys/audit*" { capabilities = ["create", "read", "update", "delete", "list", "sudo"] }';
    await call(server, 'PUT', '/v1/sys/policies/acl/auditor', { body: { policy: sudo } });
    expect((await call(as, 'GET', '/v1/sys/audit')).status).toBe(200);
  });

  it('enable, list (Vault shape), refusals, disable', async () => {
    const file = join(dir, 'routes.log');
    const en = await call(server, 'PUT', '/v1/sys/audit/routes', {
      body: { type: 'file', description: 'd', options: { file_path: file }, local: false },
    });
    expect(en.status, en.text).toBe(204);
    const list = await call(server, 'GET', '/v1/sys/audit');
    const want = {
      type: 'file',
      description: 'd',
      options: { file_path: file },
      local: false,
      path: 'routes/',
    };
    expect(list.json['routes/']).toEqual(want);
    expect(list.json.data['routes/']).toEqual(want);
    const again = await call(server, 'PUT', '/v1/sys/audit/routes', {
      body: { type: 'file', options: { file_path: file } },
    });
    expect(again.status).toBe(400);
    expect(again.json.errors).toEqual(['path already in use']);
    const unknown = await call(server, 'PUT', '/v1/sys/audit/x', { body: { type: 'syslog' } });
    expect(unknown.json.errors).toEqual(['unknown audit device type "syslog"']);
    const noDir = await call(server, 'PUT', '/v1/sys/audit/x', {
      body: { type: 'file', options: { file_path: join(dir, 'missing', 'x.log') } },
    });
    expect(noDir.status).toBe(400);
    expect(noDir.json.errors[0]).toContain('sanity check failed');
    expect((await call(server, 'DELETE', '/v1/sys/audit/routes')).status).toBe(204);
    expect((await call(server, 'GET', '/v1/sys/audit')).json.data).toEqual({});
  });

  it('are 404 for fixed services without an audit broker, served with services.audit', async () => {
    const storage = new MemoryStorage();
    const tokens = new TokenStore({ storage });
    const root = await tokens.createRoot();
    const base = {
      transit: new Transit({ storage }),
      tokens,
      policies: new AclPolicyStore({ storage }),
    };
    const headers = (n: string) => (n === 'x-vault-token' ? root : undefined);
    const without = createHandler(base);
    expect((await without.dispatch({ method: 'GET', url: '/v1/sys/audit', headers }))?.status).toBe(
      404,
    );
    const audit = await AuditBroker.open({ storage, devices: nodeAuditDevices() });
    const withAudit = createHandler({ ...base, audit });
    expect(
      (await withAudit.dispatch({ method: 'GET', url: '/v1/sys/audit', headers }))?.status,
    ).toBe(200);
    await audit.close();
  });
});
