/**
 * The route front's request-line cache (route-front.ts
 * `resolve`, RESOLVED_MAX = 4096 entries) is filled before the token is
 * looked at and bounds entries, not bytes. Each entry keeps the URL, its
 * decoded segments and the joined ACL path, so 4,000 requests *without any
 * token* to distinct ~14 KB paths (within Node's 16 KB header limit) pin
 * over 100 MB of heap until 4,096 other lines evict them — an
 * unauthenticated client could hold a small container near its memory limit.
 * Long request lines are no longer kept.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { AclPolicyStore, createHandler, TokenStore } from '../../adapters/http/index.js';
import { MemoryStorage, Transit } from '../../src/index.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

describe('route cache memory', () => {
  it('unauthenticated requests to long distinct paths do not pin tens of MB', async () => {
    const storage = new MemoryStorage();
    const h = createHandler(
      {
        transit: new Transit({ storage, autoRotate: false }),
        tokens: new TokenStore({ storage }),
        policies: new AclPolicyStore({ storage }),
      },
      { logger: { error: () => undefined } },
    );
    const seg = 'a'.repeat(14_000);
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 4000; i++) {
      // A flat string, as Node's parser hands over a request line.
      const url = Buffer.from(`/v1/transit/keys/${seg}${i}`).toString('latin1');
      const r = await h.dispatch({ method: 'GET', url, headers: () => undefined });
      if (i === 0) expect(r?.status).toBe(403);
    }
    gc();
    gc();
    const retainedMb = (process.memoryUsage().heapUsed - before) / 1e6;
    // The handler is still in use (so what it holds is live).
    expect(
      (await h.dispatch({ method: 'GET', url: '/v1/sys/health', headers: () => undefined }))
        ?.status,
    ).toBe(200);
    expect(retainedMb).toBeLessThan(16);
  }, 60_000);
});
