/**
 * What SECURITY.md says of dot segments on the fetch binding: a WHATWG
 * `Request` reaches the handler with its URL already resolved by the runtime
 * (`/a/zz/%2e%2e/k` is `/a/k`), and transitkit checks and serves that resolved
 * path — the ACL decides on the key the request really touches, so a policy
 * on `zz/*` never reaches `k` through `zz/..`.
 */
import { describe, expect, it } from 'vitest';
import { inProcessAcl } from './acl-helpers.js';

const SPELLINGS = ['zz/../k', 'zz/%2e%2e/k', 'zz/.%2E/k', './k'];

describe('dot segments on the fetch binding', () => {
  it('are resolved before the ACL, which decides on the key touched', async () => {
    const { handler, transit, token } = await inProcessAcl({
      zz: 'path "transit/keys/zz/*" { capabilities = ["create", "update", "read"] }',
      k: 'path "transit/keys/k" { capabilities = ["read"] }',
    });
    await transit.createKey('k');
    const read = async (path: string, t: string) => {
      const r = await handler.fetch(
        new Request(`http://vault.test/v1/transit/keys/${path}`, {
          headers: { 'x-vault-token': t },
        }),
      );
      return {
        status: r.status,
        name: ((await r.json()) as { data?: { name?: string } }).data?.name,
      };
    };
    const onZz = await token(['zz']);
    const onK = await token(['k']);
    for (const path of SPELLINGS) {
      expect(await read(path, onZz), path).toMatchObject({ status: 403 });
      expect(await read(path, onK), path).toEqual({ status: 200, name: 'k' });
    }
  });
});
