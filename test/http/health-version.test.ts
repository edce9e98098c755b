/**
 * `sys/health` (and `sys/seal-status`) report one `version`, the package's,
 * whether the API is served by `transitkit server` or by `createHandler` in
 * an application (on fixed services or on a `TransitNode`); an explicit
 * `version` option still wins.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AclPolicyStore, createHandler, TokenStore } from '../../adapters/http/index.js';
import { MemoryStorage, Transit, TransitNode } from '../../src/index.js';
import { runCli } from '../cli/support.js';
import { call, ROOT_DIR, startDev } from './helpers.js';

const PACKAGE_VERSION = (
  JSON.parse(readFileSync(join(ROOT_DIR, 'package.json'), 'utf8')) as { version: string }
).version;

async function healthVersion(fetchHandler: (r: Request) => Promise<Response>): Promise<string> {
  const res = await fetchHandler(new Request('http://x/v1/sys/health'));
  return ((await res.json()) as { version: string }).version;
}

describe('one version in sys/health', () => {
  it('is a release version', () => {
    expect(PACKAGE_VERSION).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('createHandler on fixed services reports the package version', async () => {
    const storage = new MemoryStorage();
    const handler = createHandler({
      transit: new Transit({ storage, autoRotate: false }),
      tokens: new TokenStore({ storage }),
      policies: new AclPolicyStore({ storage }),
    });
    expect(await healthVersion(handler.fetch)).toBe(PACKAGE_VERSION);
  });

  it('createHandler on a TransitNode reports it in health and seal-status', async () => {
    const node = new TransitNode({ storage: new MemoryStorage() });
    const handler = createHandler(node);
    expect(await healthVersion(handler.fetch)).toBe(PACKAGE_VERSION);
    const seal = await handler.fetch(new Request('http://x/v1/sys/seal-status'));
    expect(((await seal.json()) as { version: string }).version).toBe(PACKAGE_VERSION);
    await node.close();
  });

  it('an explicit version option wins', async () => {
    const storage = new MemoryStorage();
    const handler = createHandler(
      {
        transit: new Transit({ storage, autoRotate: false }),
        tokens: new TokenStore({ storage }),
        policies: new AclPolicyStore({ storage }),
      },
      { version: '9.9.9-app' },
    );
    expect(await healthVersion(handler.fetch)).toBe('9.9.9-app');
  });

  it('transitkit server reports the same version, and --version prints it', async () => {
    const server = await startDev();
    try {
      const res = await call(server, 'GET', '/v1/sys/health');
      expect(res.status).toBe(200);
      expect(res.json.version).toBe(PACKAGE_VERSION);
      const seal = await call(server, 'GET', '/v1/sys/seal-status');
      expect(seal.json.version).toBe(PACKAGE_VERSION);
      expect(runCli(['--version']).stdout).toBe(`transitkit ${PACKAGE_VERSION}\n`);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });
});
