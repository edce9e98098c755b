/**
 * `sys/health`'s `cluster_name` and `cluster_id` are the store's (made on its
 * first unseal, kept through the barrier, as Vault keeps them in
 * `core/cluster/local/info`): the same after a restart and on every node of a
 * store. They were a random UUID per process, so monitoring keyed on the id
 * saw a new cluster per node and per restart.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SKIP_REDIS } from '../helpers/redis-server.js';
import { call, startCli } from '../http/helpers.js';
import { startCluster } from '../multi-instance/cluster.js';

const dir = mkdtempSync(join(tmpdir(), 'transitkit-cluster-id-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const clusterId = async (s: { url: string; root: string }) =>
  (await call(s, 'GET', '/v1/sys/health?standbyok=true', { token: null })).json.cluster_id;

describe('cluster_id', () => {
  it('is the same after a restart on the same store', async () => {
    const key = join(dir, 'root.key');
    writeFileSync(key, randomBytes(32).toString('base64'));
    const args = [
      '--storage',
      `file:${join(dir, 'store')}`,
      '--root-key-file',
      key,
      '--initial-root-token',
      'cluster-id-root',
      '--listen',
      '127.0.0.1:0',
    ];
    const first = await startCli(args);
    const a = await clusterId(first);
    await first.stop();
    const second = await startCli(args);
    try {
      const b = await clusterId(second);
      expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(b).toBe(a);
    } finally {
      await second.stop();
    }
  });

  it.skipIf(SKIP_REDIS)(
    'is the same on two nodes sharing one storage',
    async () => {
      const cluster = await startCluster(2);
      try {
        const [a, b] = cluster.nodes;
        const ida = await clusterId(a as never);
        const idb = await clusterId(b as never);
        expect(idb).toBe(ida);
      } finally {
        await cluster.stop();
      }
    },
    60_000,
  );
});
