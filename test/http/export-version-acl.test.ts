/**
 * An exact `deny` on one version's export path
 * (`transit/export/encryption-key/k/1`) holds for every spelling of that
 * version the call accepts (`01`, `+1`, `v1`, as Vault reads them): the ACL
 * checks the version segment as the number it names (route.ts
 * `aclVersionAt`), as it checks a policy name in the case the store keeps.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AclPolicyStore, createHandler, TokenStore } from '../../adapters/http/index.js';
import { createServer, type TransitkitServer } from '../../adapters/http/node-server.js';
import { MemoryStorage, Transit } from '../../src/index.js';

let server: TransitkitServer;
let url: string;
let user: string;
let v1Key: string;

const get = async (path: string, token: string) => {
  const r = await fetch(url + path, { headers: { 'x-vault-token': token } });
  return {
    status: r.status,
    json: (await r.json()) as { data?: { keys?: Record<string, string> } },
  };
};

beforeAll(async () => {
  const storage = new MemoryStorage();
  const tokens = new TokenStore({ storage });
  const policies = new AclPolicyStore({ storage });
  const transit = new Transit({ storage, autoRotate: false });
  server = createServer(
    createHandler({ transit, tokens, policies }, { logger: { error: () => {} } }),
  );
  ({ url } = await server.listen(0, '127.0.0.1'));
  await transit.createKey('k', { exportable: true });
  await transit.createKey('dest', { type: 'rsa-2048' });
  await transit.rotateKey('k');
  v1Key = (
    (await transit.exportKey('encryption-key', 'k', '1')) as { keys: Record<string, string> }
  ).keys['1'] as string;
  await policies.write(
    'exporter',
    `path "transit/export/encryption-key/k/*" { capabilities = ["read"] }
     path "transit/export/encryption-key/k/1" { capabilities = ["deny"] }
     path "transit/byok-export/dest/k/*" { capabilities = ["read"] }
     path "transit/byok-export/dest/k/1" { capabilities = ["deny"] }`,
  );
  const root = await tokens.createRoot();
  const rootCtx = await tokens.authenticate(root);
  if (!rootCtx) throw new Error('no root token');
  user = (await tokens.create(rootCtx, { policies: ['exporter'] })).client_token;
});
afterAll(() => server.close({ drainMs: 0 }));

describe('export: an exact deny on one version path', () => {
  it('holds for the canonical spelling (control)', async () => {
    expect((await get('/v1/transit/export/encryption-key/k/1', user)).status).toBe(403);
    expect((await get('/v1/transit/export/encryption-key/k/2', user)).status).toBe(200);
  });

  it.each(['01', '+1', 'v1', '001'])(
    'also holds for the spelling %s of version 1',
    async (spelling) => {
      const r = await get(
        `/v1/transit/export/encryption-key/k/${encodeURIComponent(spelling)}`,
        user,
      );
      expect(r.status).toBe(403);
      expect(r.json.data?.keys?.['1']).toBeUndefined();
      expect(JSON.stringify(r.json)).not.toContain(v1Key);
    },
  );
});

describe('byok-export: the same deny on one version path', () => {
  it('holds for the canonical spelling (control)', async () => {
    expect((await get('/v1/transit/byok-export/dest/k/1', user)).status).toBe(403);
    expect((await get('/v1/transit/byok-export/dest/k/2', user)).status).toBe(200);
  });

  it.each(['01', 'v1'])('also holds for the spelling %s of version 1', async (spelling) => {
    const r = await get(`/v1/transit/byok-export/dest/k/${spelling}`, user);
    expect(r.status).toBe(403);
    expect(r.json.data?.keys?.['1']).toBeUndefined();
  });
});

describe('other spellings still reach the versions they name', () => {
  it('v2 and 02 export version 2, which the policy allows', async () => {
    for (const spelling of ['v2', '02']) {
      const r = await get(`/v1/transit/export/encryption-key/k/${spelling}`, user);
      expect(r.status).toBe(200);
      expect(Object.keys(r.json.data?.keys ?? {})).toEqual(['2']);
    }
  });
});
