/**
 * A body parser's placeholder is not the request body. Express 4's
 * `express.json()` (body-parser 1.x) and koa-bodyparser set the body to `{}`
 * for a content type they do not parse, and leave the stream unread. The Vault
 * CLI and Go clients send JSON without a Content-Type, so that is their every
 * request. The bindings took such a `{}` as the body whenever Node had
 * received the whole message (`req.complete`), which it has after one turn of
 * the event loop (a token read from storage): `auth/token/create` with
 * `policies` and `ttl` then made a non-expiring token with every policy of
 * its parent (root), and `transit/keys/x` with `type` made an AES key.
 * A pre-parsed body is now used only when its stream was read to the end.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileStorage } from '../../adapters/file/index.js';
import {
  AclPolicyStore,
  createHandler,
  TokenStore,
  type TransitHandler,
} from '../../adapters/http/index.js';
import { Transit } from '../../src/index.js';

let dir: string;
let storage: FileStorage;
let handler: TransitHandler;
let root: string;
const servers: Server[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tk-preparsed-'));
  storage = await FileStorage.open(dir); // real I/O: the token is read in a later turn
  const tokens = new TokenStore({ storage });
  handler = createHandler(
    {
      transit: new Transit({ storage, autoRotate: false }),
      tokens,
      policies: new AclPolicyStore({ storage }),
    },
    { logger: { error: () => undefined } },
  );
  root = await tokens.createRoot();
});
afterAll(async () => {
  for (const s of servers) await new Promise((r) => s.close(r));
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
});

function listen(server: Server): Promise<number> {
  servers.push(server);
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
  });
}

/** One request in one write, as Go's net/http sends a small one: no Content-Type. */
function post(port: number, path: string, body: string) {
  const head = `POST ${path} HTTP/1.1\r\nHost: x\r\nX-Vault-Token: ${root}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`;
  // biome-ignore lint/suspicious/noExplicitAny: test convenience for reading JSON bodies
  return new Promise<{ status: number; json: Record<string, any> }>((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => s.write(head + body));
    let got = '';
    s.on('data', (d) => {
      got += d.toString('latin1');
    });
    s.on('error', reject);
    s.on('close', () => {
      const [h = '', text = ''] = got.split('\r\n\r\n');
      resolve({ status: Number(h.split(' ')[1]), json: text ? JSON.parse(text) : {} });
    });
  });
}

async function expectBodiesRead(port: number, name: string) {
  const key = await post(port, `/v1/transit/keys/${name}`, JSON.stringify({ type: 'ed25519' }));
  expect(key.status).toBe(200);
  expect(key.json.data.type).toBe('ed25519');
  const tok = await post(
    port,
    '/v1/auth/token/create',
    JSON.stringify({ policies: ['p'], ttl: '1h' }),
  );
  expect(tok.status).toBe(200);
  expect(tok.json.auth.policies).toEqual(['default', 'p']);
  expect(tok.json.auth.lease_duration).toBe(3600);
}

describe('a body parser that leaves a body it skipped as {}', () => {
  it('Express: body-parser 1.x json() on a request without Content-Type', async () => {
    const app = express();
    // body-parser 1.x lib/types/json.js: `req.body = req.body || {}`, then
    // `if (!shouldParse(req)) { next(); return }`: the stream is not read.
    app.use((req, _res, next) => {
      req.body = req.body || {};
      next();
    });
    app.use(handler.node);
    await expectBodiesRead(await listen(createServer(app)), 'express-ed');
  });

  it('Koa: koa-bodyparser on a request without Content-Type', async () => {
    const app = new Koa();
    // koa-bodyparser: `ctx.request.body = {}` for a type it does not parse.
    app.use(async (ctx, next) => {
      (ctx.request as unknown as { body: unknown }).body = {};
      await next();
    });
    app.use(handler.koa);
    await expectBodiesRead(await listen(createServer(app.callback())), 'koa-ed');
  });

  it('a body the parser did read is still used as parsed', async () => {
    const app = express();
    app.use(express.json({ type: () => true }));
    app.use(handler.node);
    await expectBodiesRead(await listen(createServer(app)), 'parsed-ed');
  });
});
