/**
 * Rollback (issue 15, item 12): the barrier authenticates an entry's content
 * and path, not its freshness. Putting back an older, authentic copy of a
 * revoked token's entries revives the token. transitkit does not claim to
 * detect this: SECURITY.md says so plainly, with the deployment advice. This
 * test pins the behaviour and the document together, so that whoever adds
 * rollback detection must also change the promise (and the other way round:
 * the document may not claim detection the code does not have).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TransitNode } from '../../src/node/transit-node.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { REPO_ROOT } from '../helpers/vectors.js';

async function unsealedNode() {
  const storage = new MemoryStorage();
  const node = new TransitNode({ storage, leases: { tickMs: false } });
  const init = await node.init({ secret_shares: 1, secret_threshold: 1 });
  await node.unseal({ key: init.keys[0] as string });
  return { storage, node, root: init.root_token };
}

/** Every raw (barrier-encrypted) entry of the store. */
async function snapshot(storage: MemoryStorage): Promise<Map<string, Uint8Array>> {
  const out = new Map<string, Uint8Array>();
  for (const key of await storage.list('')) {
    const value = await storage.get(key);
    if (value !== undefined) out.set(key, value);
  }
  return out;
}

describe('rollback of storage entries (documented limit)', () => {
  it('an old copy of a revoked token entry, put back, revives the token', async () => {
    const { storage, node, root } = await unsealedNode();
    const rootCtx = await node.tokens.authenticate(root);
    expect(rootCtx).toBeDefined();
    const child = await node.tokens.create(rootCtx as NonNullable<typeof rootCtx>, {
      policies: ['default'],
    });
    expect(await node.tokens.authenticate(child.client_token)).toBeDefined();

    const before = await snapshot(storage);
    await node.tokens.revoke(child.client_token);
    expect(await node.tokens.authenticate(child.client_token)).toBeUndefined();

    // The attacker writes the vanished entries back, byte for byte.
    const after = await snapshot(storage);
    const vanished = [...before.keys()].filter((k) => !after.has(k));
    expect(vanished.length).toBeGreaterThan(0);
    for (const k of vanished) await storage.put(k, before.get(k) as Uint8Array);

    // Authentic ciphertext at its own path: the barrier accepts it.
    const revived = await node.tokens.authenticate(child.client_token);
    expect(revived?.policies).toContain('default');
  });

  it('SECURITY.md states the limit and does not claim tamper detection it lacks', () => {
    const doc = readFileSync(`${REPO_ROOT}/SECURITY.md`, 'utf8');
    expect(doc).toMatch(/does \*\*not\*\* detect: \*\*rollback\*\*/);
    expect(doc).toMatch(/revoked token/);
    expect(doc).toMatch(/write access to\s+the\s+storage as equal to root/);
    expect(doc).not.toMatch(/tampering is detected/);
  });
});
