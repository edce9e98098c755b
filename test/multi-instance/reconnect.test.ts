/**
 * Change notifications lost while an instance's Redis subscriber is
 * disconnected (issue #15, item 1). Two `transitkit server` processes on one
 * real redis-server; every pub/sub connection is killed and kept out
 * (`maxclients`) while A deletes a transit key and the only ACL policy. Redis
 * pub/sub does not queue, and the replay after a reconnection can list only
 * keys that still exist; so the feed also reports each watched prefix itself
 * ("anything under it may have changed"), and B must drop its caches: the
 * deleted key no longer decrypts there, the deleted policy no longer grants.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_REDIS_REASON, SKIP_REDIS } from '../helpers/redis-server.js';
import { b64, type CliServer } from '../http/helpers.js';
import { as, type Cluster, createToken, eventually, startCluster, writePolicy } from './cluster.js';

if (SKIP_REDIS) it.skip(`multi-instance reconnect [skipped: ${NO_REDIS_REASON}]`);

describe.skipIf(SKIP_REDIS)('deletions while B is not subscribed', () => {
  let cluster: Cluster;
  let admin: Redis;
  beforeAll(async () => {
    cluster = await startCluster(2);
    admin = new Redis(cluster.redis.url, { lazyConnect: true });
    await admin.connect();
  }, 120_000);
  afterAll(async () => {
    await admin?.config('SET', 'maxclients', '10000').catch(() => undefined);
    admin?.disconnect();
    await cluster?.stop();
  });

  /** Kill every pub/sub connection and refuse new connections until the returned call. */
  async function cutSubscribers(): Promise<() => Promise<void>> {
    const info = String(await admin.info('clients'));
    const connected = Number(/connected_clients:(\d+)/.exec(info)?.[1]);
    const pubsub = String(await admin.call('CLIENT', 'LIST', 'TYPE', 'pubsub'))
      .split('\n')
      .filter((l) => l.trim() !== '').length;
    expect(pubsub).toBeGreaterThanOrEqual(2);
    await admin.config('SET', 'maxclients', String(connected - pubsub));
    await admin.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
    return async () => {
      await admin.config('SET', 'maxclients', '10000');
    };
  }

  it('a key and a policy deleted on A meanwhile are forgotten by B once it is back', async () => {
    const [a, b] = cluster.nodes as [CliServer, CliServer];
    const root = cluster.root;
    expect((await as(a, root, 'POST', '/v1/transit/keys/shred', {})).status).toBe(200);
    const cfg = await as(a, root, 'POST', '/v1/transit/keys/shred/config', {
      deletion_allowed: true,
    });
    expect(cfg.status).toBe(200);
    await writePolicy(
      a,
      'only',
      'path "transit/encrypt/*" { capabilities = ["create", "update"] }',
    );
    const token = await createToken(a, ['only']);
    const ct = (await as(b, root, 'POST', '/v1/transit/encrypt/shred', { plaintext: b64('x') }))
      .json.data.ciphertext as string;
    const decryptOnB = () =>
      as(b, root, 'POST', '/v1/transit/decrypt/shred', { ciphertext: ct }).then((r) => r.status);
    const encryptOnB = () =>
      as(b, token, 'POST', '/v1/transit/encrypt/other', { plaintext: b64('x') }).then(
        (r) => r.status,
      );
    expect(await decryptOnB()).toBe(200); // B has the key and the policy cached
    expect(await encryptOnB()).toBe(200);

    const restore = await cutSubscribers();
    try {
      expect((await as(a, root, 'DELETE', '/v1/transit/keys/shred')).status).toBe(204);
      expect((await as(a, root, 'DELETE', '/v1/sys/policies/acl/only')).status).toBe(204);
    } finally {
      await restore();
    }
    await eventually(async () => (await decryptOnB()) === 400, 'B forgets the deleted key');
    await eventually(async () => (await encryptOnB()) === 403, 'B forgets the deleted policy');
  }, 90_000);
});
