/**
 * The bindings: node:http (a plain `createServer(handler.node)`), Express-style
 * `(req, res, next)` mounting and fall-through, a fetch `Request`, Koa-style
 * middleware (Koa is not installed: a context with Koa's members stands in), a body
 * already parsed by a body parser, a custom mount, strict unknown fields and
 * `auth: false`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AclPolicyStore,
  createHandler,
  type KoaContextLike,
  type TokenContext,
  TokenStore,
  type TransitHandler,
} from '../../adapters/http/index.js';
import { MemoryStorage, Transit } from '../../src/index.js';
import { b64 } from './helpers.js';

async function services() {
  const storage = new MemoryStorage();
  const tokens = new TokenStore({ storage });
  const root = await tokens.createRoot();
  return {
    root,
    services: {
      transit: new Transit({ storage, autoRotate: false }),
      tokens,
      policies: new AclPolicyStore({ storage }),
    },
  };
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const a = server.address();
      resolve(`http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`);
    });
  });
}

describe('node:http binding', () => {
  let server: Server;
  let url: string;
  let root: string;
  beforeAll(async () => {
    const s = await services();
    root = s.root;
    server = createServer(createHandler(s.services).node);
    url = await listen(server);
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('serves a round trip on a plain node:http server', async () => {
    const h = { 'x-vault-token': root };
    const e = await fetch(`${url}/v1/transit/encrypt/n`, {
      method: 'POST',
      headers: h,
      body: JSON.stringify({ plaintext: b64('node') }),
    });
    expect(e.status).toBe(200);
    const { data } = await e.json();
    const d = await fetch(`${url}/v1/transit/decrypt/n`, {
      method: 'PUT',
      headers: h,
      body: JSON.stringify({ ciphertext: data.ciphertext }),
    });
    expect((await d.json()).data.plaintext).toBe(b64('node'));
    expect(e.headers.get('content-length')).toBeTruthy();
  });

  it('lists with GET ?list=true (Node itself refuses the LIST method)', async () => {
    const r = await fetch(`${url}/v1/transit/keys?list=true`, {
      headers: { 'x-vault-token': root },
    });
    expect((await r.json()).data.keys).toEqual(['n']);
  });
});

describe('Express-style (req, res, next)', () => {
  let handler: TransitHandler;
  let root: string;
  let server: Server;
  let url: string;
  const seen: string[] = [];
  beforeAll(async () => {
    const s = await services();
    root = s.root;
    handler = createHandler(s.services);
    // A minimal Express: strip the mount prefix from req.url, call middleware with next.
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const original = req.url ?? '/';
      const notFound = () => {
        seen.push(original);
        res.statusCode = 418;
        res.end('next');
      };
      if (!original.startsWith('/vault/')) return notFound();
      req.url = original.slice('/vault'.length);
      // An express.json()-like parser already consumed the body of JSON requests.
      if (req.headers['content-type'] === 'application/json' && req.method === 'POST') {
        let text = '';
        req.on('data', (c) => {
          text += c;
        });
        req.on('end', () => {
          (req as IncomingMessage & { body?: unknown }).body = JSON.parse(text || '{}');
          handler.node(req, res, notFound);
        });
        return;
      }
      handler.node(req, res, notFound);
    });
    url = await listen(server);
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('serves under the app mount, with a body the parser already read', async () => {
    const r = await fetch(`${url}/vault/v1/transit/hash`, {
      method: 'POST',
      headers: { 'x-vault-token': root, 'content-type': 'application/json' },
      body: JSON.stringify({ input: b64('abc') }),
    });
    expect(r.status).toBe(200);
    expect((await r.json()).data.sum).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });

  it('passes requests outside its paths to next(); keeps 404 inside the transit mount', async () => {
    expect((await fetch(`${url}/vault/v1/other/thing`)).status).toBe(418);
    expect((await fetch(`${url}/vault/v1/sys/not-ours`)).status).toBe(418);
    expect(seen).toEqual(['/vault/v1/other/thing', '/vault/v1/sys/not-ours']);
    const inside = await fetch(`${url}/vault/v1/transit/nope`, {
      headers: { 'x-vault-token': root },
    });
    expect(inside.status).toBe(404);
  });
});

describe('fetch binding', () => {
  it('answers a Request with a Response', async () => {
    const s = await services();
    const h = createHandler(s.services);
    const r = await h.fetch(
      new Request('http://x/v1/transit/random/8', {
        method: 'POST',
        headers: { 'x-vault-token': s.root },
        body: '{"format":"hex"}',
      }),
    );
    expect(r.status).toBe(200);
    expect((await r.json()).data.random_bytes).toMatch(/^[0-9a-f]{16}$/);
    const head = await h.fetch(new Request('http://x/v1/sys/health', { method: 'HEAD' }));
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const del = await h.fetch(
      new Request('http://x/v1/auth/token/revoke-self', {
        method: 'POST',
        headers: { 'x-vault-token': s.root },
      }),
    );
    expect(del.status).toBe(204);
  });

  it('enforces the body limit while streaming', async () => {
    const s = await services();
    const h = createHandler(s.services, { maxRequestBytes: 1024 });
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < 10; i++) c.enqueue(new Uint8Array(512).fill(0x20));
        c.close();
      },
    });
    const r = await h.fetch(
      new Request('http://x/v1/transit/hash', {
        method: 'POST',
        headers: { 'x-vault-token': s.root },
        body,
        duplex: 'half',
      } as RequestInit),
    );
    expect(r.status).toBe(413);
  });
});

describe('Koa-style middleware', () => {
  /** The members of a Koa context the middleware uses, with Koa's body/type rules. */
  function koaContext(
    url: string,
    method: string,
    headers: Record<string, string>,
    body?: unknown,
  ) {
    const set: Record<string, string> = {};
    const ctx: KoaContextLike & { headersSet: Record<string, string> } = {
      req: {
        method,
        url,
        headers,
        complete: true,
        readableEnded: true,
        on: () => ctx,
        off: () => ctx,
        pause: () => ctx,
      },
      url,
      request: { body },
      status: 404,
      body: undefined,
      set(k, v) {
        set[k.toLowerCase()] = v;
      },
      headersSet: set,
    };
    return ctx;
  }

  it('answers its routes and calls next() for the rest', async () => {
    const s = await services();
    const mw = createHandler(s.services).koa;
    const ctx = koaContext(
      '/v1/transit/hash',
      'POST',
      { 'x-vault-token': s.root },
      { input: b64('abc') },
    );
    let nexted = false;
    await mw(ctx, async () => {
      nexted = true;
    });
    expect(nexted).toBe(false);
    expect(ctx.status).toBe(200);
    expect(ctx.headersSet['content-type']).toBe('application/json');
    expect(JSON.parse(ctx.body as string).data.sum).toMatch(/^ba7816bf/);
    const other = koaContext('/app/page', 'GET', {});
    await mw(other, async () => {
      nexted = true;
    });
    expect(nexted).toBe(true);
  });
});

describe('options', () => {
  it('a custom mount moves the transit routes and their ACL paths', async () => {
    const s = await services();
    await s.services.policies.write(
      'kms',
      'path "kms/encrypt/*" { capabilities = ["create", "update"] }',
    );
    const child = await s.services.tokens.create(
      (await s.services.tokens.authenticate(s.root)) as TokenContext,
      {
        policies: ['kms'],
      },
    );
    const h = createHandler(s.services, { mount: '/v1/kms' });
    const send = (url: string) =>
      h.dispatch({
        method: 'POST',
        url,
        headers: (n) => (n === 'x-vault-token' ? child.client_token : undefined),
        body: async () => JSON.stringify({ plaintext: b64('x') }),
      });
    expect((await send('/v1/kms/encrypt/k'))?.status).toBe(200);
    expect((await send('/v1/transit/encrypt/k'))?.status).toBe(404);
  });

  it('refuses a mount that is not a path, the API prefix, or whose ACL paths start with sys/ or auth/', async () => {
    const s = await services();
    for (const mount of [
      'transit',
      '/v1/transit/',
      '/v1',
      '/v1/sys',
      '/v1/sys/transit',
      '/v1/auth/t',
      // Outside the prefix its ACL paths are the whole mount: sys/transit/…
      '/sys/transit',
      '/auth',
    ]) {
      expect(() => createHandler(s.services, { mount }), mount).toThrow(/mount must/);
    }
    expect(() => createHandler(s.services, { mount: '/v1/system' })).not.toThrow();
    expect(() => createHandler(s.services, { mount: '/kms/transit' })).not.toThrow();
    expect(() => createHandler(s.services, { apiPrefix: '/api', mount: '/api/sys/x' })).toThrow(
      /under sys\//,
    );
  });

  it("unknownFields: 'reject' refuses undeclared fields with 400", async () => {
    const s = await services();
    const h = createHandler(s.services, { unknownFields: 'reject' });
    const r = await h.dispatch({
      method: 'POST',
      url: '/v1/transit/hash',
      headers: (n) => (n === 'x-vault-token' ? s.root : undefined),
      body: async () => '{"input":"YQ==","bogus":1}',
    });
    expect(r?.status).toBe(400);
    expect(JSON.parse(r?.body ?? '').errors).toEqual(['unrecognized parameters: [bogus]']);
  });

  it('auth: false serves without tokens and drops the token routes', async () => {
    const h = createHandler({ transit: new Transit({ autoRotate: false }) }, { auth: false });
    const r = await h.dispatch({
      method: 'POST',
      url: '/v1/transit/hash',
      headers: () => undefined,
      body: async () => '{"input":"YQ=="}',
    });
    expect(r?.status).toBe(200);
    const t = await h.dispatch({
      method: 'POST',
      url: '/v1/auth/token/create',
      headers: () => undefined,
    });
    expect(t?.status).toBe(404);
  });

  it('refuses incomplete services and bad options', () => {
    const transit = new Transit({ autoRotate: false });
    expect(() => createHandler({ transit })).toThrow(/tokens/);
    expect(() => createHandler({ transit }, { auth: false, mount: 'transit' })).toThrow(/mount/);
    expect(() => createHandler({ transit }, { auth: false, maxRequestBytes: 0 })).toThrow(
      /maxRequestBytes/,
    );
    expect(() => createHandler({} as never)).toThrow(/transit/);
  });

  it('a thrown non-TransitError is logged without the request and answered with a generic 500', async () => {
    const logged: unknown[] = [];
    const transit = new Transit({ autoRotate: false });
    (transit as unknown as { hash: () => never }).hash = () => {
      throw new TypeError('boom');
    };
    const h = createHandler(
      { transit },
      { auth: false, logger: { error: (...a) => logged.push(a) } },
    );
    const r = await h.dispatch({
      method: 'POST',
      url: '/v1/transit/hash',
      headers: () => undefined,
      body: async () => '{"input":"c2VjcmV0"}',
    });
    expect(r?.status).toBe(500);
    const id = r?.headers['x-request-id'];
    expect(JSON.parse(r?.body ?? '')).toEqual({ errors: ['internal error', `request id: ${id}`] });
    expect(logged).toHaveLength(1);
    expect(JSON.stringify(logged)).not.toContain('c2VjcmV0');
  });
});
