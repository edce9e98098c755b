/**
 * `createServer` and `acceptListMethod` (adapters/http/node-server.ts) refuse
 * what is not a handler or a server when called: a `TransitNode` handed to
 * `createServer` in place of `createHandler(node)` used to listen, then throw
 * a TypeError outside any handler on the first request and end the process.
 */
import { describe, expect, it } from 'vitest';
import { acceptListMethod, createServer } from '../../adapters/http/node-server.js';
import { TransitNode } from '../../src/node/transit-node.js';
import { MemoryStorage } from '../../src/storage/memory.js';

describe('createServer and acceptListMethod refuse the wrong argument', () => {
  it('createServer: a TransitNode, services, a misspelt listener or nothing', () => {
    const node = new TransitNode({ storage: new MemoryStorage(), leases: { tickMs: false } });
    for (const bad of [node, {}, { nod: () => undefined }, null, undefined, 5]) {
      expect(() => createServer(bad as never)).toThrow(
        expect.objectContaining({
          code: 'invalid_request',
          message: 'createServer needs a handler: createHandler(services) or its .node listener',
        }),
      );
    }
  });

  it('acceptListMethod: anything but a node:http or node:https server', () => {
    for (const bad of [5, {}, null, undefined, 'server']) {
      expect(() => acceptListMethod(bad as never)).toThrow(
        expect.objectContaining({
          code: 'invalid_request',
          message: 'acceptListMethod needs a node:http or node:https server',
        }),
      );
    }
  });
});
