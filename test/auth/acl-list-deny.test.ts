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
import type { TransitHandler } from '../../adapters/http/index.js';
import { Acl } from '../../src/auth/acl.js';
import { parsePolicy } from '../../src/auth/policy-hcl.js';
import { inProcessAcl } from '../http/acl-helpers.js';

const POLICY = `
path "transit/*" { capabilities = ["read", "list", "update"] }
path "transit/keys/*" { capabilities = ["deny"] }
`;

let handler: TransitHandler;
let token: string;

beforeEach(async () => {
  const made = await inProcessAcl({ 'no-keys': POLICY });
  handler = made.handler;
  await made.transit.createKey('payroll');
  await made.transit.createKey('secret-project');
  token = await made.token(['no-keys']);
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
