/**
 * A storage call that never answers does not hold a seal: the engine's
 * start-up read (its persisted settings) and a lease tick in flight are each
 * waited for 2 s at most, as the auto-rotation pass is, so `TransitNode.seal()`
 * and every state change queued behind it on the node's chain finish.
 */
import { expect, it } from 'vitest';
import { MemoryStorage, TransitNode } from '../../src/index.js';
import { Gate } from '../helpers/gated-storage.js';

it('seal() finishes while the engine start-up read hangs', async () => {
  const inner = new MemoryStorage();
  const gate = new Gate(inner);
  const node = new TransitNode({ storage: gate, leases: { tickMs: false } });
  const init = await node.init({ secret_shares: 1, secret_threshold: 1 });
  // The engine made at unseal reads its settings: that read hangs (a store gone quiet).
  gate.arm({ op: 'get', match: (k) => k.startsWith('transit/config/') });
  await node.unseal({ key: init.keys[0] as string });
  await gate.held();
  let sealed = false;
  const seal = node.seal().then(() => {
    sealed = true;
  });
  await new Promise((r) => setTimeout(r, 3_500));
  const done = sealed;
  gate.release();
  await seal;
  expect(done).toBe(true);
  expect(node.sealed).toBe(true);
});

it('LeaseManager.stop() finishes while a tick storage call hangs', async () => {
  const { LeaseManager } = await import('../../src/index.js');
  const inner = new MemoryStorage();
  const gate = new Gate(inner);
  const lm = new LeaseManager({ storage: gate, leaderTtlMs: 1_000, leaderRefreshMs: 400 });
  await lm.tick();
  // The next tick's listing of due leases hangs (a store gone quiet).
  gate.arm({ op: 'list', match: (k) => k.startsWith('sys/leases/expiry/') });
  const tick = lm.tick().catch(() => undefined);
  await gate.held();
  let stopped = false;
  const stop = lm.stop().then(() => {
    stopped = true;
  });
  await new Promise((r) => setTimeout(r, 3_500));
  const done = stopped;
  gate.release();
  await stop;
  await tick;
  expect(done).toBe(true);
});
