/**
 * Vault clients against transitkit mounted inside a real Express 5 app and a
 * real Koa 3 app, served the way the README's mount recipe shows:
 * `createServer(app)` / `createServer(koaApp.callback())` from
 * `transitkit/http/node`, on real sockets. hvac (`list_keys`, which sends
 * the `LIST` method) and node-vault (`transitListKeys`, `list()`, both `LIST`)
 * create, list, encrypt and decrypt; the app's own routes keep working.
 *
 * The witness of why the recipe matters: the same apps behind `app.listen()`
 * answer `LIST` with Node's bare 400 before any handler runs (if Node ever
 * learns `LIST`, that test fails and the README's advice can be relaxed).
 */
import { execFile } from 'node:child_process';
import { connect } from 'node:net';
import { promisify } from 'node:util';
import express from 'express';
import Koa from 'koa';
import nodeVault from 'node-vault';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type TransitkitServer } from '../../adapters/http/node-server.js';
import { NO_HVAC_REASON, pythonWithHvac, SKIP_HVAC } from '../helpers/tools.js';
import { vaultHandler } from './helpers.js';

async function expressApp() {
  const { vault, rootToken } = await vaultHandler();
  const app = express();
  app.use(express.json());
  app.get('/orders', (_req, res) => {
    res.json({ orders: [] });
  });
  app.use(vault.node);
  // The recipe: createServer(app). app.listen() is the plain server of the witness below.
  return { rootToken, recipe: () => createServer(app), plain: () => app.listen(0, '127.0.0.1') };
}

async function koaApp() {
  const { vault, rootToken } = await vaultHandler();
  const app = new Koa();
  app.use(vault.koa);
  app.use((ctx) => {
    if (ctx.path === '/orders') ctx.body = { orders: [] };
  });
  return {
    rootToken,
    recipe: () => createServer(app.callback()),
    plain: () => app.listen(0, '127.0.0.1'),
  };
}

const HVAC_SCRIPT = `
import base64, sys
import hvac
c = hvac.Client(url=sys.argv[1], token=sys.argv[2])
t = c.secrets.transit
t.create_key(name="from-hvac")
keys = t.list_keys()["data"]["keys"]
assert "from-hvac" in keys, keys
ct = t.encrypt_data(name="from-hvac", plaintext=base64.b64encode(b"hi").decode())["data"]["ciphertext"]
assert base64.b64decode(t.decrypt_data(name="from-hvac", ciphertext=ct)["data"]["plaintext"]) == b"hi"
print(",".join(keys))
`;

/** Send one raw `LIST` request; resolves with the status line. */
function rawList(port: number, token: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(
        `LIST /v1/transit/keys HTTP/1.1\r\nHost: x\r\nX-Vault-Token: ${token}\r\nConnection: close\r\n\r\n`,
      );
    });
    let out = '';
    socket.on('data', (d: Buffer) => {
      out += d.toString('latin1');
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(out.split('\r\n')[0] ?? ''));
  });
}

describe.each([
  ['Express 5', expressApp],
  ['Koa 3', koaApp],
] as const)('mounted in %s, served by createServer', (_name, make) => {
  let server: TransitkitServer;
  let url: string;
  let rootToken: string;

  beforeAll(async () => {
    const made = await make();
    rootToken = made.rootToken;
    server = made.recipe();
    ({ url } = await server.listen(0, '127.0.0.1'));
  });
  afterAll(() => server.close());

  it('node-vault creates, lists with transitListKeys and list(), encrypts and decrypts', async () => {
    const client = nodeVault({ apiVersion: 'v1', endpoint: url, token: rootToken });
    await client.write('transit/keys/from-node-vault', {});
    const listed = await client.transitListKeys();
    expect(listed.data.keys).toContain('from-node-vault');
    const generic = await client.list('transit/keys');
    expect(generic.data.keys).toContain('from-node-vault');
    const plaintext = Buffer.from('node-vault').toString('base64');
    const enc = await client.write('transit/encrypt/from-node-vault', { plaintext });
    const dec = await client.write('transit/decrypt/from-node-vault', {
      ciphertext: enc.data.ciphertext,
    });
    expect(dec.data.plaintext).toBe(plaintext);
  });

  it.skipIf(SKIP_HVAC)(
    SKIP_HVAC
      ? `hvac (skipped: ${NO_HVAC_REASON})`
      : 'hvac creates, lists (LIST), encrypts and decrypts',
    async () => {
      // Async: the server runs in this process, so its event loop must stay free.
      const { stdout } = await promisify(execFile)(
        pythonWithHvac(),
        ['-c', HVAC_SCRIPT, url, rootToken],
        { encoding: 'utf8', timeout: 20_000 },
      );
      expect(stdout.trim().split(',')).toContain('from-hvac');
    },
  );

  it("the app's own routes still answer", async () => {
    const res = await fetch(`${url}/orders`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ orders: [] });
  });
});

describe('the same apps behind app.listen()', () => {
  it.each([
    ['Express 5', expressApp],
    ['Koa 3', koaApp],
  ] as const)('%s: Node refuses LIST with a bare 400 before any handler runs', async (_n, make) => {
    const { plain, rootToken } = await make();
    const server = plain();
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    try {
      const port = (server.address() as { port: number }).port;
      expect(await rawList(port, rootToken)).toBe('HTTP/1.1 400 Bad Request');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
