/**
 * Vault's raw sys handlers answer another method with a bare
 * 405 `{"errors":[]}` (`respondError(w, http.StatusMethodNotAllowed, nil)` in
 * http/sys_init.go `handleSysInit`, http/sys_seal.go `handleSysUnseal`,
 * `handleSysSealStatus`, `handleSysSeal`). The adapter does that for
 * `sys/health` and `sys/leader` (`bareMethodError`) but answers
 * answered `{"errors":["unsupported operation"]}` on the other raw routes: the
 * flag was only looked up on the path's GET row, which `sys/unseal` and
 * `sys/seal` lack, and `sys/init`/`sys/seal-status` did not set it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createHandler } from '../../adapters/http/index.js';
import { TransitNode } from '../../src/node/transit-node.js';
import { MemoryStorage } from '../../src/storage/memory.js';

const node = new TransitNode({ storage: new MemoryStorage(), leases: { tickMs: false } });
afterAll(() => node.close());

describe('raw sys handlers: another method is a bare 405', () => {
  it.each([
    ['DELETE', '/v1/sys/init'],
    ['GET', '/v1/sys/unseal'],
    ['POST', '/v1/sys/seal-status'],
    ['GET', '/v1/sys/seal'],
  ])('%s %s → 405 {"errors":[]}', async (method, url) => {
    const h = createHandler(node, { logger: { error: () => undefined } });
    const r = await h.dispatch({ method, url, headers: () => undefined });
    expect(r?.status).toBe(405);
    expect(JSON.parse(r?.body as string)).toEqual({ errors: [] });
  });
});
