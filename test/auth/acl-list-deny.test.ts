/**
 * LIST and a deny on the listed folder's glob. Vault checks a LIST on the path
 * with its trailing slash (`transit/keys/`): the prefix rule
 * `transit/keys/*` (radix key `transit/keys/`) matches it and its deny wins
 * over a broader `transit/*` grant — in Vault 1.14 (`LongestPrefix(path)` on
 * the slash path) and in current Vault, whose AllowOperation gathers the
 * candidates of both the slash-stripped and the full path and lets the most
 * specific deny win ("a deny on kv1/private/* would be silently skipped if we
 * only use the trimmed form … this closes the CVE").
 *
 * An earlier transitkit looked at the wildcard rules of the slash-stripped
 * path first and returned the first match: `transit/*` granted list, the deny
 * on `transit/keys/*` was never consulted, and a token denied everything under
 * `transit/keys/` could list every key name.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import {
  AclPolicyStore,
  createHandler,
  TokenStore,
  type TransitHandler,
} from '../../adapters/http/index.js';
import { Acl } from '../../src/auth/acl.js';
import { parsePolicy } from '../../src/auth/policy-hcl.js';
import { Transit } from '../../src/index.js';
import { LeaseManager } from '../../src/leases/lease-manager.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { FakeClock } from '../helpers/fake-clock.js';

const POLICY = `
path "transit/*" { capabilities = ["read", "list", "update"] }
path "transit/keys/*" { capabilities = ["deny"] }
`;

let handler: TransitHandler;
let token: string;

beforeEach(async () => {
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
  await policies.write('no-keys', POLICY);
  const transit = new Transit({ storage, autoRotate: false });
  await transit.createKey('payroll');
  await transit.createKey('secret-project');
  handler = createHandler(
    { transit, tokens, policies, leases },
    { logger: { error: () => undefined } },
  );
  const root = await tokens.createRoot();
  const rootCtx = await tokens.authenticate(root);
  if (!rootCtx) throw new Error('no root context');
  token = (await tokens.create(rootCtx, { policies: ['no-keys'], ttl: '1h' })).client_token;
});

async function call(method: string, path: string) {
  const r = await handler.fetch(
    new Request(`http://vault.test/v1${path}`, { method, headers: { 'x-vault-token': token } }),
  );
  return { status: r.status, text: await r.text() };
}

describe('LIST under a deny on transit/keys/* (Vault: denied)', () => {
  it('reading a key is denied (sanity: the deny applies to transit/keys/...)', async () => {
    expect((await call('GET', '/transit/keys/payroll')).status).toBe(403);
  });

  it('GET transit/keys?list=true is denied', async () => {
    const r = await call('GET', '/transit/keys?list=true');
    expect(r.status, r.text).toBe(403);
  });

  it('GET transit/keys/?list=true is denied', async () => {
    const r = await call('GET', '/transit/keys/?list=true');
    expect(r.status, r.text).toBe(403);
  });

  it('Acl.allows: list on transit/keys is false', () => {
    const acl = Acl.compile([parsePolicy(POLICY)]);
    expect(acl.allows('transit/keys', 'list')).toBe(false);
    expect(acl.allows('transit/keys/', 'list')).toBe(false);
  });
});
