/**
 * Several real `transitkit server` processes on one real redis-server: the
 * first initialises the store (auto-unseal from a shared root key file, with a
 * known initial root token), the others unseal it. Used by the multi-instance
 * tests and by bench/propagation.bench.ts. Not a test file.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RedisServer } from '../helpers/redis-server.js';
import { type CliServer, call, type Res, startCli } from '../http/helpers.js';

export { eventually } from '../auth/flaky-storage.js';

/** A running set of servers on one Redis. */
export interface Cluster {
  readonly redis: RedisServer;
  /** Every server; all share {@link Cluster.root}. */
  readonly nodes: CliServer[];
  readonly root: string;
  /** Stop every server and Redis, and delete the temporary files. */
  stop(): Promise<void>;
}

/** Start redis-server and `count` servers on it (one at a time: the first initialises). */
export async function startCluster(count: number): Promise<Cluster> {
  const redis = await RedisServer.start();
  const dir = mkdtempSync(join(tmpdir(), 'transitkit-multi-'));
  const keyFile = join(dir, 'root.key');
  writeFileSync(keyFile, randomBytes(32).toString('base64'), { mode: 0o600 });
  const root = `root-${randomBytes(12).toString('hex')}`;
  const base = ['--storage', redis.url, '--root-key-file', keyFile, '--listen', '127.0.0.1:0'];
  const nodes: CliServer[] = [];
  const stop = async () => {
    for (const n of nodes) await n.stop('SIGKILL').catch(() => undefined);
    await redis.destroy();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < count; i++) {
      const node = await startCli(i === 0 ? [...base, '--initial-root-token', root] : base);
      nodes.push({ ...node, root });
    }
  } catch (e) {
    await stop();
    throw e;
  }
  return { redis, nodes, root, stop };
}

/** A request as `token` (`call` with the token made explicit). */
export function as(
  node: CliServer,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<Res> {
  return call(node, method, path, { token, ...(body === undefined ? {} : { body }) });
}

/** Write an ACL policy through `node` (as root). */
export async function writePolicy(node: CliServer, name: string, policy: string): Promise<void> {
  const r = await call(node, 'PUT', `/v1/sys/policies/acl/${name}`, { body: { policy } });
  if (r.status !== 204) throw new Error(`policy write ${name}: ${r.status} ${r.text}`);
}

/** Create a token with `policies` through `node` (as root); returns it. */
export async function createToken(node: CliServer, policies: string[]): Promise<string> {
  const r = await call(node, 'POST', '/v1/auth/token/create', { body: { policies } });
  if (r.status !== 200) throw new Error(`token create: ${r.status} ${r.text}`);
  return r.json.auth.client_token as string;
}
