/**
 * With `fallthrough`, a path the URL decoder refuses goes to the app unless it
 * may be transitkit's (route-front.ts mayBeOurs): request targets that name a
 * /v1 path after dot-segment removal (RFC 3986 §5.2.4, encoded dots
 * included) or in absolute form (RFC 9112 §3.2.2) keep transitkit's 400
 * `invalid request path`. A first version of the fallthrough fix handed them
 * to the app.
 */
import { describe, expect, it } from 'vitest';
import { createHandler } from '../../adapters/http/index.js';
import { MemoryStorage, Transit } from '../../src/index.js';

const handler = () =>
  createHandler(
    { transit: new Transit({ storage: new MemoryStorage(), autoRotate: false }) },
    { auth: false },
  );

describe('fallthrough: a refused target that names a /v1 path is not the app’s', () => {
  it.each([
    '/x/../v1/transit/keys/k',
    '/%2e/v1/transit/keys/k',
    '/%2E%2E/v1/sys/health',
    'http://vault.example/v1/transit/keys/a%ZZb',
    'http://vault.example/v1//transit/keys/k',
  ])('%s is answered 400 by transitkit', async (url) => {
    const h = handler();
    const r = await h.dispatch(
      { method: 'GET', url, headers: () => undefined },
      { fallthrough: true },
    );
    expect(r?.status).toBe(400);
  });
});
