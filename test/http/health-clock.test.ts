/**
 * Health is an ordinary reply kind (issue 23, part 3): its query codes are
 * fields of a schema, its `server_time_utc` comes from the handler's injected
 * clock, and unknown query parameters are still ignored in `reject` mode.
 */
import { describe, expect, it } from 'vitest';
import { createHandler } from '../../adapters/http/index.js';
import { MemoryStorage, Transit } from '../../src/index.js';

const handler = (options: Parameters<typeof createHandler>[1] = {}) =>
  createHandler(
    { transit: new Transit({ storage: new MemoryStorage(), autoRotate: false }) },
    { auth: false, ...options },
  );

const get = (h: ReturnType<typeof handler>, url: string, method = 'GET') =>
  h.dispatch({ method, url, headers: () => undefined });

describe('sys/health as a reply kind', () => {
  it('reads the time from the injected clock', async () => {
    const h = handler({ clock: { now: () => 1_700_000_123_456 } });
    const r = await get(h, '/v1/sys/health');
    expect(r?.status).toBe(200);
    expect(JSON.parse(r?.body ?? '{}').server_time_utc).toBe(1_700_000_123);
  });

  it('ignores unknown query parameters even when unknown fields are refused', async () => {
    const h = handler({ unknownFields: 'reject' });
    const r = await get(h, '/v1/sys/health?foo=1&activecode=299');
    expect(r?.status).toBe(299);
    expect(JSON.parse(r?.body ?? '{}').warnings).toBeUndefined();
  });

  it('HEAD has no body; a bad code is 400 {"errors":[]} for HEAD too', async () => {
    const h = handler();
    const head = await get(h, '/v1/sys/health', 'HEAD');
    expect([head?.status, head?.body]).toEqual([200, undefined]);
    const bad = await get(h, '/v1/sys/health?activecode=abc', 'HEAD');
    expect([bad?.status, bad?.body]).toEqual([400, '{"errors":[]}']);
  });
});
