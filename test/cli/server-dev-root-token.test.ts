/**
 * With `--dev`, `--initial-root-token` is a usage error (exit 2; the dev root
 * token is `--dev-root-token`). It was accepted and silently ignored: a new
 * store got a random root token instead of the one asked for.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { startCli } from '../http/helpers.js';
import { runCli } from './support.js';

const dir = mkdtempSync(join(tmpdir(), 'transitkit-cli-values-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('--dev --root-key-file --initial-root-token: the token asked for, or exit 2', async () => {
  const key = join(dir, 'root.key');
  writeFileSync(key, randomBytes(32).toString('base64'));
  const args = [
    '--dev',
    '--storage',
    `file:${join(dir, 'store')}`,
    '--root-key-file',
    key,
    '--initial-root-token',
    'wanted-root-token',
    '--listen',
    '127.0.0.1:0',
  ];
  const parsed = runCli(['server', ...args, '--help']); // parser only
  expect(parsed.status).toBe(0);
  let s: Awaited<ReturnType<typeof startCli>>;
  try {
    s = await startCli(args);
  } catch (e) {
    // refused at start: acceptable only as a usage error
    expect(String(e)).toMatch(/exited \(2\)/);
    return;
  }
  try {
    expect(s.root).toBe('wanted-root-token');
  } finally {
    await s.stop();
  }
});
