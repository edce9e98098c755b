/**
 * `PUT /v1/sys/audit/:path` with a socket device: `write_timeout` takes Go
 * duration strings as Vault (`1.5s`, `1m30s`) and plain seconds (a JSON
 * number too); a bad value is a 400 `{"errors":[…]}` naming the option, and
 * no device is enabled.
 */
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeAuditDevices } from '../../adapters/audit/index.js';
import { createHandler } from '../../adapters/http/index.js';
import { MemoryStorage, TransitNode } from '../../src/index.js';
import { call } from './helpers.js';

const ROOT = 'root-token-for-write-timeout-test';
let node: TransitNode;
let http: Server;
let sink: NetServer;
const sockets: Socket[] = [];
let server: { url: string; root: string };
let address = '';

beforeAll(async () => {
  sink = createNetServer((s) => {
    sockets.push(s);
    s.on('data', () => undefined);
    s.on('error', () => undefined);
  });
  await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
  address = `127.0.0.1:${(sink.address() as { port: number }).port}`;
  node = new TransitNode({
    storage: new MemoryStorage(),
    rootKey: new Uint8Array(32).fill(9),
    initialRootToken: ROOT,
    audit: { devices: nodeAuditDevices(), logger: { error: () => undefined } },
  });
  await node.start();
  http = createHttpServer(createHandler(node, { logger: { error: () => undefined } }).node);
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  server = { url: `http://127.0.0.1:${(http.address() as { port: number }).port}`, root: ROOT };
});
afterAll(async () => {
  await new Promise((r) => http.close(r));
  await node.close();
  for (const s of sockets) s.destroy();
  await new Promise((r) => sink.close(r));
});

describe('sys/audit socket write_timeout', () => {
  it('takes 1.5s, 1m30s, 250ms and seconds', async () => {
    for (const write_timeout of ['1.5s', '1m30s', '250ms', 3, '3']) {
      const en = await call(server, 'PUT', '/v1/sys/audit/sock', {
        body: { type: 'socket', options: { address, write_timeout } },
      });
      expect(en.status, `${write_timeout}: ${en.text}`).toBe(204);
      const list = await call(server, 'GET', '/v1/sys/audit');
      expect(list.json.data['sock/'].options.write_timeout).toBe(String(write_timeout));
      expect((await call(server, 'DELETE', '/v1/sys/audit/sock')).status).toBe(204);
    }
  });

  it('refuses bad values with a 400 naming the option; nothing is enabled', async () => {
    for (const write_timeout of ['1.5x', 'soon', '-1s', '0', 1.5, '1.5']) {
      const en = await call(server, 'PUT', '/v1/sys/audit/sock', {
        body: { type: 'socket', options: { address, write_timeout } },
      });
      expect(en.status, String(write_timeout)).toBe(400);
      expect(en.json.errors, String(write_timeout)).toHaveLength(1);
      expect(en.json.errors[0]).toContain('options.write_timeout must be a duration');
      expect(en.json.errors[0]).toContain(JSON.stringify(String(write_timeout)));
    }
    const list = await call(server, 'GET', '/v1/sys/audit');
    expect(list.json.data).toEqual({});
  });
});
