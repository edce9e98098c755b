/**
 * `POST auth/token/renew-accessor` over real HTTP (Vault's
 * `handleUpdateRenewAccessor`, hvac's `renew_accessor`): renews the token an
 * accessor names, as `auth/token/renew` does, and never yields the token (the
 * reply's `client_token` is empty). Vault's refusals for a missing or unknown
 * accessor; the ACL decides who may (the default policy may not).
 */
import { describe, expect, it } from 'vitest';
import { call } from './helpers.js';
import { serveTokenServicesForFile } from './token-services.js';

const served = serveTokenServicesForFile();

const errorOf = (r: { json: { errors?: string[] } }) => r.json?.errors?.[0] ?? '';

describe('auth/token/renew-accessor', () => {
  it('renews the token with that accessor by the increment; the reply has no token', async () => {
    const made = await call(served, 'POST', '/v1/auth/token/create', {
      body: { policies: ['default'], ttl: '1h' },
    });
    const { accessor, client_token } = made.json.auth;
    const r = await call(served, 'POST', '/v1/auth/token/renew-accessor', {
      body: { accessor, increment: '2h' },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json.auth).toMatchObject({ client_token: '', accessor, lease_duration: 7200 });
    const looked = await call(served, 'GET', '/v1/auth/token/lookup-self', { token: client_token });
    expect(looked.json.data.ttl).toBeGreaterThan(3600);
  });

  it("refuses a missing, malformed or unknown accessor with Vault's texts", async () => {
    for (const [body, error] of [
      [{}, 'missing accessor'],
      [{ accessor: 'no/such' }, 'invalid accessor'],
      [{ accessor: 'A'.repeat(24) }, 'invalid accessor'],
    ] as const) {
      const r = await call(served, 'POST', '/v1/auth/token/renew-accessor', { body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(errorOf(r)).toBe(error);
    }
  });

  it('needs update on the path: a default-policy token is refused before anything is read', async () => {
    const plain = await call(served, 'POST', '/v1/auth/token/create', {
      body: { policies: ['default'] },
    });
    const r = await call(served, 'POST', '/v1/auth/token/renew-accessor', {
      token: plain.json.auth.client_token,
      body: { accessor: plain.json.auth.accessor },
    });
    expect(r.status).toBe(403);
  });
});
