/**
 * The node's metrics (src/node/node-metrics.ts): sealed, active and
 * initialized across the life cycle (uninitialised → sealed → unsealed →
 * sealed), storage operations labelled with the node's storage type, the
 * engine's and leases' metrics of each unsealed period, and audit failures
 * counted from the broker's onFailure (the request fails closed).
 */
import { MemoryStorage, TransitNode } from 'transitkit';
import { describe, expect, it } from 'vitest';
import { RecordingMetrics } from './recording.js';

const SEALED = 'transitkit_node_sealed';
const ACTIVE = 'transitkit_node_active';
const INITIALIZED = 'transitkit_node_initialized';

describe('node metrics', () => {
  it('reports initialized, sealed and active through the life cycle', async () => {
    const metrics = new RecordingMetrics();
    const node = new TransitNode({
      storage: new MemoryStorage(),
      metrics,
      storageType: 'inmem',
      leases: { tickMs: false },
    });
    const state = async () => [
      await metrics.value(INITIALIZED),
      await metrics.value(SEALED),
      await metrics.value(ACTIVE),
    ];
    expect(await state()).toEqual([0, 1, 0]);
    const { keys } = await node.init({ secret_shares: 1, secret_threshold: 1 });
    expect(await state()).toEqual([1, 1, 0]);
    await node.unseal({ key: keys[0] });
    expect(await state()).toEqual([1, 0, 1]);
    await node.transit.createKey('k');
    await node.transit.encrypt('k', { plaintext: btoa('x') });
    expect(
      metrics.count('transitkit_crypto_operations_total', {
        operation: 'encrypt',
        key_type: 'aes256-gcm96',
      }),
    ).toBe(1);
    expect(
      metrics.observed('transitkit_storage_operation_duration_seconds', {
        adapter: 'inmem',
        operation: 'put',
      }).length,
    ).toBeGreaterThan(0);
    expect(await metrics.value('transitkit_leases_active')).toBe(0);
    await node.seal();
    expect(await state()).toEqual([1, 1, 0]);
    // The sealed period's lease gauges are gone with its services.
    expect(await metrics.collect('transitkit_leases_active')).toBeUndefined();
  });

  it('counts audit entries a device failed to record, by device and entry', async () => {
    const metrics = new RecordingMetrics();
    const seen: string[] = [];
    const node = new TransitNode({
      storage: new MemoryStorage(),
      rootKey: new Uint8Array(32).fill(3),
      metrics,
      leases: { tickMs: false },
      audit: {
        sink: () => {
          throw new Error('sink down');
        },
        onFailure: (info) => seen.push(`${info.path} ${info.entry}`),
        logger: { error: () => undefined },
      },
    });
    await node.start();
    expect(node.audit.active).toBe(true);
    const failure = await node.audit
      .logRequest({
        id: 'req-1',
        operation: 'update',
        mountPoint: 'transit/',
        mountType: 'transit',
        path: 'transit/encrypt/k',
        data: {},
        time: Date.now(),
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(String(failure)).toContain('audit failure');
    expect(
      metrics.count('transitkit_audit_failures_total', { device: 'sink', entry: 'request' }),
    ).toBe(1);
    // The application's own onFailure still hears it.
    expect(seen).toEqual(['sink request']);
    await node.close();
  });
});
