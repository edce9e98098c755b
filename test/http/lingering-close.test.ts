/**
 * `createServer` (transitkit/http/node) closes lingering: a 403 answered to an
 * upload whose body it never read reaches the client whole, the server then
 * sends its FIN and keeps reading (and discarding) what the client still
 * sends, and a request pipelined behind that body is never dispatched. Raw
 * sockets, so nothing between the test and the server hides a reset.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createServer, type TransitkitServer } from '../../adapters/http/node-server.js';
import { vaultHandler } from './helpers.js';

let server: TransitkitServer;
let port: number;
let served = 0;

beforeAll(async () => {
  const { vault } = await vaultHandler();
  server = createServer((req, res) => {
    served++;
    vault.node(req, res);
  });
  ({ port } = await server.listen(0));
});
afterAll(async () => {
  await server.close({ drainMs: 100 });
});

/** Collect what the server sends until it ends or resets the connection. */
function reader(sock: Socket) {
  let text = '';
  let error: NodeJS.ErrnoException | undefined;
  const closed = new Promise<void>((resolve) => {
    sock.on('data', (c: Buffer) => {
      text += c.toString('latin1');
    });
    sock.on('error', (e: NodeJS.ErrnoException) => {
      error = e;
    });
    sock.on('close', () => resolve());
  });
  return { closed, text: () => text, error: () => error };
}

describe('lingering close', () => {
  // The connection parsed by Node's native parser, and moved to the rewriting
  // path by a LIST first (adapters/http/list-switch.ts).
  it.each([
    ['natively parsed', ''],
    ['after a LIST', 'LIST /v1/transit/keys HTTP/1.1\r\nHost: t\r\n\r\n'],
  ])(
    '%s: a 403 to an unread 8 MiB upload arrives whole; the rest is read and discarded, a pipelined request never runs',
    async (_, first) => {
      const before = served;
      const sock = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
      const got = reader(sock);
      await new Promise((r) => sock.once('connect', r));
      if (first) {
        sock.write(first);
        await vi.waitFor(() => expect(got.text()).toMatch(/\r\n\r\n\{/), { timeout: 5000 });
      }
      const size = 8 * 1024 * 1024;
      sock.write(
        `POST /v1/transit/hash HTTP/1.1\r\nHost: t\r\nX-Vault-Token: not-a-token\r\nContent-Length: ${size}\r\n\r\n`,
      );
      // The whole body (the test keeps its side open after the server's FIN),
      // then a second request on the same connection.
      const piece = Buffer.alloc(64 * 1024, 0x61);
      let sent = 0;
      let writeFailed: Error | undefined;
      sock.on('error', (e) => {
        writeFailed = e;
      });
      while (sent < size && !sock.destroyed) {
        if (!sock.write(piece)) {
          await new Promise((r) => {
            sock.once('drain', r);
            sock.once('close', r);
          });
        }
        sent += piece.length;
      }
      sock.end('GET /v1/sys/health HTTP/1.1\r\nHost: t\r\n\r\n');
      await got.closed;

      const answers = got.text().split(/(?=HTTP\/1\.1 )/);
      if (first) expect(answers.shift()).toMatch(/^HTTP\/1\.1 403 /); // no token for the LIST
      expect(answers[0]).toMatch(/^HTTP\/1\.1 403 /);
      expect(answers[0]).toContain('"errors"');
      expect(answers[0]).toMatch(/connection: close/i);
      // Exactly one response: the pipelined health request was discarded, not dispatched.
      expect(answers).toHaveLength(1);
      expect(served - before).toBe(first ? 2 : 1);
      // The server kept reading: the upload finished without a reset.
      expect(sent).toBe(size);
      expect(writeFailed).toBeUndefined();
      expect(got.error()).toBeUndefined();
    },
  );
});
