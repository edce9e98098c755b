/**
 * While a node is sealed or uninitialised, Vault answers every
 * API request but its few raw sys handlers 503 before routing
 * (`Core.switchedLockHandleRequest`: `if c.Sealed() { return nil,
 * consts.ErrSealed }`, ahead of the router), so an unknown path or an
 * unsupported method on a real path is 503 "Vault is sealed" too. The route
 * table used to answer first: 404 `unsupported path` / 405 `unsupported
 * operation` from a sealed node, which made a sealed node look like a
 * misconfigured mount to clients and load balancers.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createHandler } from '../../adapters/http/index.js';
import { TransitNode } from '../../src/node/transit-node.js';
import { MemoryStorage } from '../../src/storage/memory.js';

const nodes: TransitNode[] = [];
afterAll(async () => {
  for (const n of nodes) await n.close();
});

describe('a sealed node answers 503 on every non-sys-raw API path', () => {
  it.each([
    ['GET', '/v1/transit/keys'], // exists for LIST only
    ['DELETE', '/v1/transit/encrypt/k'], // exists for POST only
    ['GET', '/v1/transit/no-such-route'],
  ])('%s %s → 503 while uninitialised and while sealed', async (method, url) => {
    const node = new TransitNode({ storage: new MemoryStorage(), leases: { tickMs: false } });
    nodes.push(node);
    const h = createHandler(node, { logger: { error: () => undefined } });
    const send = () => h.dispatch({ method, url, headers: () => undefined });
    const uninit = await send();
    expect(uninit?.status).toBe(503);
    expect(JSON.parse(uninit?.body as string)).toEqual({ errors: ['Vault is not initialized'] });
    await node.init({ secret_shares: 1, secret_threshold: 1 });
    const sealed = await send();
    expect(sealed?.status).toBe(503);
    expect(JSON.parse(sealed?.body as string)).toEqual({ errors: ['Vault is sealed'] });
  });
});
