/**
 * A password in a URL the CLI refuses or cannot reach never reaches stderr:
 * an unrecognised `--storage` (from the flag or TRANSITKIT_STORAGE: an
 * upper-case scheme, a missing slash, another database), an `--addr` /
 * VAULT_ADDR the stream commands refuse, and a Redis URL carrying
 * `?password=` (ioredis authenticates with it) whose server is down.
 */
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ROOT_DIR } from '../http/helpers.js';
import { runCli } from './support.js';

const cli = (args: string[], env: Record<string, string>) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'adapters/cli/main.ts', ...args], {
    cwd: ROOT_DIR,
    encoding: 'utf8',
    timeout: 20_000,
    input: '',
    env: { ...process.env, ...env },
  });

async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

describe('URLs with a password in CLI errors', () => {
  it.each([
    ['POSTGRES://admin:hunter2-secret@db.example:5432/transit'],
    ['postgres:/admin:hunter2-secret@db.example/transit'],
  ])('an unrecognised --storage %s', (spec) => {
    const r = runCli(['server', '--listen', '127.0.0.1:0', '--storage', spec]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--storage must be/);
    expect(r.stderr).not.toContain('hunter2');
  });

  it('an unrecognised TRANSITKIT_STORAGE', () => {
    const r = cli(['server', '--listen', '127.0.0.1:0'], {
      TRANSITKIT_STORAGE: 'mysql://root:hunter2-secret@db/transit',
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('mysql://root@db/transit');
    expect(r.stderr).not.toContain('hunter2');
  });

  it('a VAULT_ADDR the stream commands refuse', () => {
    const r = cli(['encrypt', '--key', 'k', '--token', 't'], {
      VAULT_ADDR: 'https://ops:hunter2-secret@vault.example:8200/vault',
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--addr/);
    expect(r.stderr).not.toContain('hunter2');
  });

  it('a Redis URL with ?password= whose server is down', async () => {
    const port = await closedPort();
    const r = runCli([
      'server',
      '--dev',
      '--listen',
      '127.0.0.1:0',
      '--storage',
      `redis://127.0.0.1:${port}/0?password=hunter2-secret`,
    ]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/Redis is unreachable/);
    expect(r.stderr).not.toContain('hunter2');
  });
});
