/**
 * Periodic tokens over real HTTP (a node server on 127.0.0.1, the token store
 * and its lease manager on a fake clock): `period` passes through
 * `auth/token/create` and `create-orphan`, `renew-self` and `renew` reset the
 * TTL to the period whatever the `increment`, the `lookup*` routes show
 * `period` in seconds, and the refusals and warnings come in Vault's envelope.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AclPolicyStore, TokenStore } from '../../adapters/http/index.js';
import { Transit } from '../../src/index.js';
import { LeaseManager } from '../../src/leases/lease-manager.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { call, serveServices } from './helpers.js';

const clock = new FakeClock();
let served: Awaited<ReturnType<typeof serveServices>>;
const as = (token: string) => ({ url: served.url, root: token });

beforeAll(async () => {
  const storage = new MemoryStorage({ clock });
  const leases = new LeaseManager({ storage, clock });
  const tokens = new TokenStore({ storage, clock, leases, maxTtl: '2h' });
  const policies = new AclPolicyStore({ storage });
  await policies.write('maker', 'path "auth/token/create" { capabilities = ["update"] }');
  await policies.write(
    'sudo-maker',
    'path "auth/token/create" { capabilities = ["update", "sudo"] }',
  );
  served = await serveServices({
    transit: new Transit({ storage, autoRotate: false }),
    tokens,
    policies,
    leases,
  });
});
afterAll(async () => {
  await served.close();
});

const create = (token: string, body: object, path = '/v1/auth/token/create') =>
  call(as(token), 'POST', path, { body });

describe('periodic tokens over HTTP', () => {
  it('create, lookup, renew-self and renew round trip with the period', async () => {
    const made = await create(served.root, { policies: ['a'], period: '1h', ttl: '5m' });
    expect(made.status, made.text).toBe(200);
    expect(made.json.auth).toMatchObject({ lease_duration: 3600, renewable: true });
    // No period warning; Vault names the policy no document defines.
    expect(made.json.warnings).toEqual(['Policy "a" does not exist']);
    const token: string = made.json.auth.client_token;

    const self = await call(as(token), 'GET', '/v1/auth/token/lookup-self');
    expect(self.status).toBe(200);
    expect(self.json.data).toMatchObject({ period: 3600, ttl: 3600, creation_ttl: 3600 });

    clock.advance(50 * 60_000);
    const renewedSelf = await call(as(token), 'POST', '/v1/auth/token/renew-self', {
      body: { increment: '10h' },
    });
    expect(renewedSelf.status, renewedSelf.text).toBe(200);
    expect(renewedSelf.json.auth.lease_duration).toBe(3600);

    clock.advance(50 * 60_000);
    const renewed = await call(served, 'POST', '/v1/auth/token/renew', {
      body: { token, increment: 30 },
    });
    expect(renewed.status, renewed.text).toBe(200);
    expect(renewed.json.auth.lease_duration).toBe(3600);

    // Past the store's max TTL (2h) from creation, still alive and periodic.
    clock.advance(50 * 60_000);
    const looked = await call(served, 'POST', '/v1/auth/token/lookup', { body: { token } });
    expect(looked.status, looked.text).toBe(200);
    expect(looked.json.data).toMatchObject({ period: 3600, ttl: 600 });
    const byAccessor = await call(served, 'POST', '/v1/auth/token/lookup-accessor', {
      body: { accessor: made.json.auth.accessor },
    });
    expect(byAccessor.json.data).toMatchObject({ id: '', period: 3600 });
  });

  it('create-orphan passes the period; a plain token lookup has no period', async () => {
    const orphan = await create(served.root, { period: 600 }, '/v1/auth/token/create-orphan');
    expect(orphan.status, orphan.text).toBe(200);
    expect(orphan.json.auth).toMatchObject({ orphan: true, lease_duration: 600 });
    const plain = await create(served.root, { policies: ['a'], ttl: '1h' });
    const l = await call(as(plain.json.auth.client_token), 'GET', '/v1/auth/token/lookup-self');
    expect(Object.keys(l.json.data)).not.toContain('period');
  });

  it("needs sudo (Vault's 400), and a period past the max TTL comes with Vault's warning", async () => {
    const maker = (await create(served.root, { policies: ['maker'] })).json.auth.client_token;
    const refused = await create(maker, { policies: ['maker'], period: '1h' });
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual({
      errors: ['root or sudo privileges required to create periodic token'],
    });
    const sudo = (await create(served.root, { policies: ['sudo-maker'] })).json.auth.client_token;
    const capped = await create(sudo, { policies: ['sudo-maker'], period: '3h' });
    expect(capped.status, capped.text).toBe(200);
    expect(capped.json.auth.lease_duration).toBe(7200);
    expect(capped.json.warnings).toEqual([
      'period of "3h" exceeded the effective max_ttl of "2h"; period value is capped accordingly',
    ]);
  });
});
