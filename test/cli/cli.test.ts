/**
 * `transitkit server`: flags, the printed URL and root token, `--listen …:0`,
 * SIGTERM draining in-flight requests and exiting 0, file storage across restarts
 * (the initial root token printed once), `--config` policies, usage errors (exit 2),
 * and the package's `bin`.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseArgs, parseListen, UsageError } from '../../adapters/cli/args.js';
import { BINS, distFiles } from '../../scripts/entries.mjs';
import { b64, call, ROOT_DIR, startCli, startDev } from '../http/helpers.js';
import { expectRestartKeepsData, runCli } from './support.js';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'transitkit-cli-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('argument parsing', () => {
  it('reads flags in both forms', () => {
    expect(
      parseArgs([
        'server',
        '--dev',
        '--listen=0.0.0.0:1',
        '--storage',
        'file:/x',
        '--max-request-bytes',
        '10',
      ]),
    ).toEqual({
      kind: 'server',
      args: { dev: true, listen: '0.0.0.0:1', storage: 'file:/x', maxRequestBytes: 10 },
    });
    expect(() => parseArgs([])).toThrow(/no command given/);
    expect(parseArgs(['--version'])).toEqual({ kind: 'version' });
    expect(parseArgs(['server', '--help'])).toEqual({ kind: 'help' });
  });

  it.each([
    [['serve']],
    [['server', '--devv']],
    [['server', '--listen']],
    [['server', '--dev=1']],
    [['server', 'extra']],
    [['server', '--dev-root-token', 't']],
    [['server', '--max-request-bytes', '-1']],
    // Decimal digits only: Number() alone took these as 16, 1000 and 12.
    [['server', '--max-request-bytes', '0x10']],
    [['server', '--max-stream-bytes', '1e3']],
    [['server', '--max-request-bytes', '12.0']],
    [['encrypt', '--key', 'k', '--key-version', '0x1']],
  ])('%j is a usage error', (argv) => {
    expect(() => parseArgs(argv)).toThrow(UsageError);
  });

  it('splits HOST:PORT, IPv6 included', () => {
    expect(parseListen('127.0.0.1:0')).toEqual({ host: '127.0.0.1', port: 0 });
    expect(parseListen('[::1]:8200')).toEqual({ host: '::1', port: 8200 });
    for (const bad of ['8200', 'host:', 'host:99999', '::1:80'])
      expect(() => parseListen(bad)).toThrow(UsageError);
  });
});

describe('transitkit server --dev', () => {
  it('prints one line with the URL, and the root token; --listen :0 picks a port', async () => {
    const s = await startCli(['--dev', '--listen', '127.0.0.1:0']);
    try {
      const lines = s.stdout().split('\n');
      expect(lines.filter((l) => l.includes('http://'))).toHaveLength(1);
      expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(s.url).not.toMatch(/:0$/);
      expect(s.root).toMatch(/^hvs\.[A-Za-z0-9]{32}$/);
      expect((await call(s, 'GET', '/v1/auth/token/lookup-self')).json.data.policies).toEqual([
        'root',
      ]);
    } finally {
      expect(await s.stop()).toBe(0);
    }
  });

  /**
   * A request sent in part (headers and 5 bytes of the body) to the dev
   * server, then SIGTERM: `finish()` sends the rest and resolves with the
   * whole response once the server closes the connection.
   */
  async function drainingRequest(s: Awaited<ReturnType<typeof startDev>>) {
    const { port } = new URL(s.url);
    const body = JSON.stringify({ input: b64('drain me') });
    const socket = connect(Number(port), '127.0.0.1');
    let response = '';
    socket.on('data', (d) => {
      response += d.toString();
    });
    const closed = new Promise((r) => socket.on('close', r));
    await new Promise((r) => socket.once('connect', r));
    socket.write(
      `POST /v1/transit/hash HTTP/1.1\r\nHost: x\r\nX-Vault-Token: ${s.root}\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
    );
    await new Promise((r) => setTimeout(r, 150));
    s.proc.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    return {
      port: Number(port),
      async finish(): Promise<string> {
        socket.write(body.slice(5));
        await closed;
        return response;
      },
    };
  }

  it('SIGTERM lets an in-flight request finish, refuses new connections, and exits 0', async () => {
    const s = await startDev();
    const draining = await drainingRequest(s);
    const refused = await new Promise<boolean>((resolve) => {
      const c = connect(draining.port, '127.0.0.1');
      c.on('connect', () => {
        c.destroy();
        resolve(false);
      });
      c.on('error', () => resolve(true));
    });
    expect(refused).toBe(true);
    const response = await draining.finish();
    expect(response).toMatch(/^HTTP\/1\.1 200 /);
    expect(response.toLowerCase()).toContain('connection: close');
    expect(response).toContain('"sum"');
    const code = await s.stop();
    expect(code, s.stderr()).toBe(0);
    expect(s.stdout()).toContain('SIGTERM: draining');
  });

  it('a SIGHUP during the SIGTERM drain neither kills it nor cuts the request in flight', async () => {
    const s = await startDev();
    const draining = await drainingRequest(s);
    s.proc.kill('SIGHUP'); // a log rotation mid-drain
    await new Promise((r) => setTimeout(r, 200));
    expect(await draining.finish()).toMatch(/^HTTP\/1\.1 200 /);
    expect(await s.stop()).toBe(0);
  });

  it('keeps serving when its stdout reader goes away (`| head`), and drains to exit 0', async () => {
    const proc = spawn(
      process.execPath,
      ['--import', 'tsx', 'adapters/cli/main.ts', 'server', '--dev', '--listen', '127.0.0.1:0'],
      { cwd: ROOT_DIR, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    proc.stderr.on('data', (d) => {
      err += d;
    });
    const { url, root } = await new Promise<{ url: string; root: string }>((resolve) => {
      proc.stdout.on('data', (d) => {
        out += d;
        const m = /Root Token: (\S+)/.exec(out);
        const u = /(http:\/\/127\.0\.0\.1:\d+)/.exec(out);
        if (m && u) {
          proc.stdout.destroy(); // the reader is gone: the next line hits EPIPE
          resolve({ url: u[1] as string, root: m[1] as string });
        }
      });
    });
    const exited = new Promise<number | null>((r) => proc.on('exit', (c) => r(c)));
    // It serves with its stdout gone (and, by the time it answers, has its signal handlers).
    const served = await call({ url, root }, 'GET', '/v1/auth/token/lookup-self');
    expect(served.status).toBe(200);
    proc.kill('SIGTERM'); // its "draining" line is written to the closed pipe
    expect(await exited).toBe(0);
    expect(err).not.toMatch(/EPIPE|Unhandled/);
  });
});

describe('persistent storage and config', () => {
  it('file storage keeps keys and tokens across restarts; the initial root token is printed once', async () => {
    const dir = tempDir();
    const keyFile = join(tempDir(), 'root.key');
    writeFileSync(keyFile, randomBytes(32).toString('base64'));
    const args = [
      '--storage',
      `file:${dir}`,
      '--root-key-file',
      keyFile,
      '--listen',
      '127.0.0.1:0',
    ];
    await expectRestartKeepsData(args);
  });

  it('a config value of the wrong type is one usage line and exit 2, never a TypeError', () => {
    const dir = tempDir();
    for (const [doc, message] of [
      [{ storage: 5 }, 'storage must be a string'],
      [{ listen: ['127.0.0.1:1'] }, 'listen must be a string'],
      [{ mount: null }, 'mount must be a string'],
      [{ policies: 'app' }, 'policies must be an object of name to policy'],
      [{ nope: 1 }, 'unknown key "nope"'],
      [{ api_addr: 8200 }, 'api_addr must be a string'],
      [
        { api_addr: 'vault:8200' },
        'api_addr must be an http or https URL such as https://vault.example:8200, got "vault:8200"',
      ],
    ] as const) {
      const file = join(dir, 'bad.json');
      writeFileSync(file, JSON.stringify(doc));
      const r = runCli(['server', '--dev', '--config', file, '--listen', '127.0.0.1:0']);
      expect(r.status, JSON.stringify(doc)).toBe(2);
      expect(r.stderr.split('\n')[0]).toBe(`transitkit: config ${file}: ${message}`);
    }
  }, 90_000); // one CLI process a case, seconds each on a loaded machine

  it('--config sets listen, storage, mount and policies; flags win', async () => {
    const dir = tempDir();
    const file = join(dir, 'config.json');
    writeFileSync(
      file,
      JSON.stringify({
        listen: '127.0.0.1:1',
        storage: 'memory',
        mount: '/v1/kms',
        max_request_bytes: 2048,
        policies: {
          app: 'path "kms/encrypt/*" { capabilities = ["update"] }',
          json: { path: { 'kms/decrypt/*': { capabilities: ['update'] } } },
        },
      }),
    );
    const s = await startCli(['--dev', '--config', file, '--listen', '127.0.0.1:0']);
    try {
      expect(s.stdout()).toContain('Transit mount: /v1/kms');
      expect((await call(s, 'GET', '/v1/sys/policy/app')).json.data.rules).toContain(
        'kms/encrypt/*',
      );
      expect((await call(s, 'GET', '/v1/sys/policies/acl/json')).status).toBe(200);
      expect((await call(s, 'POST', '/v1/kms/hash', { body: { input: b64('x') } })).status).toBe(
        200,
      );
      expect(
        (await call(s, 'POST', '/v1/kms/hash', { body: { input: b64('x'.repeat(4096)) } })).status,
      ).toBe(413);
    } finally {
      await s.stop();
    }
  });
});

describe('usage and start-up errors', () => {
  it.each([
    [['server', '--nope'], /unknown flag --nope/],
    [['server'], /--storage .* is required without --dev/],
    [['server', '--dev', '--storage', 'disk'], /--storage must be memory or file:DIR/],
    [['server', '--dev', '--listen', 'localhost'], /--listen must be HOST:PORT/],
    [['server', '--dev', '--config', '/does/not/exist.json'], /cannot read config/],
    [['frobnicate'], /unknown command/],
  ])('%j → exit 2: %s', (argv, message) => {
    const r = runCli(argv);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toContain('Usage: transitkit server');
  });

  it('--help and --version exit 0', () => {
    expect(runCli(['--help']).stdout).toContain('--dev-root-token');
    expect(runCli(['--version']).stdout).toMatch(/^transitkit \d+\.\d+\.\d+/);
  });

  it('a port in use is a start-up failure (exit 1)', async () => {
    const s = await startDev();
    try {
      const r = runCli(['server', '--dev', '--listen', new URL(s.url).host]);
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(/EADDRINUSE/);
    } finally {
      await s.stop();
    }
  });
});

describe('the package bin', () => {
  it('package.json bin names the built CLI entry; the source starts with a node shebang', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT_DIR, 'package.json'), 'utf8'));
    const bins = Object.fromEntries(BINS.map((b) => [b.bin, distFiles(b.entry).import]));
    expect(pkg.bin).toEqual(bins);
    expect(bins.transitkit).toBe('./dist/cli/main.js');
    for (const b of BINS)
      expect(readFileSync(join(ROOT_DIR, b.source), 'utf8')).toMatch(/^#!\/usr\/bin\/env node\n/);
  });
});
