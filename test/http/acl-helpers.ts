/**
 * Shared set-up of the ACL-over-HTTP tests (`acl.test.ts`,
 * `acl-tokens.test.ts`, `acl-policies.test.ts`): the application's policy and
 * a dev server holding it, the key `app-1`, and a 1h token with policy `app`;
 * and an in-process handler with tokens and policies ({@link inProcessAcl}).
 * Not a test file.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import {
  AclPolicyStore,
  createHandler,
  TokenStore,
  type TransitHandler,
} from '../../adapters/http/index.js';
import { Transit } from '../../src/index.js';
import { LeaseManager } from '../../src/leases/lease-manager.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { FakeClock } from '../helpers/fake-clock.js';
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

/**
 * An in-process handler over memory storage with tokens, ACL policies and a
 * lease manager (a fake clock): the policies are written, and `token(names)`
 * makes a 1h token holding them. For ACL tests that need no real server.
 */
export async function inProcessAcl(policyTexts: Record<string, string>): Promise<{
  handler: TransitHandler;
  transit: Transit;
  root: string;
  token: (policies: string[]) => Promise<string>;
}> {
  const clock = new FakeClock();
  const storage = new MemoryStorage({ clock });
  let tokens: TokenStore | undefined;
  const leases = new LeaseManager({
    storage,
    clock,
    tokenExists: (t) => (tokens as TokenStore).exists(t),
  });
  tokens = new TokenStore({ storage, clock, leases });
  const policies = new AclPolicyStore({ storage });
  for (const [name, text] of Object.entries(policyTexts)) await policies.write(name, text);
  const transit = new Transit({ storage, autoRotate: false });
  const handler = createHandler(
    { transit, tokens, policies, leases },
    { logger: { error: () => undefined } },
  );
  const root = await tokens.createRoot();
  const rootCtx = await tokens.authenticate(root);
  if (!rootCtx) throw new Error('no root context');
  const store = tokens;
  const token = async (names: string[]) =>
    (await store.create(rootCtx, { policies: names, ttl: '1h' })).client_token;
  return { handler, transit, root, token };
}
