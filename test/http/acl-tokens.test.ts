/**
 * Tokens under ACL policies over real HTTP: child-token policy subsets, sudo
 * on `auth/token/create` (orphans, other policies, never root), revoke-orphan
 * and the accessor routes, limited-use tokens (num_uses, lookup-self on the
 * last use), and renew-self.
 */
import { describe, expect, it } from 'vitest';
import { withAppServer } from './acl-helpers.js';
import { b64, type CliServer, call } from './helpers.js';

let server: CliServer;
let app: string;
const as = (token: string) => ({ url: server.url, root: token });

withAppServer((s) => ({ server, app } = s));

const enc = (token: string, key: string) =>
  call(as(token), 'POST', `/v1/transit/encrypt/${key}`, { body: { plaintext: b64('hi') } });

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

  it('a token that never expires is refused as Vault refuses it (400, not a 200 with no lease)', async () => {
    // The initial root token has no lease at all.
    const self = await call(server, 'POST', '/v1/auth/token/renew-self', { body: {} });
    expect(self.status).toBe(400);
    expect(self.json.errors).toEqual(['invalid lease ID']);
    // A root token made by auth/token/create has a lease that never expires.
    const made = await call(server, 'POST', '/v1/auth/token/create', { body: {} });
    expect(made.json.auth.lease_duration).toBe(0);
    const t = made.json.auth.client_token;
    for (const r of [
      await call(as(t), 'POST', '/v1/auth/token/renew-self', { body: { increment: '1h' } }),
      await call(server, 'POST', '/v1/auth/token/renew', { body: { token: t } }),
    ]) {
      expect(r.status).toBe(400);
      expect(r.json.errors).toEqual(['lease is not renewable']);
    }
  });
});
