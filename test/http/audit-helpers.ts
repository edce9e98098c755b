/**
 * Shared set-up of the audit-over-HTTP tests (`audit-routes.test.ts`,
 * `audit-log.test.ts`, `audit-fail-closed.test.ts`): a `TransitNode` with the
 * node audit devices behind `createHandler` on a loopback `node:http` server,
 * and the entries of a file device's log. Not a test file.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createNetServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { nodeAuditDevices } from '../../adapters/audit/index.js';
import { createHandler } from '../../adapters/http/index.js';
import {
  type AuditEntry,
  type AuditFailureInfo,
  MemoryStorage,
  TransitNode,
} from '../../src/index.js';

/** Listen on a free loopback port; the server's base URL. */
export async function listen(s: Server): Promise<string> {
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const a = s.address();
  return `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
}

/** The path of the test entry a device writes when it is enabled (Vault's test probe). */
export const PROBE_PATH = 'sys/audit/test';

/**
 * The entries of a file device's log, one JSON line each; without `probe`,
 * the test entry written when the device was enabled is left out.
 */
export const entries = (file: string, probe = false): AuditEntry[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as AuditEntry)
    .filter((e) => probe || e.request.path !== PROBE_PATH);

/**
 * A TCP listener that takes audit lines (a socket device can be enabled on
 * it), until `kill` closes it and its connections: the device's writes fail
 * from then on.
 */
export async function dyingListener(): Promise<{ port: number; kill(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const srv = createNetServer((sock) => {
    sockets.add(sock);
    sock.resume();
    sock.on('close', () => sockets.delete(sock));
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  return {
    port,
    async kill() {
      const closed = new Promise((r) => srv.close(r));
      for (const sock of sockets) sock.destroy();
      await closed;
    },
  };
}

/** A started node served over HTTP, and how to stop both. */
export interface AuditServer {
  node: TransitNode;
  server: { url: string; root: string };
  close(): Promise<void>;
}

/** A started node with the node audit devices (failures go to `failures`), served on loopback. */
export async function startAuditServer(failures: AuditFailureInfo[] = []): Promise<AuditServer> {
  const node = new TransitNode({
    storage: new MemoryStorage(),
    rootKey: new Uint8Array(32).fill(7),
    initialRootToken: 'root-token-for-audit-test',
    audit: {
      devices: nodeAuditDevices(),
      onFailure: (f) => failures.push(f),
      logger: { error: () => undefined },
    },
  });
  await node.start();
  const http = createHttpServer(createHandler(node, { logger: { error: () => undefined } }).node);
  const server = { url: await listen(http), root: 'root-token-for-audit-test' };
  return {
    node,
    server,
    async close() {
      await new Promise((r) => http.close(r));
      await node.close();
    },
  };
}

/**
 * Start {@link startAuditServer} (failures go to `failures`) and a temporary
 * directory for the logs before the calling file's tests; stop the server and
 * remove the directory after them. `use` receives both once started.
 */
export function withAuditServer(
  use: (s: AuditServer & { dir: string }) => void,
  failures: AuditFailureInfo[] = [],
): void {
  const dir = mkdtempSync(join(tmpdir(), 'transitkit-audit-http-'));
  let started: AuditServer | undefined;
  beforeAll(async () => {
    started = await startAuditServer(failures);
    use({ ...started, dir });
  });
  afterAll(async () => {
    await started?.close();
    rmSync(dir, { recursive: true, force: true });
  });
}
