/**
 * Over HTTP, as Vault (`handleCreateCommon` records `auth/token/<route>`): a
 * token made through `auth/token/create-orphan` looks up with that path, one
 * made through `auth/token/create` with `no_parent` with `auth/token/create`
 * (test/auth/token-orphan-path.test.ts covers its lease).
 */
import { expect, it } from 'vitest';
import { call } from '../http/helpers.js';
import { serveTokenServicesForFile } from '../http/token-services.js';

const srv = serveTokenServicesForFile();

it('a token made through create-orphan looks up with path auth/token/create-orphan', async () => {
  const made = await call(srv, 'POST', '/v1/auth/token/create-orphan', {
    body: { policies: ['app'], ttl: '1h' },
  });
  expect(made.status).toBe(200);
  const look = await call(srv, 'POST', '/v1/auth/token/lookup', {
    body: { token: made.json.auth.client_token },
  });
  expect(look.status).toBe(200);
  expect(look.json.data.orphan).toBe(true);
  expect(look.json.data.path).toBe('auth/token/create-orphan');
  const plain = await call(srv, 'POST', '/v1/auth/token/create', {
    body: { policies: ['app'], ttl: '1h', no_parent: true },
  });
  const plainLook = await call(srv, 'POST', '/v1/auth/token/lookup', {
    body: { token: plain.json.auth.client_token },
  });
  expect(plainLook.json.data).toMatchObject({ orphan: true, path: 'auth/token/create' });
});
