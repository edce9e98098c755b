/**
 * `transitkit server --storage` with libpq's Unix-socket URL
 * (`postgres://user@/db?host=/run/postgresql`), which pg takes and the WHATWG
 * URL parser refuses: the server starts (the banner says `local socket`)
 * instead of failing on its label after the pool had connected.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresServer, SKIP_POSTGRES } from '../helpers/postgres-server.js';
import { call, startCli } from '../http/helpers.js';

describe.skipIf(SKIP_POSTGRES)('the CLI on PostgreSQL through a Unix socket', () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await PostgresServer.start({ unixSocket: true });
  }, 60_000);
  afterAll(async () => {
    await server?.destroy();
  });

  it('starts, and serves from the socket', async () => {
    const cli = await startCli([
      '--dev',
      '--dev-root-token',
      'socket-root',
      '--listen',
      '127.0.0.1:0',
      '--storage',
      server.socketUrl,
    ]);
    try {
      expect(cli.stdout()).toMatch(/postgres local socket/);
      const s = { url: cli.url, root: 'socket-root' };
      expect((await call(s, 'POST', '/v1/transit/keys/k')).status).toBe(200);
      expect((await call(s, 'GET', '/v1/transit/keys/k')).json.data.name).toBe('k');
    } finally {
      await cli.stop();
    }
  });
});
