/**
 * `sys/health`'s `cluster_name` and `cluster_id`: the handler's options win
 * (as `version`); without them an unsealed `TransitNode` reports its store's
 * (the same from every handler and node on that store); a sealed one reports
 * neither, as Vault.
 */
import { expect, it } from 'vitest';
import { createHandler } from '../../adapters/http/index.js';
import { MemoryStorage, TransitNode } from '../../src/index.js';

type Body = { cluster_name?: string; cluster_id?: string };
const healthOf = async (handler: ReturnType<typeof createHandler>): Promise<Body> =>
  (await (
    await handler.fetch(new Request('http://x/v1/sys/health?sealedcode=200'))
  ).json()) as Body;

it('the options win; else the store’s identity, the same from every handler; none while sealed', async () => {
  const node = new TransitNode({
    storage: new MemoryStorage(),
    rootKey: new Uint8Array(32).fill(3),
  });
  await node.start();
  try {
    const clusterId = '11111111-2222-4333-8444-555555555555';
    const given = await healthOf(createHandler(node, { clusterName: 'prod-eu', clusterId }));
    expect(given).toMatchObject({ cluster_name: 'prod-eu', cluster_id: clusterId });
    const first = await healthOf(createHandler(node));
    const second = await healthOf(createHandler(node));
    expect(first.cluster_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(first.cluster_name).toBe(`vault-cluster-${first.cluster_id?.slice(0, 8)}`);
    expect(second).toMatchObject({
      cluster_name: first.cluster_name,
      cluster_id: first.cluster_id,
    });
    await node.seal();
    const sealed = await healthOf(createHandler(node));
    expect(sealed.cluster_id).toBeUndefined();
    expect(sealed.cluster_name).toBeUndefined();
  } finally {
    await node.close();
  }
});
