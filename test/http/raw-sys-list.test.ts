/**
 * `GET ?list=true` is Vault's LIST only for logical requests
 * (`buildLogicalRequestNoAuth`). The raw sys handlers — `sys/health`,
 * `sys/seal-status`, `sys/init`, `sys/leader` — switch on `r.Method` alone
 * and never read `list`, so `GET /v1/sys/health?list=true` is the health
 * answer in Vault. The route front turns every `GET ?list=true` into LIST
 * before matching, so these answered 405 (a probe or client that tacks a
 * stray `list=true` onto its query sees a 405 instead of the node state).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createHandler } from '../../adapters/http/index.js';
import { TransitNode } from '../../src/node/transit-node.js';
import { MemoryStorage } from '../../src/storage/memory.js';

const node = new TransitNode({ storage: new MemoryStorage(), leases: { tickMs: false } });
afterAll(() => node.close());

describe('raw sys handlers ignore ?list=true', () => {
  it.each([
    ['/v1/sys/health?list=true', 501],
    ['/v1/sys/seal-status?list=true', 200],
    ['/v1/sys/init?list=true', 200],
    ['/v1/sys/leader?list=true', 503], // as a plain GET: the node is not initialised
  ])('GET %s → %i', async (url, status) => {
    const h = createHandler(node, { logger: { error: () => undefined } });
    const r = await h.dispatch({ method: 'GET', url, headers: () => undefined });
    expect(r?.status).toBe(status);
  });
});
