/**
 * `npm run dev` (the README's contributor quick start) runs the CLI from
 * source: no build step, so no tsup output and no declaration build before
 * the banner, and the dev server answers with the documented root token
 * `dev-only-token`. Extra arguments after `--` reach the server.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { call, ROOT_DIR } from '../http/helpers.js';

const pkg = JSON.parse(readFileSync(join(ROOT_DIR, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
};

describe('npm run dev', () => {
  it('runs the CLI from source, without building', () => {
    expect(pkg.scripts.dev).toMatch(/^tsx adapters\/cli\/main\.ts server --dev\b/);
    expect(pkg.scripts.dev).not.toMatch(/build|tsup/);
    expect(pkg.scripts.example).not.toMatch(/build|tsup/);
  });

  it('prints the banner with nothing but npm’s own lines before it, and serves the dev token', async () => {
    const proc = spawn('npm', ['run', 'dev', '--', '--listen', '127.0.0.1:0'], {
      cwd: ROOT_DIR,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // its own process group: npm, sh, tsx and node stop together
      env: { ...process.env, NO_COLOR: '1' },
    });
    let out = '';
    let err = '';
    proc.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    const exited = new Promise<number | null>((resolve) => proc.once('exit', resolve));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no banner: ${out} ${err}`)), 30_000);
        proc.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /transitkit server started: (http:\/\/\S+)/.exec(out);
          if (m && out.includes('Root Token')) {
            clearTimeout(timer);
            resolve(m[1] as string);
          }
        });
        exited.then((code) => reject(new Error(`npm run dev exited ${code}: ${out} ${err}`)));
      });
      const before = out.slice(0, out.indexOf('==> transitkit server started'));
      const lines = before.split('\n').filter((l) => l.trim() !== '');
      expect(
        lines.every((l) => l.startsWith('> ')),
        before,
      ).toBe(true); // npm's "> transitkit@… dev"
      expect(lines.length).toBeLessThanOrEqual(2);
      expect(`${out}${err}`).not.toMatch(/tsup|Build start|DTS|\bCJS\b|\bESM\b/);
      const health = await call({ url, root: 'dev-only-token' }, 'GET', '/v1/sys/health');
      expect(health.status).toBe(200);
      const key = await call({ url, root: 'dev-only-token' }, 'POST', '/v1/transit/keys/dev');
      expect(key.status).toBe(200);
    } finally {
      if (proc.pid !== undefined && proc.exitCode === null) process.kill(-proc.pid, 'SIGTERM');
      await exited;
    }
  });
});
