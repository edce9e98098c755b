/**
 * Starting a test server on a free loopback port: the shared part of
 * `redis-server.ts` and `postgres-server.ts`. A port probed free can be taken
 * before the server binds it, so a start that fails is retried on another
 * port, and the server's temp directory is removed when every attempt failed.
 * Not a test file.
 * @module
 */
import { rm } from 'node:fs/promises';
import { createServer } from 'node:net';

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Make a server on a free port and start it (`make(port)` builds it,
 * `start(server)` brings it up), up to 5 attempts; on the last failure the
 * server's directory `dir` is removed and the error thrown.
 */
export async function startOnFreePort<S>(
  dir: string,
  make: (port: number) => S,
  start: (server: S) => Promise<void>,
): Promise<S> {
  let lastError: unknown;
  for (let attempt = 0; attempt < 5; attempt++) {
    const server = make(await freePort());
    try {
      await start(server);
      return server;
    } catch (e) {
      lastError = e; // the port was taken between probe and bind: try another
    }
  }
  await rm(dir, { recursive: true, force: true });
  throw lastError;
}
