/**
 * With `fallthrough` (Express `app.use(handler.node)`, Koa), a
 * request outside transitkit's paths goes on to the app — but one whose path
 * the URL decoder refuses (`//`, `.`/`..` segments, a malformed `%` escape)
 * got transitkit's 400 `invalid request path` even though it is nowhere near
 * `/v1`: the app's own routes never saw it.
 */
import { describe, expect, it } from 'vitest';
import { createHandler } from '../../adapters/http/index.js';
import { MemoryStorage, Transit } from '../../src/index.js';

const handler = () =>
  createHandler(
    { transit: new Transit({ storage: new MemoryStorage(), autoRotate: false }) },
    { auth: false },
  );

describe('fallthrough: paths outside the API are the app’s', () => {
  it.each(['/static//app.js', '/docs/./index.html', '/search/100%', '/files/a%ZZb'])(
    '%s falls through (dispatch answers undefined)',
    async (url) => {
      const h = handler();
      const r = await h.dispatch(
        { method: 'GET', url, headers: () => undefined },
        { fallthrough: true },
      );
      expect(r?.status).toBeUndefined();
    },
  );

  it('Express-style next() is called for /static//app.js', async () => {
    const h = handler();
    let nexted = false;
    let status: number | undefined;
    await new Promise<void>((resolve) => {
      const res = {
        headersSent: false,
        writeHead(s: number) {
          status = s;
        },
        end() {
          resolve();
        },
        setHeader() {},
      };
      h.node(
        {
          method: 'GET',
          url: '/static//app.js',
          headers: {},
          readableEnded: true,
          on() {},
          off() {},
        } as unknown as Parameters<typeof h.node>[0],
        res as unknown as Parameters<typeof h.node>[1],
        () => {
          nexted = true;
          resolve();
        },
      );
    });
    expect(status).toBeUndefined();
    expect(nexted).toBe(true);
  });
});
