/**
 * When the body can name what the URL names (issue #15 items 6 and 7), the ACL
 * must hold for what is actually touched:
 *
 * - `transit/restore` without a name restores under the name inside the blob,
 *   so the ACL is checked on `transit/restore/<blob name>` — a deny there
 *   holds, whatever the blob's spelling of the field (Go's JSON matches
 *   `"Name"` too);
 * - the path forms of lease renew and revoke refuse (400) a body `lease_id`
 *   that names another lease, so `sys/leases/revoke/app/*` cannot revoke
 *   `db/…` leases; lookup has no path form that a body could contradict.
 *
 * In process (the fetch binding) on memory storage and a fake clock.
 */
import { beforeEach, describe, expect, it } from 'vitest';
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

/** Restores under any name but `secret`; the bare path too (a Vault-style policy). */
const RESTORER = `
path "transit/restore" { capabilities = ["update"] }
path "transit/restore/*" { capabilities = ["update"] }
path "transit/restore/secret" { capabilities = ["deny"] }
`;
/** Vault's bare-path grant: covers only the bare path, never a blob's name. */
const BARE_RESTORER = 'path "transit/restore" { capabilities = ["update"] }';
const SIGNER = `
path "transit/sign/*" { capabilities = ["update"] }
path "transit/sign/+/sha1" { capabilities = ["deny"] }
path "transit/hmac/*" { capabilities = ["update"] }
path "transit/hmac/+/sha1" { capabilities = ["deny"] }
`;
const APP_LEASES = `
path "sys/leases/revoke/app/*" { capabilities = ["update"] }
path "sys/leases/renew/app/*" { capabilities = ["update"] }
path "sys/leases/lookup/app/*" { capabilities = ["update", "list"] }
`;

interface Ctx {
  transit: Transit;
  leases: LeaseManager;
  handler: TransitHandler;
  root: string;
  token: (policies: string[]) => Promise<string>;
}
let t: Ctx;

beforeEach(async () => {
  const clock = new FakeClock();
  const storage = new MemoryStorage({ clock });
  let tokens: TokenStore | undefined;
  const leases = new LeaseManager({
    storage,
    clock,
    tokenExists: (token) => (tokens as TokenStore).exists(token),
  });
  tokens = new TokenStore({ storage, clock, leases });
  const policies = new AclPolicyStore({ storage });
  await policies.write('restorer', RESTORER);
  await policies.write('bare-restorer', BARE_RESTORER);
  await policies.write('app-leases', APP_LEASES);
  await policies.write('signer', SIGNER);
  leases.registerRevoker('app/', () => undefined);
  leases.registerRevoker('db/', () => undefined);
  const transit = new Transit({ storage, autoRotate: false });
  const handler = createHandler(
    { transit, tokens, policies, leases },
    { logger: { error: () => undefined } },
  );
  const root = await tokens.createRoot();
  const rootCtx = await tokens.authenticate(root);
  if (!rootCtx) throw new Error('no root context');
  const store = tokens;
  const token = async (p: string[]) =>
    (await store.create(rootCtx, { policies: p, ttl: '1h' })).client_token;
  t = { transit, leases, handler, root, token };
});

async function req(method: string, path: string, body: unknown, token: string) {
  const r = await t.handler.fetch(
    new Request(`http://vault.test/v1${path}`, {
      method,
      headers: { 'x-vault-token': token, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  const text = await r.text();
  return { status: r.status, text, json: text === '' ? undefined : JSON.parse(text) };
}

/** A backup of a fresh exportable key `name`. */
async function backupOf(name: string): Promise<string> {
  await t.transit.createKey(name, { exportable: true, allow_plaintext_backup: true });
  return (await t.transit.backupKey(name)).backup;
}

/** The same blob with its `policy.name` field spelled `Name` (Go's JSON still reads it). */
function respell(blob: string): string {
  const text = Buffer.from(blob, 'base64').toString('utf8');
  const swapped = text.replace('"name":', '"Name":');
  expect(swapped).not.toBe(text);
  return Buffer.from(swapped).toString('base64');
}

describe('restore: the ACL sees the name that is written (item 6)', () => {
  it('a deny on transit/restore/secret holds when the name comes from the blob', async () => {
    const blob = await backupOf('secret');
    await t.transit.rotateKey('secret'); // the live key now has 2 versions; the blob has 1
    const token = await t.token(['restorer']);
    const r = await req('POST', '/transit/restore', { backup: blob, force: true }, token);
    expect(r.status, r.text).toBe(403);
    expect(r.json.errors).toEqual(['permission denied']);
    expect((await t.transit.readKey('secret')).latest_version).toBe(2); // not replaced
  });

  it('also for a blob that spells the field "Name"', async () => {
    const blob = respell(await backupOf('secret'));
    await t.transit.rotateKey('secret');
    const token = await t.token(['restorer']);
    const r = await req('POST', '/transit/restore', { backup: blob, force: true }, token);
    expect(r.status, r.text).toBe(403);
    expect((await t.transit.readKey('secret')).latest_version).toBe(2);
  });

  it('the allowed forms still restore: another blob name, a body name, a path name', async () => {
    const token = await t.token(['restorer']);
    const other = await backupOf('other');
    await t.transit.updateKeyConfig('other', { deletion_allowed: true });
    await t.transit.deleteKey('other');
    expect((await req('POST', '/transit/restore', { backup: other }, token)).status).toBe(204);
    const secret = await backupOf('secret');
    const body = { backup: secret, name: 'copy-1' };
    expect((await req('POST', '/transit/restore', body, token)).status).toBe(204);
    expect((await req('POST', '/transit/restore/copy-2', { backup: secret }, token)).status).toBe(
      204,
    );
    // The path name wins over a body name: the deny on the path's name holds.
    const denied = await req('POST', '/transit/restore/secret', { ...body, force: true }, token);
    expect(denied.status).toBe(403);
    expect((await t.transit.readKey('copy-1')).name).toBe('copy-1');
    expect((await t.transit.readKey('copy-2')).name).toBe('copy-2');
  });

  it('a grant on the bare transit/restore no longer covers the blob’s name', async () => {
    const blob = await backupOf('k1');
    const token = await t.token(['bare-restorer']);
    const r = await req('POST', '/transit/restore', { backup: blob, force: true }, token);
    expect(r.status).toBe(403);
  });

  it('a blob without a usable name is a 400, not a 500 or a bypass', async () => {
    const token = await t.token(['restorer']);
    for (const backup of ['!!!', Buffer.from('{"policy":{}}').toString('base64'), 'e30=']) {
      const r = await req('POST', '/transit/restore', { backup, force: true }, token);
      expect([400, 403], r.text).toContain(r.status);
    }
  });
});

describe('sign and hmac: a body algorithm cannot override the path’s', () => {
  it('the path’s algorithm is the one used (and the one the ACL saw)', async () => {
    await t.transit.createKey('ec', { type: 'ecdsa-p256' });
    await t.transit.createKey('h', {});
    const token = await t.token(['signer']);
    const input = Buffer.from('m').toString('base64');
    for (const body of [
      { input, algorithm: 'sha1' },
      { input, hash_algorithm: 'sha1' },
      { input, hash_algorithm: 'sha1', algorithm: 'sha1' },
    ]) {
      const r = await req('POST', '/transit/sign/ec/sha2-256', body, token);
      expect(r.status, r.text).toBe(200);
      const { signature } = r.json.data;
      const v256 = await t.transit.verify('ec', { input, signature, hash_algorithm: 'sha2-256' });
      expect(v256.valid).toBe(true);
    }
    const h = await req('POST', '/transit/hmac/h/sha2-256', { input, algorithm: 'sha1' }, token);
    expect(h.status, h.text).toBe(200);
    const want = await t.transit.hmac('h', { input, algorithm: 'sha2-256' });
    expect(h.json.data.hmac).toBe((want as { hmac: string }).hmac);
    // The body alone naming sha1 meets the deny.
    expect(
      (await req('POST', '/transit/sign/ec', { input, algorithm: 'sha1' }, token)).status,
    ).toBe(403);
  });
});

describe('leases: the path form and the body must name the same lease (item 7)', () => {
  async function leasePair() {
    const mine = await t.leases.issue({ path: 'app/creds/a', ttl: 3600, renewable: true });
    const theirs = await t.leases.issue({ path: 'db/creds/b', ttl: 3600, renewable: true });
    return { mine: mine.lease_id, theirs: theirs.lease_id, token: await t.token(['app-leases']) };
  }

  it('revoke: a body naming another lease is refused (400) and that lease lives', async () => {
    const { mine, theirs, token } = await leasePair();
    const r = await req('POST', `/sys/leases/revoke/${mine}`, { lease_id: theirs }, token);
    expect(r.status, r.text).toBe(400);
    expect(r.json.errors.join(' ')).toMatch(/lease_id/);
    expect(r.text).not.toContain(theirs);
    expect((await t.leases.lookup(theirs)).id).toBe(theirs);
    expect((await t.leases.lookup(mine)).id).toBe(mine);
  });

  it('renew: the same rule', async () => {
    const { mine, theirs, token } = await leasePair();
    const r = await req('POST', `/sys/leases/renew/${mine}`, { lease_id: theirs }, token);
    expect(r.status, r.text).toBe(400);
  });

  it('the path form alone, or with the same id in the body, still works', async () => {
    const { mine, token } = await leasePair();
    const renew = await req('POST', `/sys/leases/renew/${mine}`, { lease_id: mine }, token);
    expect(renew.status, renew.text).toBe(200);
    expect((await req('POST', `/sys/leases/revoke/${mine}`, {}, token)).status).toBe(204);
  });

  it('the bare forms are checked on the bare path (no grant there: 403)', async () => {
    const { mine, theirs, token } = await leasePair();
    for (const op of ['revoke', 'renew', 'lookup']) {
      expect((await req('POST', `/sys/leases/${op}`, { lease_id: theirs }, token)).status).toBe(
        403,
      );
      expect((await req('POST', `/sys/leases/${op}`, { lease_id: mine }, token)).status).toBe(403);
    }
  });

  it('an encoded dot segment in the path form is a bad path (400), not app/../db', async () => {
    const { theirs, token } = await leasePair();
    for (const p of [`app%2F..%2F${theirs}`, `app%2F%2E%2E%2F${theirs}`, `app%2F.%2F..%2Fx`]) {
      const r = await req('POST', `/sys/leases/revoke/${p}`, {}, token);
      expect(r.status, p).toBe(400);
      expect(r.json.errors).toEqual(['invalid request path']);
    }
    expect((await t.leases.lookup(theirs)).id).toBe(theirs);
  });

  it('lookup has no path form a body could contradict', async () => {
    const { mine, theirs, token } = await leasePair();
    const r = await req('POST', `/sys/leases/lookup/${mine}`, { lease_id: theirs }, token);
    expect(r.status).toBe(405);
    expect(r.text).not.toContain('expire_time');
  });
});
