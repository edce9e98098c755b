/**
 * Shared set-up of the audit-over-HTTP tests (`audit-routes.test.ts`,
 * `audit-log.test.ts`, `audit-fail-closed.test.ts`): a `TransitNode` with the
 * node audit devices behind `createHandler` on a loopback `node:http` server,
 * and the entries of a file device's log. Not a test file.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
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

/** The entries of a file device's log, one JSON line each. */
export const entries = (file: string): AuditEntry[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as AuditEntry);

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
