/**
 * An auto-unseal start that fails after it initialised the store must not
 * lose the root token it generated: the next successful start returns it
 * (no other call can show it, and the store is initialised for good).
 */
import { describe, expect, it } from 'vitest';
import { TransitNode } from '../../src/node/transit-node.js';
import { MemoryStorage } from '../../src/storage/memory.js';

const rootKey = () => new Uint8Array(32).fill(9);

describe('auto-unseal start after a failure', () => {
  it('returns the generated root token from the start that succeeds', async () => {
    const storage = new MemoryStorage();
    let failures = 1;
    const node = new TransitNode({
      storage,
      rootKey: rootKey(),
      onUnseal: () => {
        if (failures-- > 0) throw new Error('the application could not start');
      },
    });
    await expect(node.start()).rejects.toThrow('the application could not start');
    expect(await node.initStatus()).toEqual({ initialized: true });
    const { root_token } = await node.start();
    expect(root_token).toMatch(/^hvs\./);
    expect((await node.tokens.authenticate(root_token as string))?.isRoot).toBe(true);
    // Shown once: a later start of the same node, or another node, does not repeat it.
    expect(await node.start()).toEqual({});
    await node.close();
    const other = new TransitNode({ storage, rootKey: rootKey() });
    expect(await other.start()).toEqual({});
    await other.close();
  });

  it('also after the keyring read that follows initialisation failed', async () => {
    class FailingRead extends MemoryStorage {
      reads = 0;
      override async get(k: string): Promise<Uint8Array | undefined> {
        // The first read finds nothing (initialise); the second, just after, fails once.
        if (k.startsWith('core/') && ++this.reads === 2) throw new Error('connection reset');
        return super.get(k);
      }
    }
    const storage = new FailingRead();
    const node = new TransitNode({ storage, rootKey: rootKey(), initialRootToken: 'hvs.chosen' });
    await expect(node.start()).rejects.toThrow();
    expect(await node.start()).toEqual({ root_token: 'hvs.chosen' });
    await node.close();
  });
});
