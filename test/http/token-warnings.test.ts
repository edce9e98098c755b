/**
 * `auth/token/create` over real HTTP warns of each policy of the new token
 * that no policy document defines, as Vault's `handleCreateCommon` does
 * (`Policy "x" does not exist`), after its TTL warnings; `root` and `default`
 * always exist. The token is made all the same.
 */
import { describe, expect, it } from 'vitest';
import { call } from './helpers.js';
import { serveTokenServicesForFile } from './token-services.js';

const served = serveTokenServicesForFile({ defaultTtl: 1800, maxTtl: 3600 });

describe('auth/token/create warnings', () => {
  it('names each policy that does not exist, in order, after the TTL warning', async () => {
    expect(
      (
        await call(served, 'PUT', '/v1/sys/policy/known', {
          body: { policy: 'path "a" { capabilities = ["read"] }' },
        })
      ).status,
    ).toBe(204);
    const r = await call(served, 'POST', '/v1/auth/token/create', {
      body: { policies: ['zeta', 'known', 'alpha'], ttl: '2h' },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json.auth.policies).toEqual(['alpha', 'default', 'known', 'zeta']);
    expect(r.json.warnings).toHaveLength(3);
    expect(r.json.warnings[0]).toMatch(/^TTL of "2h" exceeded the effective max_ttl/);
    expect(r.json.warnings.slice(1)).toEqual([
      'Policy "alpha" does not exist',
      'Policy "zeta" does not exist',
    ]);
    const looked = await call(served, 'GET', '/v1/auth/token/lookup-self', {
      token: r.json.auth.client_token,
    });
    expect(looked.status).toBe(200);
  });

  it('root, default and defined policies give no warning', async () => {
    for (const body of [{}, { policies: ['known'] }, { policies: ['default'] }]) {
      const r = await call(served, 'POST', '/v1/auth/token/create', { body });
      expect(r.status, r.text).toBe(200);
      expect(r.json.warnings, `${JSON.stringify(body)}: ${r.text}`).toBeNull();
    }
  });

  it("entity_alias is a 400 with Vault's text (no token roles here), and no token is made", async () => {
    const r = await call(served, 'POST', '/v1/auth/token/create', {
      body: { entity_alias: 'web', policies: ['known'] },
    });
    expect(r.status, r.text).toBe(400);
    expect(r.json).toEqual({
      errors: ["'entity_alias' is only allowed in combination with token role"],
    });
    const empty = await call(served, 'POST', '/v1/auth/token/create', {
      body: { entity_alias: '', policies: ['known'] },
    });
    expect(empty.status, empty.text).toBe(200);
    expect(empty.json.warnings).toBeNull();
  });
});
