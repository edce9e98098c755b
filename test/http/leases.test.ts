/**
 * `/v1/sys/leases/*` over the HTTP adapter, in process (the fetch binding) on a
 * fake clock: every transition of the spec's lease state table (renew,
 * revoke sync/queued, revoke-prefix, revoke-force, tidy), each refusal with
 * Vault's status and text (token lease renew, unknown lease, non-renewable,
 * expired, irrevocable), and the routes that need `sudo` (list, revoke-prefix,
 * revoke-force, the irrevocable list), answered 403 to a token without it.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import {
  AclPolicyStore,
  createHandler,
  TokenStore,
  type TransitHandler,
} from '../../adapters/http/index.js';
import type { TokenContext } from '../../src/auth/token-entry.js';
import { Transit } from '../../src/index.js';
import { LeaseManager } from '../../src/leases/lease-manager.js';
import type { RevokableLease } from '../../src/leases/types.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { FakeClock } from '../helpers/fake-clock.js';

/** Lease routes without sudo. */
const USER_POLICY = `
path "sys/leases/*" { capabilities = ["create", "read", "update", "list"] }
path "sys/leases" { capabilities = ["read", "list"] }
`;
/** The same with sudo. */
const ADMIN_POLICY = `
path "sys/leases/*" { capabilities = ["create", "read", "update", "list", "sudo"] }
path "sys/leases" { capabilities = ["read", "list", "sudo"] }
`;

interface Ctx {
  clock: FakeClock;
  leases: LeaseManager;
  tokens: TokenStore;
  handler: TransitHandler;
  root: string;
  user: string;
  admin: string;
  revoked: RevokableLease[];
  /** `db/` revocations fail while this is set. */
  failWith: { error: Error | undefined };
}

let t: Ctx;

beforeEach(async () => {
  const clock = new FakeClock();
  const storage = new MemoryStorage({ clock });
  let tokens: TokenStore | undefined;
  const leases = new LeaseManager({
    storage,
    clock,
    revokeTimeoutMs: 50,
    tokenExists: (token) => (tokens as TokenStore).exists(token),
  });
  tokens = new TokenStore({ storage, clock, leases });
  const policies = new AclPolicyStore({ storage });
  await policies.write('leases-user', USER_POLICY);
  await policies.write('leases-admin', ADMIN_POLICY);
  const revoked: RevokableLease[] = [];
  const failWith: Ctx['failWith'] = { error: undefined };
  leases.registerRevoker('db/', (lease) => {
    if (failWith.error) throw failWith.error;
    revoked.push(lease);
  });
  const handler = createHandler(
    { transit: new Transit({ storage, autoRotate: false }), tokens, policies, leases },
    { logger: { error: () => undefined } },
  );
  const root = await tokens.createRoot();
  const rootCtx = await tokens.authenticate(root);
  if (!rootCtx) throw new Error('no root context');
  const user = (await tokens.create(rootCtx, { policies: ['leases-user'], ttl: '24h' }))
    .client_token;
  const admin = (await tokens.create(rootCtx, { policies: ['leases-admin'], ttl: '24h' }))
    .client_token;
  t = { clock, leases, tokens, handler, root, user, admin, revoked, failWith };
});

interface Res {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: test convenience for reading JSON bodies
  json: any;
}

async function req(method: string, path: string, body?: unknown, token?: string): Promise<Res> {
  const r = await t.handler.fetch(
    new Request(`http://vault.test/v1${path}`, {
      method,
      headers: { 'x-vault-token': token ?? t.root, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  const text = await r.text();
  return { status: r.status, json: text === '' ? undefined : JSON.parse(text) };
}

const issue = (path = 'db/creds/ro', extra: { ttl?: number; renewable?: boolean } = {}) =>
  t.leases.issue({ path, ttl: extra.ttl ?? 3600, renewable: extra.renewable ?? true });

/** The errors[] of a refusal, with its status. */
async function refused(res: Promise<Res>, status: number, text: string | RegExp) {
  const r = await res;
  expect(r.status).toBe(status);
  expect(r.json.errors.join(' ')).toMatch(text);
}

describe('lookup (POST /sys/leases/lookup)', () => {
  it('returns Vault’s fields for an active lease', async () => {
    const { lease_id } = await issue();
    t.clock.advance(600_000);
    const r = await req('POST', '/sys/leases/lookup', { lease_id }, t.user);
    expect(r.status).toBe(200);
    expect(r.json.data).toEqual({
      id: lease_id,
      issue_time: '2026-01-01T00:00:00.000Z',
      expire_time: '2026-01-01T01:00:00.000Z',
      last_renewal: null,
      path: 'db/creds/ro',
      renewable: true,
      ttl: 3000,
    });
  });

  it('refuses an unknown lease and a missing id (400)', async () => {
    await refused(req('POST', '/sys/leases/lookup', { lease_id: 'db/nope' }), 400, 'invalid lease');
    await refused(req('POST', '/sys/leases/lookup', {}), 400, 'lease_id must be specified');
  });
});

describe('list (LIST /sys/leases/lookup/:prefix) needs sudo', () => {
  it('403 without sudo; the ids and folders with it; 404 when empty', async () => {
    const a = await issue('db/creds/ro');
    await issue('db/creds/ro/deeper');
    await refused(req('LIST', '/sys/leases/lookup/db/creds/ro', undefined, t.user), 403, /denied/);
    const r = await req('LIST', '/sys/leases/lookup/db/creds/ro/', undefined, t.admin);
    expect(r.status).toBe(200);
    expect(r.json.data.keys).toEqual([a.lease_id.slice('db/creds/ro/'.length), 'deeper/'].sort());
    expect((await req('LIST', '/sys/leases/lookup/db/other', undefined, t.root)).status).toBe(404);
  });

  it('the top level (`LIST sys/leases/lookup/`, an empty prefix) lists the first folders, as Vault', async () => {
    await issue('db/creds/ro');
    await refused(req('LIST', '/sys/leases/lookup/', undefined, t.user), 403, /denied/);
    for (const path of [
      '/sys/leases/lookup/',
      '/sys/leases/lookup',
      '/sys/leases/lookup?list=true',
    ]) {
      const r = await req(path.includes('?') ? 'GET' : 'LIST', path, undefined, t.admin);
      expect(r.status, path).toBe(200);
      expect(r.json.data.keys, path).toContain('db/');
      expect(
        r.json.data.keys.every((k: string) => k.endsWith('/')),
        path,
      ).toBe(true);
    }
  });
});

describe('renew (active → active)', () => {
  it('extends the expiry by the increment; the path form works; a body naming another lease is 400', async () => {
    const { lease_id } = await issue();
    t.clock.advance(1_000_000);
    const r = await req('POST', '/sys/leases/renew', { lease_id, increment: '2h' }, t.user);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ lease_id, renewable: true, lease_duration: 7200 });
    const look = await t.leases.lookup(lease_id);
    expect(look.expire_time).toBe(new Date(t.clock.now() + 7_200_000).toISOString());
    expect(look.last_renewal).toBe(new Date(t.clock.now()).toISOString());
    const other = await issue('db/creds/other');
    const p = await req('POST', `/sys/leases/renew/${other.lease_id}`, { increment: 60 }, t.user);
    expect(p.json).toMatchObject({ lease_id: other.lease_id, lease_duration: 60 });
    const both = await req('POST', `/sys/leases/renew/${other.lease_id}`, {
      lease_id,
      increment: 30,
    });
    expect(both.status).toBe(400); // the ACL saw the path's lease, not the body's (issue 15 item 7)
    const body = await req('POST', '/sys/leases/renew', { lease_id, increment: 30 });
    expect(body.json.lease_id).toBe(lease_id);
    // The renewed lease expires at its new time, not the old one.
    t.clock.advance(3_600_000);
    await t.leases.tick();
    expect(t.revoked.map((l) => l.lease_id)).toEqual([lease_id, other.lease_id]); // +30 s, +60 s
  });

  it('refuses a token lease: tokens renew through the token endpoints (400)', async () => {
    const rootCtx = await t.tokens.authenticate(t.root);
    if (!rootCtx) throw new Error('no root');
    await t.tokens.create(rootCtx, { ttl: '1h' });
    const listed = await req('LIST', '/sys/leases/lookup/auth/token/create/');
    const tokenLeases: string[] = listed.json.data.keys;
    expect(tokenLeases.length).toBeGreaterThanOrEqual(1);
    const lease_id = `auth/token/create/${tokenLeases[0]}`;
    await refused(
      req('POST', '/sys/leases/renew', { lease_id }),
      400,
      'tokens cannot be renewed through this endpoint',
    );
  });

  it('refuses an unknown lease, a non-renewable one, an expired one, an irrevocable one (400)', async () => {
    await refused(req('POST', '/sys/leases/renew', { lease_id: 'db/x/y' }), 400, 'lease not found');
    await refused(req('POST', '/sys/leases/renew', {}), 400, 'lease_id must be specified');
    const fixed = await issue('db/fixed', { renewable: false });
    await refused(
      req('POST', '/sys/leases/renew', { lease_id: fixed.lease_id }),
      400,
      'lease is not renewable',
    );
    const short = await issue('db/short', { ttl: 10 });
    t.clock.advance(10_000); // expired, not yet revoked (no tick)
    await refused(
      req('POST', '/sys/leases/renew', { lease_id: short.lease_id }),
      400,
      'lease expired',
    );
    t.failWith.error = Object.assign(new Error('gone'), { unrecoverable: true });
    await t.leases.tick(); // short: irrevocable at once
    await refused(
      req('POST', '/sys/leases/renew', { lease_id: short.lease_id }),
      400,
      'lease is expired and has failed previous revocation attempts',
    );
  });
});

describe('revoke (active → revoked)', () => {
  it('default: synchronous, 204, the revoker has run and the lease is gone', async () => {
    const { lease_id } = await issue();
    const r = await req('POST', '/sys/leases/revoke', { lease_id }, t.user);
    expect(r.status).toBe(204);
    expect(t.revoked.map((l) => l.lease_id)).toEqual([lease_id]);
    await refused(req('POST', '/sys/leases/lookup', { lease_id }), 400, 'invalid lease');
  });

  it('sync false: 202, queued durably, revoked in the background; the path form', async () => {
    const { lease_id } = await issue();
    const r = await req('POST', `/sys/leases/revoke/${lease_id}`, { sync: false }, t.user);
    expect(r.status).toBe(202);
    await t.leases.idle();
    expect(t.revoked.map((l) => l.lease_id)).toEqual([lease_id]);
    expect(await t.leases.list('db/creds/ro')).toEqual({ keys: [] });
  });

  it('an unknown lease is a no-op (204); a failing revoker is a 400 with its error (as Vault) and the lease is kept', async () => {
    expect((await req('POST', '/sys/leases/revoke', { lease_id: 'db/none/x' })).status).toBe(204);
    const { lease_id } = await issue();
    t.failWith.error = new Error('database unreachable');
    const r = await req('POST', '/sys/leases/revoke', { lease_id });
    expect(r.status).toBe(400);
    expect(r.json.errors[0]).toContain('database unreachable');
    const look = await req('POST', '/sys/leases/lookup', { lease_id });
    expect(look.status).toBe(200);
    expect(look.json.data.renewable).toBe(false); // retried in the background, not renewable
  });
});

describe('revoke-prefix (sudo; active → revoked)', () => {
  it('403 without sudo, nothing revoked; with sudo every lease under the prefix, only those', async () => {
    const a = await issue('db/creds/ro');
    const b = await issue('db/creds/ro');
    const c = await issue('db/creds/rw');
    await refused(req('POST', '/sys/leases/revoke-prefix/db/creds/ro', {}, t.user), 403, /denied/);
    expect(t.revoked).toEqual([]);
    const r = await req('POST', '/sys/leases/revoke-prefix/db/creds/ro', {}, t.admin);
    expect(r.status).toBe(204);
    expect(t.revoked.map((l) => l.lease_id).sort()).toEqual([a.lease_id, b.lease_id].sort());
    expect((await req('POST', '/sys/leases/lookup', { lease_id: c.lease_id })).status).toBe(200);
  });

  it('sync false: 202 and revoked in the background', async () => {
    const a = await issue('db/creds/ro');
    const r = await req('POST', '/sys/leases/revoke-prefix/db/', { sync: false }, t.admin);
    expect(r.status).toBe(202);
    await t.leases.idle();
    expect(t.revoked.map((l) => l.lease_id)).toEqual([a.lease_id]);
  });
});

describe('revoke-prefix and revoke-force: the ACL path keeps a trailing slash, as Vault', () => {
  it('a rule on …/db/* grants …/db/ (what `vault lease revoke -prefix db/` sends); one on …/db alone does not', async () => {
    const rootCtx = (await t.tokens.authenticate(t.root)) as TokenContext;
    const write = (name: string, hcl: string) =>
      req('PUT', `/sys/policy/${name}`, { policy: hcl }).then((r) => expect(r.status).toBe(204));
    await write(
      'db-glob',
      `path "sys/leases/revoke-prefix/db/*" { capabilities = ["update", "sudo"] }
path "sys/leases/revoke-force/db/*" { capabilities = ["update", "sudo"] }`,
    );
    await write(
      'db-exact',
      `path "sys/leases/revoke-prefix/db" { capabilities = ["update", "sudo"] }`,
    );
    const token = async (policy: string) =>
      (await t.tokens.create(rootCtx, { policies: [policy], ttl: '1h' })).client_token;
    const glob = await token('db-glob');
    const exact = await token('db-exact');
    const a = await issue('db/creds/ro');
    await refused(req('POST', '/sys/leases/revoke-prefix/db/', {}, exact), 403, /denied/);
    expect((await req('POST', '/sys/leases/revoke-prefix/db', {}, exact)).status).toBe(204);
    expect(t.revoked.map((l) => l.lease_id)).toEqual([a.lease_id]);
    const b = await issue('db/creds/ro');
    await refused(req('POST', '/sys/leases/revoke-prefix/db', {}, glob), 403, /denied/);
    expect((await req('POST', '/sys/leases/revoke-prefix/db/', {}, glob)).status).toBe(204);
    const c = await issue('db/creds/ro');
    expect((await req('POST', '/sys/leases/revoke-force/db/?x=1', {}, glob)).status).toBe(204);
    expect(t.revoked.map((l) => l.lease_id)).toEqual([a.lease_id, b.lease_id, c.lease_id]);
    await refused(
      req('POST', '/sys/leases/lookup', { lease_id: c.lease_id }),
      400,
      'invalid lease',
    );
  });
});

describe('revoke-force (sudo; active → revoked, backend errors ignored)', () => {
  it('403 without sudo; with sudo the leases are removed although the revoker fails', async () => {
    const a = await issue('db/creds/ro');
    const gone = await issue('db/creds/ro', { ttl: 1 });
    t.failWith.error = Object.assign(new Error('role deleted'), { unrecoverable: true });
    t.clock.advance(1_000);
    await t.leases.tick(); // `gone` is now irrevocable
    expect((await req('GET', '/sys/leases/count?type=irrevocable')).json.data.lease_count).toBe(1);
    await refused(req('POST', '/sys/leases/revoke-force/db/creds', {}, t.user), 403, /denied/);
    expect((await req('POST', '/sys/leases/lookup', { lease_id: a.lease_id })).status).toBe(200);
    const r = await req('POST', '/sys/leases/revoke-force/db/creds', {}, t.admin);
    expect(r.status).toBe(204);
    for (const id of [a.lease_id, gone.lease_id]) {
      await refused(req('POST', '/sys/leases/lookup', { lease_id: id }), 400, 'invalid lease');
    }
    expect((await req('GET', '/sys/leases/count?type=irrevocable')).json.data).toEqual({
      lease_count: 0,
      counts: {},
    });
  });
});

describe('tidy (dangling → revoked)', () => {
  it('202 with Vault’s warning; leases whose token is revoked or expired are revoked', async () => {
    const live = await t.leases.issue({ path: 'db/a', ttl: '48h', renewable: true, token: t.user });
    // A token of a minute, whose expiry is not processed (no tick): its lease dangles.
    const rootCtx = (await t.tokens.authenticate(t.root)) as TokenContext;
    const brief = (await t.tokens.create(rootCtx, { policies: ['leases-user'], ttl: 60 }))
      .client_token;
    const dead = await t.leases.issue({ path: 'db/b', ttl: 3600, renewable: true, token: brief });
    t.clock.advance(61_000);
    const r = await req('POST', '/sys/leases/tidy', {});
    expect(r.status).toBe(202);
    expect(r.json.warnings.join(' ')).toMatch(/^Tidy operation successfully started\./);
    expect(r.json.data).toBeNull(); // as Vault: the pass runs in the background
    await t.leases.idle();
    expect(t.revoked.map((l) => l.lease_id)).toEqual([dead.lease_id]);
    // The user's token (24h) expires: its lease is now dangling too.
    t.clock.advance(24 * 3_600_000);
    expect(t.revoked).toHaveLength(1);
    const r2 = await req('POST', '/sys/leases/tidy', {});
    expect(r2.status).toBe(202);
    await t.leases.idle();
    expect(t.revoked.map((l) => l.lease_id)).toContain(live.lease_id);
  });
});

describe('a token and its leases', () => {
  it('revoking a token over HTTP revokes the leases issued with it (Vault’s revoke-tree)', async () => {
    const l = await t.leases.issue({ path: 'db/a', ttl: 3600, renewable: true, token: t.user });
    const other = await t.leases.issue({
      path: 'db/b',
      ttl: 3600,
      renewable: true,
      token: t.admin,
    });
    expect((await req('POST', '/auth/token/revoke-self', {}, t.user)).status).toBe(204);
    await t.leases.idle();
    expect(t.revoked.map((x) => x.lease_id)).toEqual([l.lease_id]);
    const lookup = await req('POST', '/sys/leases/lookup', { lease_id: other.lease_id }, t.admin);
    expect(lookup.status).toBe(200);
  });
});

describe('irrevocable leases: count and list', () => {
  async function makeIrrevocable(n: number, mount = 'db/') {
    t.failWith.error = Object.assign(new Error('role deleted'), { unrecoverable: true });
    for (let i = 0; i < n; i++) await issue(`${mount}creds/x`, { ttl: 1 });
    t.clock.advance(1_000);
    await t.leases.tick();
  }

  it('count: total and per mount; another type is a 404', async () => {
    await makeIrrevocable(3);
    const r = await req('GET', '/sys/leases/count?type=irrevocable', undefined, t.user);
    expect(r.status).toBe(200);
    expect(r.json.data).toEqual({ lease_count: 3, counts: { 'db/': 3 } });
    expect((await req('GET', '/sys/leases/count?type=all')).status).toBe(404);
  });

  it('list needs sudo; limit bounds it with Vault’s warning; none lifts it', async () => {
    await makeIrrevocable(3);
    await refused(req('GET', '/sys/leases?type=irrevocable', undefined, t.user), 403, /denied/);
    const all = await req('GET', '/sys/leases?type=irrevocable', undefined, t.admin);
    expect(all.status).toBe(200);
    expect(all.json.data.lease_count).toBe(3);
    expect(all.json.data.leases[0]).toMatchObject({ mount_id: 'db/', error: 'role deleted' });
    const one = await req('GET', '/sys/leases?type=irrevocable&limit=1', undefined, t.admin);
    expect(one.json.data.lease_count).toBe(1);
    expect(one.json.warnings?.[0]).toMatch(/many irrevocable leases/);
    const none = await req('GET', '/sys/leases?type=irrevocable&limit=none', undefined, t.admin);
    expect(none.json.data.lease_count).toBe(3);
    expect(none.json.warnings ?? []).toEqual([]);
  });
});
