/**
 * Nodes for the seal tests: an auto-unseal node with key `k`, a Shamir node
 * (one share) over a {@link Gate} whose storage calls can be held, and the
 * TKS1 envelope of a buffer. Not a test file.
 */
import { MemoryStorage, TransitNode } from '../../src/index.js';
import { Gate } from './gated-storage.js';

/** An auto-unseal node over memory (no lease ticks), started, with key `k`. */
export async function autoNodeWithKey(): Promise<TransitNode> {
  const node = new TransitNode({
    storage: new MemoryStorage(),
    rootKey: new Uint8Array(32).fill(1),
    leases: { tickMs: false },
  });
  await node.start();
  await node.transit.createKey('k');
  return node;
}

/** A Shamir node (one share) over a gate on memory, unsealed. */
export async function gatedShamirNode(): Promise<{
  inner: MemoryStorage;
  gate: Gate;
  node: TransitNode;
  key: string;
  rootToken: string;
}> {
  const inner = new MemoryStorage();
  const gate = new Gate(inner);
  const node = new TransitNode({ storage: gate, leases: { tickMs: false } });
  const init = await node.init({ secret_shares: 1, secret_threshold: 1 });
  const key = init.keys[0] as string;
  await node.unseal({ key });
  return { inner, gate, node, key, rootToken: init.root_token };
}

/** The TKS1 envelope of `plain` under `node`'s key `k`. */
export async function envelopeOf(node: TransitNode, plain: Uint8Array): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  const out = new Blob([plain as BlobPart]).stream().pipeThrough(node.transit.encryptStream('k'));
  for await (const c of out as unknown as AsyncIterable<Uint8Array>) chunks.push(c);
  return new Uint8Array(await new Blob(chunks as BlobPart[]).arrayBuffer());
}
