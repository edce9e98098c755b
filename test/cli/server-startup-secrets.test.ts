/**
 * A start-up that fails after it opened a new persistent store (port in use,
 * a bad config policy, a bad `--mount`) leaves the store untouched: the
 * listener is bound and the config checked before the store is initialised,
 * so the next start prints the one-time secrets (the generated initial root
 * token; with `--dev` on persistent storage, the unseal key too). It exited 1
 * after initialising the store, and the secrets were gone for good.
 */

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startCli } from '../http/helpers.js';
import { runCli } from './support.js';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'transitkit-cli-secrets-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** `transitkit server` with `base`, on a port another listener holds. */
async function runOnBusyPort(base: string[]): Promise<ReturnType<typeof runCli>> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const a = server.address();
  const port = typeof a === 'object' && a ? a.port : 0;
  try {
    return runCli(['server', ...base, '--listen', `127.0.0.1:${port}`]);
  } finally {
    server.close();
  }
}

/** A new file store with a root key file: its directory and the server's arguments for it. */
function keyedStore(): { dir: string; base: string[] } {
  const dir = tempDir();
  const key = join(dir, 'root.key');
  writeFileSync(key, randomBytes(32).toString('base64'));
  return { dir, base: ['--storage', `file:${join(dir, 'store')}`, '--root-key-file', key] };
}

const ROOT_TOKEN = /Initial Root Token \(shown once\): \S+/;
const FREE_PORT = ['--listen', '127.0.0.1:0'];

/**
 * After a failed first start: either the failed run printed `secret`, or the
 * store was left uninitialised (a second start prints a new one). Either way
 * the operator is never left with an initialised store and no secret.
 */
async function expectSecretNotLost(
  failed: { status: number | null; stdout: string; stderr: string },
  secret: RegExp,
  secondArgs: string[],
): Promise<void> {
  expect(failed.status, failed.stderr).not.toBe(0);
  if (secret.test(failed.stdout + failed.stderr)) return;
  const second = await startCli(secondArgs);
  try {
    expect(
      second.stdout(),
      `first start failed (${failed.stderr.trim()}) without printing its secret, and left the store initialised`,
    ).toMatch(secret);
  } finally {
    await second.stop();
  }
}

describe('a start-up that fails after initialising a new store', () => {
  it('--root-key-file, port in use: the generated initial root token is not lost', async () => {
    const { base } = keyedStore();
    const r = await runOnBusyPort(base);
    expect(r.stderr).toMatch(/EADDRINUSE/);
    await expectSecretNotLost(r, ROOT_TOKEN, [...base, ...FREE_PORT]);
  });

  it('--root-key-file, a malformed policy in --config: the generated initial root token is not lost', async () => {
    const { dir, base } = keyedStore();
    const bad = join(dir, 'bad.json');
    writeFileSync(
      bad,
      JSON.stringify({ policies: { app: 'path "transit/*" { capabilites = ["read"] }' } }),
    );
    const good = join(dir, 'good.json');
    writeFileSync(good, JSON.stringify({}));
    const r = runCli(['server', ...base, ...FREE_PORT, '--config', bad]);
    expect(r.stderr).toMatch(/capabilites/);
    await expectSecretNotLost(r, ROOT_TOKEN, [...base, ...FREE_PORT, '--config', good]);
  });

  it('--root-key-file, a bad --mount: the generated initial root token is not lost', async () => {
    const { base } = keyedStore();
    const r = runCli(['server', ...base, ...FREE_PORT, '--mount', 'transit']);
    await expectSecretNotLost(r, ROOT_TOKEN, [...base, ...FREE_PORT]);
  });

  it('--dev on file storage, port in use: the unseal key (shown once) is not lost', async () => {
    const base = ['--dev', '--storage', `file:${join(tempDir(), 'store')}`];
    const r = await runOnBusyPort(base);
    expect(r.stderr).toMatch(/EADDRINUSE/);
    await expectSecretNotLost(r, /Unseal Key \(shown once[^)]*\): \S+/, [...base, ...FREE_PORT]);
  });
});
