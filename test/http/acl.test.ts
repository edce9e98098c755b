/**
 * Tokens and ACL policies over real HTTP: the token headers, Vault's upsert rule
 * (encrypt needs `create` on a missing key, `update` on an existing one), list and
 * read paths, the spec's SHA-1 deny (also when the body names the algorithm),
 * child-token policy subsets, limited-use tokens, and the policy routes' refusals.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { b64, type CliServer, call, startDev } from './helpers.js';

const APP_POLICY = `
# what the application may do
path "transit/encrypt/app-*" { capabilities = ["update"] }   # existing keys only
path "transit/encrypt/new-*" { capabilities = ["create"] }   # new keys only
path "transit/encrypt/both" { capabilities = ["create", "update"] }
path "transit/keys" { capabilities = ["list"] }
path "transit/keys/app-1" { capabilities = ["read"] }
path "transit/hmac/*" { capabilities = ["update"] }
path "transit/verify/*" { capabilities = ["update"] }
path "transit/verify/+/sha1" { capabilities = ["deny"] }
path "transit/sign/*" { capabilities = ["update"] }
path "transit/sign/+/sha1" { capabilities = ["deny"] }
`;

let server: CliServer;
let app: string;
const as = (token: string) => ({ url: server.url, root: token });

beforeAll(async () => {
  server = await startDev();
  expect(
    (await call(server, 'PUT', '/v1/sys/policy/app', { body: { policy: APP_POLICY } })).status,
  ).toBe(204);
  expect((await call(server, 'POST', '/v1/transit/keys/app-1', { body: {} })).status).toBe(200);
  const r = await call(server, 'POST', '/v1/auth/token/create', {
    body: { policies: 'app', ttl: '1h' },
  });
  expect(r.status).toBe(200);
  expect(r.json.auth.policies).toEqual(['app', 'default']);
  app = r.json.auth.client_token;
});
afterAll(async () => {
  await server.stop();
});

const enc = (token: string, key: string) =>
  call(as(token), 'POST', `/v1/transit/encrypt/${key}`, { body: { plaintext: b64('hi') } });

describe('token headers', () => {
  it('accepts X-Service-Token, X-Vault-Token and Authorization: Bearer', async () => {
    const variants: Record<string, string>[] = [
      { 'x-service-token': app },
      { 'x-vault-token': app },
      { authorization: `Bearer ${app}` },
      // An empty header is no token; the next one counts.
      { 'x-service-token': '', 'x-vault-token': app },
      { 'x-vault-token': ' ', authorization: `Bearer ${app}` },
    ];
    for (const headers of variants) {
      const r = await call(server, 'POST', '/v1/transit/encrypt/app-1', {
        body: { plaintext: b64('x') },
        token: null,
        headers,
      });
      expect(r.status, JSON.stringify(Object.keys(headers))).toBe(200);
    }
  });
});

describe('the upsert rule (create vs update)', () => {
  it('update only: an existing key encrypts, a missing one is 403', async () => {
    expect((await enc(app, 'app-1')).status).toBe(200);
    expect((await enc(app, 'app-2')).status).toBe(403);
    expect((await call(server, 'GET', '/v1/transit/keys/app-2')).status).toBe(404);
  });

  it('create only: a missing key is upserted, then (existing) it is 403', async () => {
    expect((await enc(app, 'new-1')).status).toBe(200);
    expect((await call(server, 'GET', '/v1/transit/keys/new-1')).status).toBe(200);
    expect((await enc(app, 'new-1')).status).toBe(403);
  });

  it('create and update: both work', async () => {
    expect((await enc(app, 'both')).status).toBe(200);
    expect((await enc(app, 'both')).status).toBe(200);
  });

  it('disable_upsert turns the create path into 400 encryption key not found', async () => {
    await call(server, 'POST', '/v1/transit/config/keys', { body: { disable_upsert: true } });
    const r = await enc(app, 'new-2');
    expect(r.status).toBe(400);
    expect(r.json.errors).toEqual(['encryption key not found']);
    await call(server, 'POST', '/v1/transit/config/keys', { body: { disable_upsert: false } });
  });
});

describe('paths and capabilities', () => {
  it('read and list by exact path; anything else is denied by default', async () => {
    expect((await call(as(app), 'GET', '/v1/transit/keys/app-1')).status).toBe(200);
    expect((await call(as(app), 'GET', '/v1/transit/keys/new-1')).status).toBe(403);
    expect((await call(as(app), 'LIST', '/v1/transit/keys')).status).toBe(200);
    expect((await call(as(app), 'GET', '/v1/transit/keys?list=true')).status).toBe(200);
    expect((await call(as(app), 'DELETE', '/v1/transit/keys/app-1')).status).toBe(403);
    expect((await call(as(app), 'POST', '/v1/transit/decrypt/app-1', { body: {} })).status).toBe(
      403,
    );
    expect(
      (await call(as(app), 'PUT', '/v1/sys/policy/x', { body: { policy: APP_POLICY } })).status,
    ).toBe(403);
  });

  it('denies SHA-1 verification by path, and when the body names it', async () => {
    const mac = await call(as(app), 'POST', '/v1/transit/hmac/app-1', {
      body: { input: b64('m') },
    });
    expect(mac.status).toBe(200);
    const hmac = mac.json.data.hmac;
    const ok = await call(as(app), 'POST', '/v1/transit/verify/app-1/sha2-256', {
      body: { input: b64('m'), hmac },
    });
    expect(ok.status).toBe(200);
    expect(ok.json.data.valid).toBe(true);
    for (const [url, body] of [
      ['/v1/transit/verify/app-1/sha1', { input: b64('m'), hmac }],
      ['/v1/transit/verify/app-1', { input: b64('m'), hmac, hash_algorithm: 'sha1' }],
      ['/v1/transit/verify/app-1', { input: b64('m'), hmac, algorithm: 'sha1' }],
    ] as const) {
      const r = await call(as(app), 'POST', url, { body });
      expect(r.status, `${url} ${JSON.stringify(body)}`).toBe(403);
      expect(r.json.errors).toEqual(['permission denied']);
    }
  });

  it('denies SHA-1 signing by path and by body, allows SHA-2', async () => {
    expect(
      (await call(server, 'POST', '/v1/transit/keys/app-ec', { body: { type: 'ecdsa-p256' } }))
        .status,
    ).toBe(200);
    const input = b64('doc');
    expect(
      (await call(as(app), 'POST', '/v1/transit/sign/app-ec/sha2-256', { body: { input } })).status,
    ).toBe(200);
    expect(
      (await call(as(app), 'POST', '/v1/transit/sign/app-ec', { body: { input } })).status,
    ).toBe(200);
    for (const [url, body] of [
      ['/v1/transit/sign/app-ec/sha1', { input }],
      ['/v1/transit/sign/app-ec', { input, hash_algorithm: 'sha1' }],
      ['/v1/transit/sign/app-ec', { input, algorithm: 'sha1' }],
    ] as const) {
      expect(
        (await call(as(app), 'POST', url, { body })).status,
        `${url} ${JSON.stringify(body)}`,
      ).toBe(403);
    }
  });

  it('the default policy lets a token look itself up', async () => {
    const r = await call(as(app), 'GET', '/v1/auth/token/lookup-self');
    expect(r.status).toBe(200);
    expect(r.json.data).toMatchObject({
      policies: ['app', 'default'],
      path: 'auth/token/create',
      type: 'service',
    });
    expect(r.json.data.ttl).toBeGreaterThan(3500);
  });
});

describe('child tokens', () => {
  it('a child cannot hold policies its parent lacks', async () => {
    const r = await call(as(app), 'POST', '/v1/auth/token/create', {
      body: { policies: ['root'] },
    });
    expect(r.status).toBe(403); // no update on auth/token/create: the ACL refuses
    // `app` has no update on auth/token/create: Vault's default policy does not grant it either.
    const root = await call(server, 'POST', '/v1/sys/policy/creator', {
      body: { policy: 'path "auth/token/create" { capabilities = ["update"] }' },
    });
    expect(root.status).toBe(204);
    const parent = await call(server, 'POST', '/v1/auth/token/create', {
      body: { policies: ['app', 'creator'] },
    });
    const p = parent.json.auth.client_token;
    expect(
      (await call(as(p), 'POST', '/v1/auth/token/create', { body: { policies: ['root'] } })).status,
    ).toBe(400); // Vault's "root tokens may not be created without parent token being root"
    expect(
      (await call(as(p), 'POST', '/v1/auth/token/create', { body: { policies: ['app'] } })).status,
    ).toBe(200);
    // Revoking the parent revokes its children.
    const child = (
      await call(as(p), 'POST', '/v1/auth/token/create', { body: { policies: ['app'] } })
    ).json.auth.client_token;
    expect(
      (await call(server, 'POST', '/v1/auth/token/revoke', { body: { token: p } })).status,
    ).toBe(204);
    expect((await enc(child, 'app-1')).status).toBe(403);
  });

  it('sudo on auth/token/create lets a token make orphans and grant other policies (not root)', async () => {
    for (const [name, caps] of [
      ['creator-plain', '["update"]'],
      ['creator-sudo', '["update", "sudo"]'],
    ]) {
      const w = await call(server, 'POST', `/v1/sys/policy/${name}`, {
        body: { policy: `path "auth/token/create" { capabilities = ${caps} }` },
      });
      expect(w.status).toBe(204);
    }
    const tokenWith = async (policy: string) =>
      (await call(server, 'POST', '/v1/auth/token/create', { body: { policies: [policy] } })).json
        .auth.client_token as string;
    const plain = await tokenWith('creator-plain');
    const sudo = await tokenWith('creator-sudo');
    const orphan = { body: { no_parent: true, policies: ['app'] } };
    // Vault's order: the policies are checked first, then the orphan.
    const refused = await call(as(plain), 'POST', '/v1/auth/token/create', orphan);
    expect(refused.status).toBe(400);
    expect(refused.json.errors).toEqual(['child policies must be subset of parent']);
    const own = { body: { no_parent: true } };
    const refused2 = await call(as(plain), 'POST', '/v1/auth/token/create', own);
    expect(refused2.status).toBe(400);
    expect(refused2.json.errors).toEqual([
      'root or sudo privileges required to create orphan token',
    ]);
    const made = await call(as(sudo), 'POST', '/v1/auth/token/create', orphan);
    expect(made.status).toBe(200);
    expect(made.json.auth.orphan).toBe(true);
    expect(made.json.auth.policies).toEqual(['app', 'default']);
    const root = await call(as(sudo), 'POST', '/v1/auth/token/create', {
      body: { policies: ['root'] },
    });
    expect(root.status).toBe(400);
  });

  it('revoke-orphan needs sudo on its path; lookup-accessor and revoke-accessor follow the ACL', async () => {
    const w = await call(server, 'POST', '/v1/sys/policy/token-admin', {
      body: {
        policy: [
          'path "auth/token/revoke-orphan" { capabilities = ["update"] }',
          'path "auth/token/lookup-accessor" { capabilities = ["update"] }',
        ].join('\n'),
      },
    });
    expect(w.status).toBe(204);
    const admin = (
      await call(server, 'POST', '/v1/auth/token/create', { body: { policies: ['token-admin'] } })
    ).json.auth.client_token as string;
    const victim = (
      await call(server, 'POST', '/v1/auth/token/create', { body: { policies: ['app'] } })
    ).json.auth;
    const r = await call(as(admin), 'POST', '/v1/auth/token/revoke-orphan', {
      body: { token: victim.client_token },
    });
    expect(r.status).toBe(400);
    expect(r.json.errors).toEqual(['root or sudo privileges required to revoke and orphan']);
    const seen = await call(as(admin), 'POST', '/v1/auth/token/lookup-accessor', {
      body: { accessor: victim.accessor },
    });
    expect(seen.status).toBe(200);
    expect(seen.json.data.id).toBe('');
    // No grant on revoke-accessor: the ACL refuses before the store is asked.
    const refused = await call(as(admin), 'POST', '/v1/auth/token/revoke-accessor', {
      body: { accessor: victim.accessor },
    });
    expect(refused.status).toBe(403);
    const bad = await call(server, 'POST', '/v1/auth/token/lookup-accessor', {
      body: { accessor: 'no-such' },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.errors).toEqual(['invalid accessor']);
    const gone = await call(server, 'POST', '/v1/auth/token/lookup', { body: { token: 'hvs.x' } });
    expect(gone.status).toBe(403);
    expect(gone.json.errors).toEqual(['bad token']);
  });

  it('a limited-use token works exactly num_uses times', async () => {
    const r = await call(server, 'POST', '/v1/auth/token/create', {
      body: { policies: ['app'], num_uses: 2 },
    });
    const t = r.json.auth.client_token;
    expect((await enc(t, 'app-1')).status).toBe(200);
    expect((await enc(t, 'app-1')).status).toBe(200);
    expect((await enc(t, 'app-1')).status).toBe(403);
  });

  it("lookup-self on a token's last use is served (num_uses -1, as Vault); renew-self finds no token", async () => {
    const r = await call(server, 'POST', '/v1/auth/token/create', {
      body: { policies: ['app'], num_uses: 2 },
    });
    const t = r.json.auth.client_token;
    const first = await call(as(t), 'GET', '/v1/auth/token/lookup-self');
    expect(first.status).toBe(200);
    expect(first.json.data.num_uses).toBe(1);
    const last = await call(as(t), 'GET', '/v1/auth/token/lookup-self');
    expect(last.status).toBe(200);
    expect(last.json.data).toMatchObject({ num_uses: -1, policies: ['app', 'default'], id: t });
    expect((await call(as(t), 'GET', '/v1/auth/token/lookup-self')).status).toBe(403);
    expect((await enc(t, 'app-1')).status).toBe(403);
    // renew-self on a last use: Vault's renew no longer finds the token (400).
    const once = await call(server, 'POST', '/v1/auth/token/create', {
      body: { policies: ['app'], num_uses: 1, ttl: '1h' },
    });
    const renewed = await call(
      as(once.json.auth.client_token),
      'POST',
      '/v1/auth/token/renew-self',
      {
        body: {},
      },
    );
    expect(renewed.status).toBe(400);
    expect(renewed.json.errors).toEqual(['token not found']);
  });

  it('renew-self extends the TTL; a non-renewable token is refused', async () => {
    const r = await call(server, 'POST', '/v1/auth/token/create', {
      body: { policies: ['app'], ttl: '10m' },
    });
    const t = r.json.auth.client_token;
    const renewed = await call(as(t), 'POST', '/v1/auth/token/renew-self', {
      body: { increment: 3600 },
    });
    expect(renewed.status).toBe(200);
    expect(renewed.json.auth.lease_duration).toBe(3600);
    const fixed = await call(server, 'POST', '/v1/auth/token/create', {
      body: { policies: ['app'], ttl: '10m', renewable: false },
    });
    const f = await call(as(fixed.json.auth.client_token), 'POST', '/v1/auth/token/renew-self', {
      body: {},
    });
    expect(f.status).toBe(400);
    expect(f.json.errors).toEqual(['lease is not renewable']);
  });
});

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
