/**
 * Shared set-up of the ACL-over-HTTP tests (`acl.test.ts`,
 * `acl-tokens.test.ts`, `acl-policies.test.ts`): the application's policy and
 * a dev server holding it, the key `app-1`, and a 1h token with policy `app`.
 * Not a test file.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { type CliServer, call, startDev } from './helpers.js';

export const APP_POLICY = `
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

/** A dev server with policy `app` and key `app-1`, and `app`: a token with that policy. */
export async function startAppServer(): Promise<{ server: CliServer; app: string }> {
  const server = await startDev();
  try {
    expect(
      (await call(server, 'PUT', '/v1/sys/policy/app', { body: { policy: APP_POLICY } })).status,
    ).toBe(204);
    expect((await call(server, 'POST', '/v1/transit/keys/app-1', { body: {} })).status).toBe(200);
    const r = await call(server, 'POST', '/v1/auth/token/create', {
      body: { policies: 'app', ttl: '1h' },
    });
    expect(r.status).toBe(200);
    expect(r.json.auth.policies).toEqual(['app', 'default']);
    return { server, app: r.json.auth.client_token };
  } catch (e) {
    await server.stop();
    throw e;
  }
}

/**
 * Start {@link startAppServer} before the calling file's tests and stop it
 * after them; `use` receives the server and the `app` token once started.
 */
export function withAppServer(use: (s: { server: CliServer; app: string }) => void): void {
  let server: CliServer | undefined;
  beforeAll(async () => {
    const started = await startAppServer();
    server = started.server;
    use(started);
  });
  afterAll(async () => {
    await server?.stop();
  });
}
