/**
 * ACL policies over real HTTP: the lease paths that need sudo, and the policy
 * routes' refusals (malformed policies, unknown capabilities, root and
 * default), an exact deny holding for a name in any case, and case-insensitive
 * policy names.
 */
import { describe, expect, it } from 'vitest';
import { APP_POLICY, withAppServer } from './acl-helpers.js';
import { type CliServer, call } from './helpers.js';

let server: CliServer;
const as = (token: string) => ({ url: server.url, root: token });

withAppServer((s) => ({ server } = s));

describe('sudo paths', () => {
  it('lease listing, revoke-prefix and revoke-force need sudo; lookup does not', async () => {
    const policy = (sudo: boolean) => {
      const caps = `["read", "update", "list"${sudo ? ', "sudo"' : ''}]`;
      return `path "sys/leases/*" { capabilities = ${caps} }\npath "sys/leases" { capabilities = ${caps} }`;
    };
    await call(server, 'PUT', '/v1/sys/policy/leases-plain', { body: { policy: policy(false) } });
    await call(server, 'PUT', '/v1/sys/policy/leases-sudo', { body: { policy: policy(true) } });
    const plain = (
      await call(server, 'POST', '/v1/auth/token/create', { body: { policies: ['leases-plain'] } })
    ).json.auth.client_token;
    const sudo = (
      await call(server, 'POST', '/v1/auth/token/create', { body: { policies: ['leases-sudo'] } })
    ).json.auth.client_token;
    const lease = (await call(server, 'LIST', '/v1/sys/leases/lookup/auth/token/create')).json.data
      .keys[0];
    const cases: [string, string, unknown][] = [
      ['LIST', '/v1/sys/leases/lookup/auth/token/create', undefined],
      ['POST', '/v1/sys/leases/revoke-prefix/nothing/here', {}],
      ['POST', '/v1/sys/leases/revoke-force/nothing/here', {}],
      ['GET', '/v1/sys/leases?type=irrevocable', undefined],
    ];
    for (const [method, url, body] of cases) {
      expect(
        (await call(as(plain), method, url, { body })).status,
        `${method} ${url} without sudo`,
      ).toBe(403);
      expect(
        (await call(as(sudo), method, url, { body })).status,
        `${method} ${url} with sudo`,
      ).toBeLessThan(300);
    }
    const lookup = await call(as(plain), 'POST', '/v1/sys/leases/lookup', {
      body: { lease_id: `auth/token/create/${lease}` },
    });
    expect(lookup.status).toBe(200);
  });
});

describe('policy routes refuse what Vault refuses', () => {
  it('a malformed policy → 400 with its line and column', async () => {
    const r = await call(server, 'PUT', '/v1/sys/policies/acl/bad', {
      body: { policy: 'path "transit/*" {\n  capabilities = ["read" "update"]\n}' },
    });
    expect(r.status).toBe(400);
    expect(r.json.errors[0]).toMatch(/^failed to parse policy: line 2, column \d+: expected ','/);
  });

  it('an unknown capability, or an attribute that narrows access, → 400', async () => {
    for (const policy of [
      'path "a" { capabilities = ["fly"] }',
      'path "a" { capabilities = ["read"]\n allowed_parameters = "x" }',
    ]) {
      const r = await call(server, 'PUT', '/v1/sys/policy/bad', { body: { policy } });
      expect(r.status, policy).toBe(400);
    }
  });

  it('root cannot be written, root and default cannot be deleted; a missing policy reads 404', async () => {
    expect(
      (await call(server, 'PUT', '/v1/sys/policy/root', { body: { policy: APP_POLICY } })).status,
    ).toBe(400);
    expect((await call(server, 'DELETE', '/v1/sys/policy/root')).json.errors).toEqual([
      'cannot delete "root" policy',
    ]);
    expect((await call(server, 'DELETE', '/v1/sys/policies/acl/default')).status).toBe(400);
    const missing = await call(server, 'GET', '/v1/sys/policy/nope');
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({ errors: [] });
  });

  it('an exact deny on a policy holds for the name in any case (the ACL sees it as it is stored)', async () => {
    await call(server, 'PUT', '/v1/sys/policy/keeper', {
      body: {
        policy: `path "sys/policy/*" { capabilities = ["create", "read", "update", "delete"] }
path "sys/policies/acl/*" { capabilities = ["create", "read", "update", "delete"] }
path "sys/policy/admin" { capabilities = ["deny"] }
path "sys/policies/acl/admin" { capabilities = ["deny"] }`,
      },
    });
    await call(server, 'PUT', '/v1/sys/policy/admin', { body: { policy: APP_POLICY } });
    const made = await call(server, 'POST', '/v1/auth/token/create', {
      body: { policies: ['keeper'], no_parent: true },
    });
    const keeper = as(made.json.auth.client_token as string);
    for (const [method, path] of [
      ['PUT', '/v1/sys/policy/Admin'],
      ['GET', '/v1/sys/policy/ADMIN'],
      ['DELETE', '/v1/sys/policies/acl/Admin'],
      ['GET', '/v1/sys/policies/acl/aDmIn'],
    ] as const) {
      const body =
        method === 'PUT' ? { policy: 'path "*" { capabilities = ["read"] }' } : undefined;
      expect((await call(keeper, method, path, { body })).status, `${method} ${path}`).toBe(403);
    }
    expect((await call(server, 'GET', '/v1/sys/policy/admin')).json.data.rules).toBe(APP_POLICY);
    // Other names stay open to it, in any case.
    expect(
      (await call(keeper, 'PUT', '/v1/sys/policy/Other', { body: { policy: APP_POLICY } })).status,
    ).toBe(204);
  });

  it('policy names are case-insensitive', async () => {
    expect(
      (await call(server, 'PUT', '/v1/sys/policy/MiXeD', { body: { policy: APP_POLICY } })).status,
    ).toBe(204);
    expect((await call(server, 'GET', '/v1/sys/policy/mixed')).json.data.name).toBe('mixed');
  });
});
