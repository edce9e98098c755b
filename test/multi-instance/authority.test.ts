/**
 * Many instances, one authority (issue #15, items 1 and 2), with real
 * processes: two `transitkit server` CLI processes on one real redis-server
 * (`--storage redis://…`, auto-unseal from one root key file).
 *
 * - a policy rewritten to `deny`, or deleted, on A is enforced by B;
 * - a token revoked on A is refused by B;
 * - `disable_upsert` set on A is enforced by B;
 * - a keyring rotated on A is used by B's next writes;
 * - a certificate set on A on an archived version of a key pair shows in B's
 *   read body (B keeps that listing between calls);
 * - a deny policy whose stored entry fails barrier authentication refuses
 *   (500) on every instance, every time, and never grants.
 *
 * Every wait is a poll with a generous deadline; no timing is asserted (the
 * propagation figures come from bench/propagation.bench.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisStorage } from '../../adapters/redis/index.js';
import { NO_REDIS_REASON, SKIP_REDIS } from '../helpers/redis-server.js';
import { b64, type CliServer } from '../http/helpers.js';
import { makeCa } from '../transit/ca-support.js';
import { as, type Cluster, createToken, eventually, startCluster, writePolicy } from './cluster.js';

const ALLOW = 'path "transit/encrypt/*" { capabilities = ["create", "update"] }';
const DENY_SECRET = 'path "transit/encrypt/secret" { capabilities = ["deny"] }';
const body = { plaintext: b64('attack at dawn') };

if (SKIP_REDIS) it.skip(`multi-instance [skipped: ${NO_REDIS_REASON}]`);

describe.skipIf(SKIP_REDIS)('two server processes on one Redis', () => {
  let cluster: Cluster;
  let raw: RedisStorage;
  beforeAll(async () => {
    cluster = await startCluster(2);
    raw = await RedisStorage.connect(cluster.redis.url);
  }, 120_000);
  afterAll(async () => {
    await raw?.close();
    await cluster?.stop();
  });

  const encrypt = (node: 0 | 1, token: string, key: string) =>
    as(cluster.nodes[node] as CliServer, token, 'POST', `/v1/transit/encrypt/${key}`, body);

  it('a policy rewritten to deny on A is enforced by B', async () => {
    const [a] = cluster.nodes as [CliServer, CliServer];
    await writePolicy(a, 'p-rewrite', ALLOW);
    const token = await createToken(a, ['p-rewrite']);
    expect((await encrypt(1, token, 'secret')).status).toBe(200); // B caches the ACL
    await writePolicy(a, 'p-rewrite', DENY_SECRET);
    await eventually(
      async () => (await encrypt(1, token, 'secret')).status === 403,
      'B refuses after the rewrite on A',
    );
  }, 60_000);

  it('a policy deleted on A stops granting on B', async () => {
    const [a] = cluster.nodes as [CliServer, CliServer];
    await writePolicy(a, 'p-delete', ALLOW);
    const token = await createToken(a, ['p-delete']);
    expect((await encrypt(1, token, 'k1')).status).toBe(200);
    const del = await as(a, cluster.root, 'DELETE', '/v1/sys/policies/acl/p-delete');
    expect(del.status).toBe(204);
    await eventually(
      async () => (await encrypt(1, token, 'k1')).status === 403,
      'B refuses after the delete on A',
    );
  }, 60_000);

  it('a token revoked on A is refused by B', async () => {
    const [a] = cluster.nodes as [CliServer, CliServer];
    await writePolicy(a, 'p-revoke', ALLOW);
    const token = await createToken(a, ['p-revoke']);
    expect((await encrypt(1, token, 'k2')).status).toBe(200);
    expect((await as(a, cluster.root, 'POST', '/v1/auth/token/revoke', { token })).status).toBe(
      204,
    );
    await eventually(
      async () => (await encrypt(1, token, 'k2')).status === 403,
      'B refuses the revoked token',
    );
  }, 60_000);

  it('disable_upsert set on A is enforced by B', async () => {
    const [a] = cluster.nodes as [CliServer, CliServer];
    expect((await encrypt(1, cluster.root, 'upsert-1')).status).toBe(200);
    const set = await as(a, cluster.root, 'POST', '/v1/transit/config/keys', {
      disable_upsert: true,
    });
    expect(set.status).toBe(200);
    await eventually(
      async () => (await encrypt(1, cluster.root, `upsert-${Date.now()}`)).status === 400,
      'B refuses to upsert',
    );
    await as(a, cluster.root, 'POST', '/v1/transit/config/keys', { disable_upsert: false });
    await eventually(
      async () => (await encrypt(1, cluster.root, `upsert-${Date.now()}`)).status === 200,
      'B upserts again',
    );
  }, 60_000);

  it('a keyring rotated on A is used by B for its next writes', async () => {
    const [a, b] = cluster.nodes as [CliServer, CliServer];
    const rotated = await as(a, cluster.root, 'POST', '/v1/sys/rotate');
    expect(rotated.status).toBe(204);
    const term = (await as(a, cluster.root, 'GET', '/v1/sys/key-status')).json.term as number;
    expect(term).toBeGreaterThan(1);
    let i = 0;
    await eventually(async () => {
      const name = `rot-${++i}`;
      const r = await as(b, cluster.root, 'POST', `/v1/transit/keys/${name}`, {});
      if (r.status !== 200 && r.status !== 204) throw new Error(`create: ${r.status} ${r.text}`);
      const entry = (await raw.get(`transit/policy/${name}`)) as Uint8Array;
      return new DataView(entry.buffer, entry.byteOffset).getUint32(1) === term;
    }, 'B seals new entries with the new term');
    expect((await as(b, cluster.root, 'GET', '/v1/sys/key-status')).json.term).toBe(term);
  }, 60_000);

  it("a certificate set on A on an archived version of a key pair shows in B's read body", async () => {
    const [a, b] = cluster.nodes as [CliServer, CliServer];
    const root = cluster.root;
    const path = '/v1/transit/keys/cert-k';
    expect((await as(a, root, 'POST', path, { type: 'ecdsa-p256' })).status).toBe(200);
    for (let i = 0; i < 79; i++)
      expect((await as(a, root, 'POST', `${path}/rotate`)).status).toBe(200);
    // B lists 80 versions, keeps the listing (64 or more), and extends it with its own rotate.
    const chainOf = (r: Awaited<ReturnType<typeof as>>, v: number) =>
      (r.json.data.keys[String(v)] as { certificate_chain: string }).certificate_chain;
    expect(Object.keys((await as(b, root, 'GET', path)).json.data.keys)).toHaveLength(80);
    const rotated = await as(b, root, 'POST', `${path}/rotate`);
    expect(Object.keys(rotated.json.data.keys)).toHaveLength(81);
    expect(chainOf(rotated, 3)).toBe('');
    const csr = (await as(a, root, 'POST', `${path}/csr`, { version: 3 })).json.data.csr as string;
    const ca = makeCa('multi-instance CA');
    const set = await as(a, root, 'POST', `${path}/set-certificate`, {
      certificate_chain: ca.issue(csr) + ca.pem,
      version: 3,
    });
    expect(set.status, set.text).toBe(200);
    const onA = (await as(a, root, 'GET', path)).json.data.keys;
    expect(onA['3'].certificate_chain).toMatch(/^-----BEGIN CERTIFICATE-----/);
    await eventually(
      async () => chainOf(await as(b, root, 'GET', path), 3) !== '',
      "B's read body shows the certificate",
    );
    expect((await as(b, root, 'GET', path)).json.data.keys).toEqual(onA);
  }, 60_000);

  it('a deny policy that fails barrier authentication refuses everywhere, never grants', async () => {
    const [a] = cluster.nodes as [CliServer, CliServer];
    await writePolicy(a, 'p-app', ALLOW);
    await writePolicy(a, 'p-guard', DENY_SECRET);
    const token = await createToken(a, ['p-app', 'p-guard']);
    const entry = (await raw.get('sys/policy/acl/p-guard')) as Uint8Array;
    const tampered = entry.slice();
    tampered[tampered.length - 1] = (tampered[tampered.length - 1] as number) ^ 1;
    await raw.put('sys/policy/acl/p-guard', tampered); // publishes: every instance reloads
    for (const node of [0, 1] as const) {
      await eventually(
        async () => (await encrypt(node, token, 'secret')).status === 500,
        `instance ${node} fails closed`,
      );
      // Not cached as "absent": still refused, and the other paths fail too.
      expect((await encrypt(node, token, 'secret')).status).toBe(500);
      expect((await encrypt(node, token, 'other')).status).toBe(500);
    }
    await raw.put('sys/policy/acl/p-guard', entry); // repaired
    await eventually(
      async () => (await encrypt(1, token, 'other')).status === 200,
      'B reads the repaired policy',
    );
    expect((await encrypt(1, token, 'secret')).status).toBe(403);
  }, 60_000);
});
