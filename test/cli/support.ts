/**
 * Shared helpers of the CLI tests (cli.test.ts, seal-cli.test.ts): running the
 * CLI from source, and the restart check of a persistent store.
 * Not a test file (vitest only collects `*.test.ts`).
 */
import { spawnSync } from 'node:child_process';
import { expect } from 'vitest';
import { b64, type CliServer, call, ROOT_DIR, startCli } from '../http/helpers.js';

/** Run `transitkit <args>` from source and wait for it. */
export function runCli(args: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', 'adapters/cli/main.ts', ...args], {
    cwd: ROOT_DIR,
    encoding: 'utf8',
    timeout: 20_000,
  });
}

/**
 * Start the server with `args` on a new store (the initial root token is
 * printed), encrypt "persist" under key `kept`, stop; start it again with the
 * same `args`: no root token is printed and the ciphertext decrypts with the
 * first root token. `first` and `second` add checks while each server runs.
 */
export async function expectRestartKeepsData(
  args: readonly string[],
  checks: {
    first?: (s: CliServer) => void | Promise<void>;
    second?: (s: CliServer) => void | Promise<void>;
  } = {},
): Promise<void> {
  const first = await startCli(args);
  expect(first.stdout()).toContain('Initial Root Token (shown once)');
  await checks.first?.(first);
  const ct = (
    await call(first, 'POST', '/v1/transit/encrypt/kept', { body: { plaintext: b64('persist') } })
  ).json.data.ciphertext;
  expect(await first.stop()).toBe(0);
  const second = await startCli(args);
  try {
    expect(second.stdout()).not.toContain('Root Token');
    const d = await call(
      { url: second.url, root: first.root },
      'POST',
      '/v1/transit/decrypt/kept',
      { body: { ciphertext: ct } },
    );
    expect(d.json.data.plaintext).toBe(b64('persist'));
    await checks.second?.(second);
  } finally {
    expect(await second.stop()).toBe(0);
  }
}
